import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const REPO = resolve(import.meta.dirname, "../../../..");

/**
 * The newcomer's path, for real: `npm start` from the repository (the build `npm test` just
 * made), its data in a temporary directory, sent the JSON bodies of the README's curl lines
 * verbatim, so that the README cannot drift from the API.
 */
describe("npm start", () => {
	let child: ChildProcess | null = null;
	let dir = "";
	afterEach(() => {
		if (child && child.exitCode === null) child.kill("SIGKILL");
		rmSync(dir, { recursive: true, force: true });
	});

	it("serves /health, registration, keys and /auth/me, then drains on SIGTERM and exits 0", async () => {
		dir = mkdtempSync(join(tmpdir(), "as2kit-start-"));
		child = spawn("npm", ["start", "--silent"], {
			cwd: REPO,
			env: {
				...process.env,
				PORT: "0",
				DATABASE_URL: join(dir, "as2.sqlite"),
				BLOB_DIR: join(dir, "blobs"),
				AS2_DATA_DIR: dir,
				LOG_LEVEL: "info",
			},
			stdio: ["ignore", "pipe", "pipe"],
		});
		const { port, pid } = await listening(child);
		const base = `http://127.0.0.1:${port}`;
		expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: "ok" });

		const readme = readFileSync(join(REPO, "README.md"), "utf8");
		expect(readme).toContain("npm install && npm start");
		const registration = readmeBody(readme, "/auth/register") as { email: string; password: string };
		const registered = await post(`${base}/auth/register`, registration);
		expect(registered.status).toBe(201);
		const { token } = (await registered.json()) as { token: string };
		expect(token).toMatch(/^sess_/);
		const created = await post(`${base}/v1/api-keys`, readmeBody(readme, "/v1/api-keys"), token);
		expect(created.status).toBe(201);
		const { data } = (await created.json()) as { data: { key: string } };
		expect(data.key).toMatch(/^pk_(test|live)_/);
		const me = await fetch(`${base}/auth/me`, { headers: { authorization: `Bearer ${data.key}` } });
		expect(me.status).toBe(200);
		expect(((await me.json()) as { user: { email: string } }).user.email).toBe(registration.email);
		const tenants = await fetch(`${base}/v1/tenants`, { headers: { authorization: `Bearer ${data.key}` } });
		expect(tenants.status).toBe(200);

		// A request in flight when SIGTERM arrives still gets its answer. The signal goes to the
		// server process, as a process manager sends it; npm then exits with the server's code.
		// In flight for sure, without a timing window: the server has read the request's headers
		// (it answered `100 Continue`) and waits for its body, sent only after the signal.
		const exited = new Promise<number | null>((r) => child!.once("exit", (code) => r(code)));
		const status = await postAfter(
			`${base}/auth/login`,
			{ email: registration.email, password: registration.password },
			() => process.kill(pid, "SIGTERM"),
		);
		expect(status).toBe(200);
		expect(await exited).toBe(0);
	});

	it("refuses a configuration it cannot run as asked before it listens: exits 1 naming the variable", async () => {
		dir = mkdtempSync(join(tmpdir(), "as2kit-start-"));
		const refusals: Record<string, [string, RegExp]> = {
			// Node would listen on every interface.
			HOST: ["", /HOST: must not be empty/],
			// Partners would be asked to send async MDNs where they cannot.
			AS2_PUBLIC_URL: ["as2.example.com", /AS2_PUBLIC_URL: must be the http\(s\):\/\/ base URL/],
			// Messages would stay queued.
			AS2_WORKER_CONCURRENCY: ["0", /AS2_WORKER_CONCURRENCY: /],
		};
		for (const [name, [value, expected]] of Object.entries(refusals)) {
			child = spawn(process.execPath, [join(REPO, "packages/server/dist/bin/start.js")], {
				cwd: dir,
				env: { ...process.env, [name]: value, PORT: "0", AS2_DATA_DIR: dir, LOG_LEVEL: "info" },
				stdio: ["ignore", "pipe", "pipe"],
			});
			let output = "";
			child.stdout!.on("data", (chunk: Buffer) => {
				output += chunk.toString();
			});
			child.stderr!.on("data", (chunk: Buffer) => {
				output += chunk.toString();
			});
			const code = await new Promise<number | null>((r) => child!.once("exit", (exitCode) => r(exitCode)));
			expect(code, `${name}: ${output}`).toBe(1);
			expect(output).toMatch(/invalid configuration:/);
			expect(output).toMatch(expected);
			expect(output).not.toContain("as2kit listening");
		}
	});
});

/** The JSON of the README's `curl … <path> … -d '…'` line: what a newcomer sends. */
function readmeBody(readme: string, path: string): unknown {
	// The first steps name the server `$BASE` (http://127.0.0.1:8080), set in their first block.
	const line = new RegExp(`(?:127\\.0\\.0\\.1:8080|\\$BASE)${path.replaceAll("/", "\\/")} [\\s\\S]*?-d '([^']+)'`).exec(
		readme,
	);
	if (!line) throw new Error(`the README has no curl line posting to ${path}`);
	return JSON.parse(line[1]!);
}

function post(url: string, body: unknown, token?: string): Promise<Response> {
	return fetch(url, {
		method: "POST",
		headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
		body: JSON.stringify(body),
	});
}

/**
 * POSTs JSON with `Expect: 100-continue`: once the server has the request (its `100 Continue`),
 * runs `meanwhile`, then sends the body. Resolves the response's status.
 */
function postAfter(url: string, body: unknown, meanwhile: () => void): Promise<number> {
	const json = JSON.stringify(body);
	return new Promise((resolveStatus, reject) => {
		const req = request(url, {
			method: "POST",
			headers: {
				"content-type": "application/json",
				"content-length": Buffer.byteLength(json),
				expect: "100-continue",
			},
		});
		req.once("continue", () => {
			meanwhile();
			req.end(json);
		});
		req.once("response", (response) => {
			response.resume();
			resolveStatus(response.statusCode ?? 0);
		});
		req.once("error", reject);
	});
}

/** Port and pid from the server's "as2kit listening" log line (PORT=0 picks a free port). */
function listening(child: ChildProcess): Promise<{ port: number; pid: number }> {
	return new Promise((resolvePort, reject) => {
		let output = "";
		const timer = setTimeout(() => reject(new Error(`server did not start in 60 s:\n${output}`)), 60_000);
		const onData = (chunk: Buffer) => {
			output += chunk.toString();
			const line = output
				.split("\n")
				.slice(0, -1)
				.find((l) => l.includes('"msg":"as2kit listening"'));
			if (line) {
				clearTimeout(timer);
				const { port, pid } = JSON.parse(line) as { port: number; pid: number };
				resolvePort({ port, pid });
			}
		};
		child.stdout!.on("data", onData);
		child.stderr!.on("data", onData);
		child.once("exit", (code) => {
			clearTimeout(timer);
			reject(new Error(`server exited with ${code} before listening:\n${output}`));
		});
	});
}
