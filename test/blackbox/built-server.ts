/**
 * The built server as users run it: `node packages/server/dist/bin/start.js`, the command
 * `npm start` runs, configured only by the environment, listening on 127.0.0.1 on a port it
 * picks, its data in a temporary directory that `stop()` removes. On SQLite by default; with
 * `AS2KIT_TEST_STORE=pg` (the "blackbox-on-postgresql" project of vitest.config.ts) on a fresh
 * PostgreSQL database of the test cluster.
 *
 * Every test that starts one stops it (`afterAll(() => server.stop())`); `stop()` fails the
 * test when the process died on its own, so a crash is never mistaken for a clean run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createTestDatabase, type TestDatabase } from "../pg/databases.ts";

export const REPO = resolve(import.meta.dirname, "../..");
const ENTRY = join(REPO, "packages/server/dist/bin/start.js");
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

export interface BuiltServer {
	/** `http://127.0.0.1:<port>` */
	base: string;
	port: number;
	pid: number;
	/** The temporary directory holding the database (SQLite), blobs and master key. */
	dir: string;
	/** The DATABASE_URL it runs with: the SQLite file's path, or the PostgreSQL database's URL. */
	databaseUrl: string;
	/** Everything the process wrote to stdout and stderr so far (JSON log lines). */
	output(): string;
	/** Null while the process runs; its exit code or signal once it has ended. */
	exit(): { code: number | null; signal: NodeJS.Signals | null } | null;
	/** Throws with the process output when the process is no longer running. */
	assertAlive(): void;
	/** SIGTERM, a bounded wait for the drain, SIGKILL after it; removes the directory. */
	stop(): Promise<void>;
}

export interface StartOptions {
	/** Extra environment; wins over the defaults below. */
	env?: Record<string, string>;
	/** Arguments after the entry (e.g. `["--role", "api"]`). */
	args?: string[];
	/** Force a store regardless of AS2KIT_TEST_STORE. */
	store?: "sqlite" | "pg";
	/** The Node binary that runs it (default: this process's; test/runtimes runs Node 22/24). */
	node?: string;
}

/**
 * scrypt at log2 N = 10 (~3.5 ms of CPU) instead of the production 15 (~120 ms): every start
 * hashes a decoy and every registration or login a password, ~0.25 s of CPU per server at 15.
 * The server refuses the variable with AS2_PUBLIC_URL or TLS_CERT_FILE set, so such a server
 * keeps the production cost. packages/server/test/node/password-cost.test.ts proves the default.
 */
function testPasswordCost(env: Record<string, string> = {}): Record<string, string> {
	return env.AS2_PUBLIC_URL || env.TLS_CERT_FILE ? {} : { AS2_TEST_PASSWORD_COST_LOG2: "10" };
}

/** Starts the built server and resolves once it logs "as2kit listening". */
export async function startBuiltServer(options: StartOptions = {}): Promise<BuiltServer> {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-blackbox-"));
	const store = options.store ?? (process.env.AS2KIT_TEST_STORE === "pg" ? "pg" : "sqlite");
	let database: TestDatabase | null = null;
	try {
		if (store === "pg") database = await createTestDatabase();
		const env: Record<string, string> = {
			PATH: process.env.PATH ?? "",
			HOME: process.env.HOME ?? dir,
			TMPDIR: dir,
			PORT: "0",
			HOST: "127.0.0.1",
			DATABASE_URL: database ? database.url : join(dir, "as2.sqlite"),
			BLOB_DIR: join(dir, "blobs"),
			AS2_DATA_DIR: dir,
			AS2_MASTER_KEY: "07".repeat(32),
			LOG_LEVEL: "info",
			AS2_SHUTDOWN_TIMEOUT_SECONDS: "5",
			...testPasswordCost(options.env),
			// The root store inside a transaction fails, as in every test (test/setup/check-transactions.ts).
			AS2_CHECK_TRANSACTIONS: "1",
			...options.env,
		};
		const child = spawn(options.node ?? process.execPath, [ENTRY, ...(options.args ?? [])], {
			cwd: dir,
			env,
			stdio: ["ignore", "pipe", "pipe"],
		});
		let output = "";
		const collect = (chunk: Buffer) => {
			// Bounded: a server that logs without end must not grow the test's memory without end.
			output = (output + chunk.toString()).slice(-1_000_000);
		};
		child.stdout!.on("data", collect);
		child.stderr!.on("data", collect);
		let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
		const exitedPromise = new Promise<void>((done) =>
			child.once("exit", (code, signal) => {
				exited = { code, signal };
				done();
			}),
		);
		const port = await listening(child, () => output);
		let stopped = false;
		const cleanUp = async () => {
			rmSync(dir, { recursive: true, force: true });
			await database?.drop().catch(() => {});
		};
		return {
			base: `http://127.0.0.1:${port}`,
			port,
			pid: child.pid!,
			dir,
			databaseUrl: env.DATABASE_URL!,
			output: () => output,
			exit: () => exited,
			assertAlive() {
				if (exited) throw new Error(`the server exited (${JSON.stringify(exited)}):\n${output.slice(-8000)}`);
			},
			async stop() {
				if (stopped) return;
				stopped = true;
				const diedOnItsOwn = exited;
				if (!exited) {
					child.kill("SIGTERM");
					const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
					await exitedPromise;
					clearTimeout(timer);
				}
				await cleanUp();
				if (diedOnItsOwn) {
					throw new Error(
						`the server had exited before stop (${JSON.stringify(diedOnItsOwn)}):\n${output.slice(-8000)}`,
					);
				}
			},
		};
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		await database?.drop().catch(() => {});
		throw error;
	}
}

/** The port from the server's "as2kit listening" log line. */
function listening(child: ChildProcess, output: () => string): Promise<number> {
	return new Promise((resolvePort, reject) => {
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`server did not start in ${START_TIMEOUT_MS} ms:\n${output()}`));
		}, START_TIMEOUT_MS);
		const check = () => {
			const line = output()
				.split("\n")
				.find((l) => l.includes('"msg":"as2kit listening"'));
			if (!line) return;
			clearTimeout(timer);
			child.stdout!.off("data", check);
			child.stderr!.off("data", check);
			resolvePort((JSON.parse(line) as { port: number }).port);
		};
		child.stdout!.on("data", check);
		child.stderr!.on("data", check);
		child.once("exit", (code) => {
			clearTimeout(timer);
			reject(new Error(`server exited with ${code} before listening:\n${output()}`));
		});
	});
}
