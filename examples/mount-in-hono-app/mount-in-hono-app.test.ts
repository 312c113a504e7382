import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@as2kit/server";
import { afterAll, describe, expect, it } from "vitest";
import { createHostApp } from "./mount-in-hono-app.ts";

const dir = mkdtempSync(join(tmpdir(), "as2kit-example-"));
const { host, service } = createHostApp({
	databaseUrl: ":memory:",
	blobDir: dir,
	masterKey: new Uint8Array(32).fill(1),
});
afterAll(async () => {
	await service.deps.store.close();
	rmSync(dir, { recursive: true, force: true });
});

it("examples/mount-in-hono-app serves the host's routes and as2kit under /as2kit", async () => {
	expect(await (await host.request("/")).text()).toBe("my product's home page");
	expect(await (await host.request("/as2kit/health")).json()).toEqual({ status: "ok" });
	const registered = await host.request("/as2kit/auth/register", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({
			name: "Embedded",
			email: "e@example.com",
			password: "long enough!",
			password_confirmation: "long enough!",
		}),
	});
	expect(registered.status).toBe(201);
	const { token } = (await registered.json()) as { token: string };
	const tenants = await host.request("/as2kit/v1/tenants", { headers: { authorization: `Bearer ${token}` } });
	expect(tenants.status).toBe(200);
	const doc = (await (await host.request("/as2kit/openapi.json")).json()) as {
		servers: { url: string }[];
		paths: object;
	};
	expect(doc.servers).toEqual([{ url: "/as2kit" }]);
	expect(Object.keys(doc.paths)).toContain("/v1/tenants");
	expect((await host.request("/as2kit/v1/nothing", { headers: { authorization: `Bearer ${token}` } })).status).toBe(
		404,
	);
});

describe("examples/mount-in-hono-app across restarts", () => {
	const dataDir = mkdtempSync(join(tmpdir(), "as2kit-example-restarts-"));
	const log: { level: string; object: Record<string, unknown>; message?: string | undefined }[] = [];
	const logger: Logger = {
		debug: () => {},
		info: () => {},
		warn: (object, message) => log.push({ level: "warn", object: object as Record<string, unknown>, message }),
		error: (object, message) => log.push({ level: "error", object: object as Record<string, unknown>, message }),
		child(bindings) {
			const bound = (level: "warn" | "error") => (object: object, message?: string) =>
				this[level]({ ...bindings, ...object }, message);
			return { ...this, warn: bound("warn"), error: bound("error"), child: this.child };
		},
	};
	const keyedDir = mkdtempSync(join(tmpdir(), "as2kit-example-rekeyed-"));
	const start = (masterKey: Uint8Array) =>
		createHostApp({
			databaseUrl: join(keyedDir, "embedded.sqlite"),
			blobDir: join(keyedDir, "blobs"),
			masterKey,
			logger,
		});
	const credentials = { email: "restart@example.com", password: "long enough!" };
	afterAll(() => {
		rmSync(dataDir, { recursive: true, force: true });
		rmSync(keyedDir, { recursive: true, force: true });
	});

	it("keeps its master key in the data directory: a session from before a restart still works", async () => {
		const first = await runExample(dataDir);
		let token: string;
		try {
			const registered = await fetch(`${first.url}/as2kit/auth/register`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ name: "Restarted", ...credentials, password_confirmation: credentials.password }),
				signal: AbortSignal.timeout(30_000),
			});
			expect(registered.status).toBe(201);
			token = ((await registered.json()) as { token: string }).token;
		} finally {
			await first.stop();
		}
		const second = await runExample(dataDir);
		try {
			const me = await fetch(`${second.url}/as2kit/auth/me`, {
				headers: { authorization: `Bearer ${token}` },
				signal: AbortSignal.timeout(30_000),
			});
			expect(me.status).toBe(200);
		} finally {
			await second.stop();
		}
	});

	it("logs an INTERNAL_ERROR with its stack and request id (here: started with another master key)", async () => {
		const first = start(new Uint8Array(32).fill(8));
		const registered = await first.host.request("/as2kit/auth/register", {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ name: "Rekeyed", ...credentials, password_confirmation: credentials.password }),
		});
		const { token: firstToken } = (await registered.json()) as { token: string };
		// A webhook secret is sealed under the master key.
		const endpoint = await first.host.request("/as2kit/v1/webhook-endpoints", {
			method: "POST",
			headers: { "content-type": "application/json", authorization: `Bearer ${firstToken}` },
			body: JSON.stringify({ url: "https://hooks.example.com/as2kit", events: ["*"] }),
		});
		expect(endpoint.status).toBe(201);
		const endpointId = ((await endpoint.json()) as { data: { id: string } }).data.id;
		await first.service.deps.store.close();

		const other = start(new Uint8Array(32).fill(9));
		const login = await other.host.request("/as2kit/auth/login", {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify(credentials),
		});
		const { token } = (await login.json()) as { token: string };
		// The endpoint's secret was sealed under the first key: opening it fails before any connection.
		const test = await other.host.request(`/as2kit/v1/webhook-endpoints/${endpointId}/test`, {
			method: "POST",
			headers: { authorization: `Bearer ${token}` },
		});
		expect(test.status).toBe(500);
		const requestId = test.headers.get("x-request-id");
		const answer = (await test.json()) as { error: { code: string; details: { request_id: string } } };
		expect(answer.error).toMatchObject({ code: "INTERNAL_ERROR", details: { request_id: requestId } });
		const logged = log.find((entry) => entry.level === "error" && entry.object.requestId === requestId);
		expect(logged, JSON.stringify(log)).toBeDefined();
		expect((logged!.object.err as Error).stack).toMatch(/^Error: .*\n\s+at /);
		await other.service.deps.store.close();
	});
});

/**
 * The example as people run it (`npx tsx …` in a directory of their own, here `cwd`), on a port
 * it picks; resolves once it prints its address. `stop()` ends it and waits for the exit.
 */
async function runExample(cwd: string): Promise<{ url: string; stop(): Promise<void> }> {
	const child = spawn(
		process.execPath,
		["--import", import.meta.resolve("tsx"), join(import.meta.dirname, "mount-in-hono-app.ts")],
		{
			cwd,
			// AS2_CHECK_TRANSACTIONS: the store refuses its root inside a transaction, as in every test.
			env: {
				PATH: process.env.PATH ?? "",
				HOME: cwd,
				TMPDIR: cwd,
				PORT: "0",
				LOG_LEVEL: "warn",
				AS2_CHECK_TRANSACTIONS: "1",
			},
			stdio: ["ignore", "pipe", "pipe"],
		},
	);
	const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	let output = "";
	const url = await new Promise<string>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`the example did not start in 60 s:\n${output}`)), 60_000);
		const read = (chunk: Buffer) => {
			output += chunk.toString();
			const match = /my app on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
			if (match) {
				clearTimeout(timer);
				resolve(match[1]!);
			}
		};
		child.stdout.on("data", read);
		child.stderr.on("data", read);
		child.once("exit", () => reject(new Error(`the example exited:\n${output}`)));
	});
	return {
		url,
		async stop() {
			child.kill("SIGTERM");
			const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
			await exited;
			clearTimeout(timer);
		},
	};
}
