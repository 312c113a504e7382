import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deriveKey, hashToken } from "../../src/service/secrets/tokens.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
beforeEach(async () => {
	t = createTestApp();
	owner = await register(t, "Initech");
});
afterEach(() => t.close());

describe("POST /v1/api-keys", () => {
	it.each([
		["account", "test", "pk_test_"],
		["account", "live", "pk_live_"],
		["tenant", "test", "tk_test_"],
		["tenant", "live", "tk_live_"],
	])("creates a %s %s key with prefix %s, the full key shown once", async (scope, environment, prefix) => {
		const response = await t.call("POST", "/v1/api-keys", {
			token: owner.token,
			body: { name: "ci", scope, environment, permissions: ["*"] },
		});
		expect(response.status).toBe(201);
		expect(response.json.data).toMatchObject({
			id: "key_000001",
			name: "ci",
			key_prefix: prefix,
			scope,
			environment,
			permissions: ["*"],
			tenant_id: scope === "tenant" ? owner.tenantId : null,
			created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
		});
		expect(response.json.data.key).toMatch(new RegExp(`^${prefix}[0-9A-Za-z]{40}$`));
		const list = await t.call("GET", "/v1/api-keys", { token: owner.token });
		expect(list.text).not.toContain(response.json.data.key);
		expect(list.json.data[0]).not.toHaveProperty("key");
	});

	it("stores the key only as a keyed hash", async () => {
		const key = await createKey(t, owner.token, { scope: "account", permissions: ["*"] });
		const record = await t.store.apiKeys.get(owner.accountId, "key_000001");
		expect(record?.keyHash).toBe(hashToken(deriveKey(new Uint8Array(32).fill(7), "bearer token hash"), key));
		expect(JSON.stringify(record)).not.toContain(key.slice(8));
	});

	it("accepts the second form: scopes and expires_at, defaulting to a tenant test key", async () => {
		const response = await t.call("POST", "/v1/api-keys", {
			token: owner.token,
			body: { name: "reader", scopes: ["messages:read", "partners:read"], expires_at: "2026-06-01T00:00:00Z" },
		});
		expect(response.status).toBe(201);
		expect(response.json.data).toMatchObject({
			key_prefix: "tk_test_",
			scope: "tenant",
			tenant_id: owner.tenantId,
			environment: "test",
			permissions: ["messages:read", "partners:read"],
			scopes: ["messages:read", "partners:read"],
			expires_at: "2026-06-01T00:00:00.000000Z",
		});
	});

	it.each([
		["an expiry in the past", { scopes: ["*"], expires_at: "2020-01-01T00:00:00Z" }, "expires_at"],
		["an unknown permission", { permissions: ["messages:delete"] }, "permissions.0"],
		["no permission", { scope: "account" }, "permissions"],
		["account permissions on a tenant key", { scope: "tenant", permissions: ["tenants:read"] }, "permissions"],
		["a tenant of another account", { scope: "tenant", tenant_id: "tnt_999999", permissions: ["*"] }, "tenant_id"],
	])("refuses %s with 422", async (_, body, field) => {
		const response = await t.call("POST", "/v1/api-keys", { token: owner.token, body: { name: "x", ...body } });
		expect(response.status).toBe(422);
		expect(response.json.errors).toHaveProperty(field);
	});

	it("lets a key mint only keys that reach no further than itself", async () => {
		const testAccount = await createKey(t, owner.token, { scope: "account", environment: "test", permissions: ["*"] });
		const tenantLive = await createKey(t, owner.token, { scope: "tenant", environment: "live", permissions: ["*"] });
		const reader = await createKey(t, owner.token, { scope: "account", permissions: ["tenants:read"] });
		const cases: Array<[string, Record<string, unknown>]> = [
			[testAccount, { scope: "account", environment: "live", permissions: ["*"] }],
			[tenantLive, { scope: "account", environment: "live", permissions: ["*"] }],
			[reader, { scope: "account", permissions: ["tenants:read"] }],
		];
		for (const [token, body] of cases) {
			const response = await t.call("POST", "/v1/api-keys", { token, body: { name: "x", ...body } });
			expect(response.status).toBe(403);
			expect(response.json.error).toMatchObject({ type: "authorization_error", code: "insufficient_scope" });
		}
		const allowed = await t.call("POST", "/v1/api-keys", {
			token: tenantLive,
			body: { name: "x", scope: "tenant", environment: "live", permissions: ["messages:read"] },
		});
		expect(allowed.status).toBe(201);
	});
});

