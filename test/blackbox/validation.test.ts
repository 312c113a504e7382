/**
 * One 422 names every field at fault (issue #16, defect 9), against the built server over real
 * sockets: an API key with an empty name and a past `expires_at` with fetch, a certificate
 * upload with an empty name and an unreadable file with `curl -F` (multipart, streamed).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, type Registered, register } from "./clients.ts";

let server: BuiltServer;
let owner: Registered;

beforeAll(async () => {
	server = await startBuiltServer({ env: { AS2_DEFAULT_PLAN: "enterprise" } });
	owner = await register(server.base);
}, 120_000);
afterAll(async () => {
	await server?.stop();
});

describe("every invalid field in one 422, over real sockets", () => {
	it("an API key with an empty name and a past expires_at, with fetch: both named", async () => {
		const response = await call(server.base, "POST", "/v1/api-keys", {
			token: owner.token,
			body: { name: "", scopes: ["messages:read"], expires_at: "2020-01-01T00:00:00Z" },
		});
		expect(response.status, response.text).toBe(422);
		expect(Object.keys(response.json.errors).sort()).toEqual(["expires_at", "name"]);
		expect(response.json.error.type).toBe("validation_error");
		server.assertAlive();
	});

	it("a certificate upload with an empty name and an unreadable file, with curl -F: both named", async () => {
		const scratch = mkdtempSync(join(tmpdir(), "as2kit-validation-"));
		try {
			const file = join(scratch, "broken.cer");
			writeFileSync(file, Buffer.from([0x30, 0x82, 0x01, 0x00, 0xff]));
			const { stdout } = await curl([
				"-sS",
				`${server.base}/v1/certificates`,
				"-H",
				`Authorization: Bearer ${owner.token}`,
				"-F",
				"name=",
				"-F",
				"type=identity",
				"-F",
				"usage=both",
				"-F",
				`pkcs12=@${file}`,
				"-F",
				"password=secret",
				"-w",
				"\n%{http_code}",
			]);
			const newline = stdout.lastIndexOf("\n");
			const [body, status] = [JSON.parse(stdout.slice(0, newline)), stdout.slice(newline + 1)];
			expect([status, Object.keys(body.errors).sort()]).toEqual(["422", ["name", "pkcs12"]]);
			expect(body.error.code).toBe("INVALID_CERTIFICATE");
		} finally {
			rmSync(scratch, { recursive: true, force: true });
		}
		server.assertAlive();
	});
});
