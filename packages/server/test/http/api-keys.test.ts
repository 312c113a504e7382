import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deriveKey, hashToken } from "../../src/service/secrets/tokens.ts";
import { createKey, createTestApp, register, type TestApp, type TestResponse } from "../helpers/test-app.ts";

let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
beforeEach(async () => {
	// Enterprise: no rate limit gets in the way of the many calls of one test.
	t = createTestApp({ defaultPlan: "enterprise" });
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
			body: {
				name: "ci",
				scope,
				environment,
				permissions: ["*"],
				...(scope === "tenant" ? { tenant_id: owner.tenantId } : {}),
			},
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
		[
			"account permissions on a tenant key",
			{ scope: "tenant", tenant_id: "tnt_000001", permissions: ["tenants:read"] },
			"permissions",
		],
		["a tenant id on an account key", { scope: "account", tenant_id: "tnt_000001", permissions: ["*"] }, "tenant_id"],
		[
			"a tenant restriction on a tenant key",
			{ scopes: ["*"], allowed_tenant_ids: ["tnt_000001"] },
			"allowed_tenant_ids",
		],
		["a tenant of another account", { scope: "tenant", tenant_id: "tnt_999999", permissions: ["*"] }, "tenant_id"],
	])("refuses %s with 422", async (_, body, field) => {
		const response = await t.call("POST", "/v1/api-keys", { token: owner.token, body: { name: "x", ...body } });
		expect(response.status).toBe(422);
		expect(response.json.errors).toHaveProperty(field);
	});

	// Issue #16, defect 9: `scope: "tenant"` without `tenant_id` was created (201) for a default tenant.
	it("refuses scope tenant without tenant_id with 422 naming tenant_id, in either form, with every field at fault", async () => {
		for (const body of [
			{ scope: "tenant", permissions: ["*"] },
			{ scope: "tenant", scopes: ["messages:read"] },
		]) {
			const response = await t.call("POST", "/v1/api-keys", { token: owner.token, body: { name: "x", ...body } });
			expect(response.status, JSON.stringify(body)).toBe(422);
			expect(response.json.errors).toEqual({ tenant_id: ["is required when scope is tenant"] });
		}
		const both = await t.call("POST", "/v1/api-keys", {
			token: owner.token,
			body: { name: "x", scope: "tenant", permissions: ["tenants:read"], expires_at: "2020-01-01T00:00:00Z" },
		});
		expect(Object.keys(both.json.errors).sort()).toEqual(["expires_at", "permissions", "tenant_id"]);
		expect((await t.call("GET", "/v1/api-keys", { token: owner.token })).json.data).toEqual([]);
	});

	it("names the schema's fields and the service's together: an empty name and a past expires_at (defect 9)", async () => {
		const response = await t.call("POST", "/v1/api-keys", {
			token: owner.token,
			body: { name: "", scopes: ["messages:read"], expires_at: "2020-01-01T00:00:00Z", tenant_id: "tnt_999999" },
		});
		expect(response.status, response.text).toBe(422);
		expect(response.json.errors).toEqual({
			name: [expect.any(String)],
			expires_at: ["must be in the future"],
			tenant_id: ["was not found"],
		});
		// A field the schema refused leaves out the checks that depend on it: no word on which
		// tenant fields apply while the scope is unknown.
		const unknownScope = await t.call("POST", "/v1/api-keys", {
			token: owner.token,
			body: { name: "", scope: "acount", permissions: ["*"], allowed_tenant_ids: [owner.tenantId] },
		});
		expect(Object.keys(unknownScope.json.errors).sort()).toEqual(["name", "scope"]);
		const badPermissions = await t.call("POST", "/v1/api-keys", {
			token: owner.token,
			body: { name: "x", scope: "tenant", scopes: ["no:such"], expires_at: "2020-01-01T00:00:00Z" },
		});
		expect(badPermissions.json.errors).toEqual({
			"scopes.0": [expect.any(String)],
			expires_at: ["must be in the future"],
			tenant_id: ["is required when scope is tenant"],
		});
		expect((await t.call("GET", "/v1/api-keys", { token: owner.token })).json.data).toEqual([]);
	});

	it("refuses a key reaching further than its creator with 403 before validating the body", async () => {
		const testAccount = await createKey(t, owner.token, { scope: "account", environment: "test", permissions: ["*"] });
		const tenantKey = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["*"],
		});
		const expiring = await createKey(t, owner.token, {
			scope: "account",
			permissions: ["*"],
			expires_at: "2026-06-01T00:00:00Z",
		});
		const cases: Array<[string, Record<string, unknown>]> = [
			[testAccount, { name: "", environment: "live", permissions: ["no:such"] }],
			[tenantKey, { name: "", scope: "account", expires_at: "yesterday" }],
			[expiring, { name: 5, scope: "tenant", expires_at: "2027-01-01T00:00:00Z" }],
		];
		for (const [token, body] of cases) {
			const response = await t.call("POST", "/v1/api-keys", { token, body });
			expect([response.status, response.json.error.code], JSON.stringify(body)).toEqual([403, "insufficient_scope"]);
		}
		// A value that is not valid yet asks for nothing: validation names it.
		const invalid = await t.call("POST", "/v1/api-keys", {
			token: testAccount,
			body: { name: "", environment: "prod" },
		});
		expect(invalid.status).toBe(422);
	});

	it("makes a key for the caller's current tenant when scope is omitted (decisions.md, the second form)", async () => {
		const second = (await t.call("POST", "/v1/tenants", { token: owner.token, body: { name: "Second" } })).json.data.id;
		const response = await t.call("POST", "/v1/api-keys", {
			token: owner.token,
			headers: { "x-tenant-id": second },
			body: { name: "x", scopes: ["messages:read"] },
		});
		expect(response.status, response.text).toBe(201);
		expect(response.json.data).toMatchObject({ scope: "tenant", tenant_id: second, key_prefix: "tk_test_" });
	});

	it("lets a key mint only keys that reach no further than itself", async () => {
		const testAccount = await createKey(t, owner.token, { scope: "account", environment: "test", permissions: ["*"] });
		const tenantLive = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			environment: "live",
			permissions: ["*"],
		});
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
			body: {
				name: "x",
				scope: "tenant",
				tenant_id: owner.tenantId,
				environment: "live",
				permissions: ["messages:read"],
			},
		});
		expect(allowed.status).toBe(201);
	});
});