describe("authentication with keys", () => {
	it("refuses a missing, malformed or unknown key with 401 invalid_api_key", async () => {
		const attempts: Record<string, string>[] = [
			{},
			{ authorization: "Basic abc" },
			{ authorization: "Bearer pk_live_nothing" },
			{ authorization: "Bearer x" },
		];
		for (const headers of attempts) {
			const response = await t.call("GET", "/v1/tenants", { headers });
			expect(response.status).toBe(401);
			expect(response.json.error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
		}
	});

	it("refuses a key after its expiry with 401 expired_api_key", async () => {
		const key = await createKey(t, owner.token, {
			scope: "account",
			permissions: ["*"],
			expires_at: "2026-03-01T10:00:00Z",
		});
		expect((await t.call("GET", "/v1/tenants", { token: key })).status).toBe(200);
		t.clock.advance(3601);
		const response = await t.call("GET", "/v1/tenants", { token: key });
		expect(response.status).toBe(401);
		expect(response.json.error.code).toBe("expired_api_key");
	});

	it("records last_used_at", async () => {
		const key = await createKey(t, owner.token, { scope: "account", permissions: ["*"] });
		t.clock.advance(120);
		await t.call("GET", "/v1/tenants", { token: key });
		const list = await t.call("GET", "/v1/api-keys", { token: owner.token });
		expect(list.json.data[0].last_used_at).toBe("2026-03-01T09:02:00.000000Z");
	});

	it("DELETE revokes: 200 with revoked_at, then 401 invalid_api_key, then 404", async () => {
		const key = await createKey(t, owner.token, { scope: "account", permissions: ["*"] });
		const response = await t.call("DELETE", "/v1/api-keys/key_000001", { token: owner.token });
		expect(response.status).toBe(200);
		expect(response.json).toEqual({
			message: expect.any(String),
			data: { id: "key_000001", revoked_at: "2026-03-01T09:00:00.000000Z" },
		});
		const refused = await t.call("GET", "/v1/tenants", { token: key });
		expect(refused.status).toBe(401);
		expect(refused.json.error.code).toBe("invalid_api_key");
		expect((await t.call("DELETE", "/v1/api-keys/key_000001", { token: owner.token })).status).toBe(404);
		expect((await t.call("GET", "/v1/api-keys", { token: owner.token })).json.data).toEqual([]);
	});

	it("lets a tenant key list and revoke only its tenant's keys", async () => {
		await t.call("POST", "/v1/tenants", { token: owner.token, body: { name: "Second" } });
		const own = await createKey(t, owner.token, { scope: "tenant", tenant_id: owner.tenantId, permissions: ["*"] });
		await createKey(t, owner.token, { scope: "tenant", tenant_id: "tnt_000002", permissions: ["*"] });
		await createKey(t, owner.token, { scope: "account", permissions: ["*"] });
		const list = await t.call("GET", "/v1/api-keys", { token: own });
		expect(list.json.data.map((k: { id: string }) => k.id)).toEqual(["key_000001"]);
		expect((await t.call("DELETE", "/v1/api-keys/key_000002", { token: own })).status).toBe(404);
		expect((await t.call("DELETE", "/v1/api-keys/key_000003", { token: own })).status).toBe(404);
	});
});
