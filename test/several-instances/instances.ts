/**
 * Reference servers as real processes (the built `npm start` entry) sharing one PostgreSQL
 * database, one blob directory and one master key: a deployment of several instances behind
 * a load balancer, on loopback.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { httpsClient } from "../../packages/server/test/helpers/https-client.ts";
import { freePort } from "../../packages/server/test/helpers/peers.ts";
import type { TestPki } from "../../packages/server/test/helpers/tls.ts";

const START = resolve(import.meta.dirname, "../../packages/server/dist/bin/start.js");

export interface Instance {
	baseUrl: string;
	child: ChildProcess;
	call: ReturnType<typeof httpsClient>;
	kill(): Promise<void>;
	stop(): Promise<void>;
}

export interface Deployment {
	databaseUrl: string;
	/** The shared blob directory and each instance's data directory live under it. */
	dir: string;
	pki: TestPki;
	masterKey: string;
}

export function deployment(databaseUrl: string, dir: string, pki: TestPki): Deployment {
	return { databaseUrl, dir, pki, masterKey: randomBytes(32).toString("hex") };
}

export async function startInstance(d: Deployment, name: string, env: Record<string, string> = {}): Promise<Instance> {
	const port = await freePort();
	const baseUrl = `https://127.0.0.1:${port}`;
	const dataDir = join(d.dir, name);
	mkdirSync(dataDir, { recursive: true });
	const child = spawn(process.execPath, [START], {
		env: {
			...process.env,
			PORT: String(port),
			HOST: "127.0.0.1",
			DATABASE_URL: d.databaseUrl,
			BLOB_DIR: join(d.dir, "blobs"),
			AS2_DATA_DIR: dataDir,
			AS2_MASTER_KEY: d.masterKey,
			TLS_CERT_FILE: d.pki.certPath,
			TLS_KEY_FILE: d.pki.keyPath,
			AS2_PUBLIC_URL: baseUrl,
			AS2_ALLOW_HTTP: "1",
			// Partners and MDN receipts are on loopback: the on-premise opt-in.
			AS2_ALLOW_PRIVATE_TARGETS: "1",
			AS2_DEFAULT_PLAN: "enterprise",
			// A killed instance's jobs come back to the others after this lease. It is renewed every
			// third of it: a loaded machine can stall an instance past a 2 s lease's renewal, and
			// another instance then sends the same message again. 10 s was passed too, with renewals
			// queued behind a starved PostgreSQL at a load of 12–16; 20 s costs the test 10 s.
			AS2_JOB_LEASE_SECONDS: "20",
			AS2_SEND_RETRY_DELAYS: "0,1,1,1,1,1,1,1,1,1",
			LOG_LEVEL: "error",
			...env,
		},
		stdio: ["ignore", "ignore", "pipe"],
	});
	let stderr = "";
	child.stderr?.on("data", (chunk: Buffer) => {
		stderr = (stderr + chunk.toString()).slice(-4000);
	});
	const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
	const call = httpsClient(baseUrl, d.pki.caPem);
	const up = async () => {
		// Bounded generously: a loaded machine starts a process slowly.
		for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
			if (child.exitCode !== null) break;
			const health = await call("GET", "/health", { timeoutMs: 1000 }).catch(() => null);
			if (health?.status === 200) return;
			await new Promise((r) => setTimeout(r, 50));
		}
		child.kill("SIGKILL");
		throw new Error(`instance ${name} did not start: ${stderr}`);
	};
	await up();
	return {
		baseUrl,
		child,
		call,
		async kill() {
			child.kill("SIGKILL");
			await exited;
		},
		async stop() {
			if (child.exitCode !== null || child.signalCode !== null) return;
			child.kill("SIGTERM");
			const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
			await exited;
			clearTimeout(timer);
		},
	};
}
