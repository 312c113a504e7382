/**
 * Issue #18 §1: an INTERNAL_ERROR is always logged with its stack and the request id the
 * answer carries. Provoked as users met it: the server restarted on the same database with
 * another master key, so a webhook secret sealed under the first cannot be opened (before any
 * connection is made). SQLite only: the two processes share a database file of this test.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "../../packages/server/test/helpers/webhook-receiver.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, register } from "./clients.ts";

const shared = mkdtempSync(join(tmpdir(), "as2kit-internal-error-"));
const env = (key: string) => ({
	DATABASE_URL: join(shared, "as2.sqlite"),
	BLOB_DIR: join(shared, "blobs"),
	AS2_MASTER_KEY: key.repeat(32),
});
let running: BuiltServer | null = null;
afterAll(async () => {
	await running?.stop();
	rmSync(shared, { recursive: true, force: true });
});

describe("an INTERNAL_ERROR of the built server", () => {
	it("is logged with its stack under the request id the 500 answer carries", async () => {
		running = await startBuiltServer({ store: "sqlite", env: env("07") });
		const user = await register(running.base);
		const endpoint = await call(running.base, "POST", "/v1/webhook-endpoints", {
			token: user.token,
			body: { url: "https://hooks.example.com/as2kit", events: ["*"] },
		});
		expect(endpoint.status, endpoint.text).toBe(201);
		await running.stop();

		running = await startBuiltServer({ store: "sqlite", env: env("08") });
		const login = await call(running.base, "POST", "/auth/login", {
			body: { email: user.email, password: user.password },
		});
		expect(login.status, login.text).toBe(200);
		const answer = await call(running.base, "POST", `/v1/webhook-endpoints/${endpoint.json.data.id}/test`, {
			token: login.json.token,
		});
		expect(answer.status).toBe(500);
		const requestId = answer.headers.get("x-request-id");
		expect(answer.json.error).toMatchObject({ code: "INTERNAL_ERROR", details: { request_id: requestId } });
		expect(answer.text).not.toMatch(/authenticate data|Decipher/);
		// The log line is written by the server process on its own schedule: wait for it (bounded).
		const server = running;
		const loggedLine = () =>
			server
				.output()
				.split("\n")
				.filter((line) => line.startsWith("{"))
				.map((line) => JSON.parse(line))
				.find((line) => line.level === 50 && line.requestId === requestId);
		await waitFor(() => loggedLine() !== undefined, "the error's log line", 15_000).catch(() => {});
		const logged = loggedLine();
		expect(logged, server.output().slice(-4000)).toBeDefined();
		expect(logged.err.stack).toMatch(/^Error: .*\n\s+at /);
	});
});