// Issue #16, defect 3: a key restricted to some tenants, or a tenant key, acted on keys of the
// whole account; and creation must never grant more than the creator holds.
describe("a key creates, sees and revokes only keys within its own reach", () => {
	let second: string;
	const create = (token: string, body: Record<string, unknown>) =>
		t.call("POST", "/v1/api-keys", { token, body: { name: "x", ...body } });
	const expectForbidden = (response: TestResponse, label: string) => {
		expect(response.status, `${label}: ${response.text}`).toBe(403);
		expect(response.json.error).toMatchObject({ type: "authorization_error", code: "insufficient_scope" });
	};
	const ids = async (token: string) =>
		(await t.call("GET", "/v1/api-keys", { token })).json.data.map((k: { id: string }) => k.id).sort();
	beforeEach(async () => {
		second = (await t.call("POST", "/v1/tenants", { token: owner.token, body: { name: "Second" } })).json.data.id;
	});

	it("a restricted account key creates tenant keys of its allowed tenants only", async () => {
		const restricted = await createKey(t, owner.token, {
			scope: "account",
			environment: "live",
			permissions: ["*"],
			allowed_tenant_ids: [second],
		});
		expectForbidden(await create(restricted, { scope: "account", permissions: ["*"] }), "unrestricted account key");
		expectForbidden(
			await create(restricted, { scope: "account", permissions: ["*"], allowed_tenant_ids: [second] }),
			"restricted account key",
		);
		const sibling = await create(restricted, { scope: "tenant", tenant_id: owner.tenantId, permissions: ["*"] });
		const missing = await create(restricted, { scope: "tenant", tenant_id: "tnt_999999", permissions: ["*"] });
		expect(sibling.status).toBe(422);
		expect(sibling.json.errors).toEqual(missing.json.errors);
		const own = await create(restricted, { scope: "tenant", tenant_id: second, permissions: ["*"] });
		expect(own.status, own.text).toBe(201);
		const byDefault = await create(restricted, { scopes: ["messages:read"] });
		expect(byDefault.json.data).toMatchObject({ scope: "tenant", tenant_id: second });
	});

	it("a tenant key creates keys of its own tenant only, and no account keys", async () => {
		const tenantKey = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: second,
			environment: "live",
			permissions: ["*"],
		});
		expectForbidden(await create(tenantKey, { scope: "account", permissions: ["*"] }), "account key");
		const sibling = await create(tenantKey, { scope: "tenant", tenant_id: owner.tenantId, permissions: ["*"] });
		const missing = await create(tenantKey, { scope: "tenant", tenant_id: "tnt_999999", permissions: ["*"] });
		expect(sibling.status).toBe(422);
		expect(sibling.json.errors).toEqual(missing.json.errors);
		const own = await create(tenantKey, {
			scope: "tenant",
			tenant_id: second,
			environment: "live",
			permissions: ["*"],
		});
		expect(own.status, own.text).toBe(201);
	});

	it("a key with narrow permissions creates, lists and revokes no key at all", async () => {
		const narrow = await createKey(t, owner.token, {
			scope: "account",
			environment: "live",
			permissions: ["messages:write", "partners:write", "tenants:write"],
		});
		for (const permissions of [["*"], ["messages:read"]]) {
			expectForbidden(await create(narrow, { scope: "tenant", tenant_id: second, permissions }), "create");
		}
		expectForbidden(await t.call("GET", "/v1/api-keys", { token: narrow }), "list");
		expectForbidden(await t.call("DELETE", "/v1/api-keys/key_000001", { token: narrow }), "revoke");
		expect(await ids(owner.token)).toEqual(["key_000001"]);
	});

	it("a key with an expiry creates keys that expire no later; without expires_at they inherit its expiry", async () => {
		const expiring = await createKey(t, owner.token, {
			scope: "account",
			permissions: ["*"],
			expires_at: "2026-03-02T09:00:00Z",
		});
		expectForbidden(await create(expiring, { scopes: ["*"], expires_at: "2026-03-03T09:00:00Z" }), "outliving it");
		const inherited = await create(expiring, { scopes: ["*"] });
		expect(inherited.status, inherited.text).toBe(201);
		expect(inherited.json.data.expires_at).toBe("2026-03-02T09:00:00.000000Z");
		const sooner = await create(expiring, { scopes: ["*"], expires_at: "2026-03-01T12:00:00Z" });
		expect(sooner.json.data.expires_at).toBe("2026-03-01T12:00:00.000000Z");
		// The owner's session is the account's own authority: its keys need no expiry.
		expect((await create(owner.token, { scopes: ["*"] })).json.data.expires_at).toBeNull();
	});

	it("lists and revokes exactly the keys the caller could have created", async () => {
		const live = { environment: "live", permissions: ["*"] };
		await createKey(t, owner.token, { scope: "account", ...live }); // key_000001
		const restricted = await createKey(t, owner.token, { scope: "account", ...live, allowed_tenant_ids: [second] }); // 2
		await createKey(t, owner.token, { scope: "tenant", tenant_id: owner.tenantId, ...live }); // 3
		const secondLive = await createKey(t, owner.token, { scope: "tenant", tenant_id: second, ...live }); // 4
		await createKey(t, owner.token, { scope: "tenant", tenant_id: second, permissions: ["*"] }); // 5, test
		const testAccount = await createKey(t, owner.token, { scope: "account", permissions: ["*"] }); // 6, test
		expect(await ids(owner.token)).toEqual([
			"key_000001",
			"key_000002",
			"key_000003",
			"key_000004",
			"key_000005",
			"key_000006",
		]);
		expect(await ids(restricted)).toEqual(["key_000004", "key_000005"]);
		expect(await ids(secondLive)).toEqual(["key_000004", "key_000005"]);
		expect(await ids(testAccount)).toEqual(["key_000005", "key_000006"]);
		for (const [token, keyId] of [
			[restricted, "key_000001"],
			[restricted, "key_000003"],
			[secondLive, "key_000002"],
			[secondLive, "key_000003"],
			[testAccount, "key_000001"],
			[testAccount, "key_000004"],
		] as const) {
			const response = await t.call("DELETE", `/v1/api-keys/${keyId}`, { token });
			expect(response.status, `${keyId}: ${response.text}`).toBe(404);
		}
		expect(await ids(owner.token)).toHaveLength(6);
		expect((await t.call("DELETE", "/v1/api-keys/key_000005", { token: restricted })).status).toBe(200);
		expect((await t.call("DELETE", "/v1/api-keys/key_000002", { token: owner.token })).status).toBe(200);
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
