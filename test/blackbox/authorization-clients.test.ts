/**
 * Who may do what (README), tried with the clients people use against the built server: the
 * `curl` CLI as the README's first steps use it, and raw `node:net` sockets for what fetch will
 * not send (repeated headers, forged and oversized credentials). Issue #16, defects 3 and 9.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, createKey, curl, type Registered, rawRequest, register } from "./clients.ts";

let server: BuiltServer;
let owner: Registered;
let second: string;
let ownerKey: string;
let restricted: string;

beforeAll(async () => {
	// Trusting X-Forwarded-For lets each refused request below name its own client address, so
	// the per-address limit for failed authentication stays out of the way.
	server = await startBuiltServer({ env: { AS2_DEFAULT_PLAN: "enterprise", AS2_TRUST_PROXY: "1" } });
	owner = await register(server.base);
	second = (await call(server.base, "POST", "/v1/tenants", { token: owner.token, body: { name: "Second" } })).json.data
		.id;
	ownerKey = await createKey(server.base, owner.token, { scope: "account", environment: "live", permissions: ["*"] });
	await createKey(server.base, owner.token, { scope: "tenant", tenant_id: owner.tenantId, permissions: ["*"] });
	restricted = await createKey(server.base, owner.token, {
		scope: "account",
		environment: "live",
		permissions: ["*"],
		allowed_tenant_ids: [second],
	});
});
afterAll(() => server.stop());

/** `curl` with the README's headers; the status on the last line. */
async function curlJson(key: string, method: string, path: string, body?: unknown) {
	const args = [
		"-X",
		method,
		`${server.base}${path}`,
		"-H",
		`Authorization: Bearer ${key}`,
		"-H",
		"Accept: application/json",
	];
	if (body !== undefined) args.push("-H", "Content-Type: application/json", "-d", JSON.stringify(body));
	const { stdout, code } = await curl([...args, "-w", "\n%{http_code}"]);
	expect(code, stdout).toBe(0);
	const lines = stdout.split("\n");
	return { status: Number(lines.pop()), json: JSON.parse(lines.join("\n")) };
}

describe("curl, as the README's first steps use it", () => {
	it("a key restricted to a tenant sees only that tenant's keys and cannot change the account", async () => {
		const keys = await curlJson(restricted, "GET", "/v1/api-keys");
		expect(keys.status).toBe(200);
		expect(keys.json.data).toEqual([]);
		for (const body of [{ plan: "free" }, { name: "Taken over" }]) {
			const patched = await curlJson(restricted, "PATCH", "/v1/account", body);
			expect(patched.status).toBe(403);
			expect(patched.json.error).toMatchObject({ type: "authorization_error", code: "insufficient_scope" });
		}
		const account = await curlJson(ownerKey, "GET", "/v1/account");
		expect(account.json.data).toMatchObject({ plan: "enterprise" });
	});

	it("a key restricted to a tenant cannot mint a key for the whole account, nor for another tenant", async () => {
		const account = await curlJson(restricted, "POST", "/v1/api-keys", {
			name: "escalation",
			scope: "account",
			environment: "live",
			permissions: ["*"],
		});
		expect(account.status).toBe(403);
		const sibling = await curlJson(restricted, "POST", "/v1/api-keys", {
			name: "escalation",
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["*"],
		});
		expect(sibling.status).toBe(422);
		expect(sibling.json.errors).toEqual({ tenant_id: ["was not found"] });
		const own = await curlJson(restricted, "POST", "/v1/api-keys", {
			name: "delegated",
			scope: "tenant",
			tenant_id: second,
			permissions: ["messages:read"],
		});
		expect(own.status).toBe(201);
		expect(own.json.data).toMatchObject({ scope: "tenant", tenant_id: second, key_prefix: "tk_test_" });
	});

	it("scope tenant without tenant_id is 422 naming tenant_id (defect 9)", async () => {
		const response = await curlJson(owner.token, "POST", "/v1/api-keys", {
			name: "ci",
			scope: "tenant",
			permissions: ["messages:read"],
		});
		expect(response.status).toBe(422);
		expect(response.json.errors).toEqual({ tenant_id: ["is required when scope is tenant"] });
	});
});

describe("raw sockets: credentials and tenant headers as a hostile client sends them", () => {
	let address = 0;
	/** One request on a fresh connection: `lines` are the request line and headers. */
	const request = (lines: string[], payload = "") => {
		const head = [
			...lines,
			"Host: 127.0.0.1",
			"Accept: application/json",
			`X-Forwarded-For: 2001:db8::${(++address).toString(16)}`,
			"Connection: close",
		];
		return rawRequest(server.port, `${head.join("\r\n")}\r\n\r\n`, [payload], { timeoutMs: 10_000 });
	};
	const body = (raw: string) => JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4));

	it("a repeated X-Tenant-ID never takes a restricted key into a tenant outside its restriction", async () => {
		for (const order of [
			[second, owner.tenantId],
			[owner.tenantId, second],
		]) {
			const response = await request([
				"GET /v1/partners HTTP/1.1",
				`Authorization: Bearer ${restricted}`,
				...order.map((id) => `X-Tenant-ID: ${id}`),
			]);
			expect(response.status, response.raw).toBe(404);
		}
	});

	it("forged, damaged and oversized credentials are 401 invalid_api_key, never a 5xx", async () => {
		const flipped = `${ownerKey.slice(0, -1)}${ownerKey.endsWith("a") ? "b" : "a"}`;
		for (const authorization of [
			`Bearer pk_live_${"x".repeat(40)}`,
			`Bearer ${ownerKey.slice(0, -1)}`,
			`Bearer ${flipped}`,
			`Bearer sess_${"A".repeat(54)}`,
			`Bearer ${"pk_live_".padEnd(8_000, "z")}`,
			`Basic ${Buffer.from(`${owner.email}:${owner.password}`).toString("base64")}`,
			`Bearer ${ownerKey} ${ownerKey}`,
			"Bearer",
		]) {
			const response = await request(["GET /v1/account HTTP/1.1", `Authorization: ${authorization}`]);
			expect(response.status, authorization.slice(0, 40)).toBe(401);
			expect(body(response.raw).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
		}
		server.assertAlive();
	});

	it("two Authorization headers never act as the wider key", async () => {
		const response = await request(
			[
				"PATCH /v1/account HTTP/1.1",
				`Authorization: Bearer ${restricted}`,
				`Authorization: Bearer ${ownerKey}`,
				"Content-Type: application/json",
				"Content-Length: 2",
			],
			"{}",
		);
		expect([400, 401, 403], response.raw).toContain(response.status);
	});
});
