import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let accountKey: string;
beforeEach(async () => {
	t = createTestApp();
	owner = await register(t, "Umbrella");
	accountKey = await createKey(t, owner.token, { scope: "account", environment: "live", permissions: ["*"] });
});
afterEach(() => t.close());

/** The tenant a request works in, as the default tenant of a new tenant key shows it. */
async function currentTenant(token: string, headers: Record<string, string> = {}) {
	const response = await t.call("POST", "/v1/api-keys", {
		token,
		headers,
		body: { name: "probe", scopes: ["messages:read"] },
	});
	return {
		status: response.status,
		tenantId: response.json?.data?.tenant_id as string | undefined,
		json: response.json,
	};
}

describe("/v1/tenants", () => {
	it("creates a tenant with a derived AS2 id, emitting tenant.created in the same transaction", async () => {
		const response = await t.call("POST", "/v1/tenants", { token: accountKey, body: { name: "Umbrella Europe" } });
		expect(response.status).toBe(201);
		expect(response.json.data).toEqual({
			id: "tnt_000002",
			account_id: owner.accountId,
			name: "Umbrella Europe",
			slug: "umbrella-europe",
			as2_id: "UMBRELLA_EUROPE",
			status: "active",
			created_at: "2026-03-01T09:00:00.000000Z",
			updated_at: "2026-03-01T09:00:00.000000Z",
		});
		const events = await t.store.events.list({ accountId: owner.accountId, kind: "tenant.created" });
		expect(events.at(-1)).toMatchObject({
			tenantId: "tnt_000002",
			environment: "live",
			data: { id: "tnt_000002", as2_id: "UMBRELLA_EUROPE" },
		});
	});

	it("refuses a taken AS2 id (DUPLICATE_AS2_ID) and a malformed one (INVALID_AS2_ID_FORMAT)", async () => {
		const other = await register(t, "Other Co");
		const taken = await t.call("POST", "/v1/tenants", { token: accountKey, body: { name: "X", as2_id: "OTHER_CO" } });
		expect(taken.status).toBe(422);
		expect(taken.json).toMatchObject({ errors: { as2_id: [expect.any(String)] }, error: { code: "DUPLICATE_AS2_ID" } });
		const malformed = await t.call("POST", "/v1/tenants", {
			token: accountKey,
			body: { name: "X", as2_id: "has space" },
		});
		expect(malformed.json.error.code).toBe("INVALID_AS2_ID_FORMAT");
		const patched = await t.call("PATCH", `/v1/tenants/${owner.tenantId}`, {
			token: accountKey,
			body: { as2_id: "OTHER_CO" },
		});
		expect(patched.json.error.code).toBe("DUPLICATE_AS2_ID");
		expect(other.tenantId).toBe("tnt_000002");
	});

	it("lists with pagination and refuses out-of-range page parameters", async () => {
		for (let i = 2; i <= 5; i++) await t.call("POST", "/v1/tenants", { token: accountKey, body: { name: `T${i}` } });
		const page = await t.call("GET", "/v1/tenants?page=2&per_page=2", { token: accountKey });
		expect(page.json.data.map((x: { id: string }) => x.id)).toEqual(["tnt_000003", "tnt_000004"]);
		expect(page.json.pagination).toEqual({ current_page: 2, last_page: 3, per_page: 2, total: 5, from: 3, to: 4 });
		const empty = await t.call("GET", "/v1/tenants?page=9", { token: accountKey });
		expect(empty.json.pagination).toMatchObject({ current_page: 9, total: 5, from: 0, to: 0 });
		expect((await t.call("GET", "/v1/tenants", { token: accountKey })).json.pagination.per_page).toBe(20);
		for (const bad of ["page=0", "per_page=0", "per_page=101", "page=abc"]) {
			const response = await t.call("GET", `/v1/tenants?${bad}`, { token: accountKey });
			expect(response.status).toBe(422);
			expect(Object.keys(response.json.errors)).toEqual([bad.split("=")[0]]);
		}
	});

	it("PATCH changes only the supplied fields and emits tenant.updated", async () => {
		t.clock.advance(60);
		const response = await t.call("PATCH", `/v1/tenants/${owner.tenantId}`, {
			token: accountKey,
			body: { name: "Umbrella HQ" },
		});
		expect(response.status).toBe(200);
		expect(response.json.data).toMatchObject({
			name: "Umbrella HQ",
			as2_id: "UMBRELLA",
			updated_at: "2026-03-01T09:01:00.000000Z",
		});
		const [event] = await t.store.events.list({ accountId: owner.accountId, kind: "tenant.updated" });
		expect(event?.data).toMatchObject({ id: owner.tenantId, name: "Umbrella HQ" });
	});

	it("is closed to tenant keys and to account keys without the permission", async () => {
		const tenantKey = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["*"],
		});
		const readOnly = await createKey(t, owner.token, { scope: "account", permissions: ["tenants:read"] });
		for (const [token, method, path] of [
			[tenantKey, "GET", "/v1/tenants"],
			[tenantKey, "GET", `/v1/tenants/${owner.tenantId}`],
			[tenantKey, "POST", "/v1/tenants"],
			[readOnly, "POST", "/v1/tenants"],
			[readOnly, "PATCH", `/v1/tenants/${owner.tenantId}`],
		] as const) {
			const response = await t.call(method, path, { token, body: method === "GET" ? undefined : { name: "x" } });
			expect(response.status, `${method} ${path}`).toBe(403);
			expect(response.json.error.code).toBe("insufficient_scope");
		}
		expect((await t.call("GET", "/v1/tenants", { token: readOnly })).status).toBe(200);
	});
});

describe("X-Tenant-ID", () => {
	it("switches the tenant of an account key; without it the first tenant is used", async () => {
		await t.call("POST", "/v1/tenants", { token: accountKey, body: { name: "Second" } });
		expect((await currentTenant(accountKey)).tenantId).toBe("tnt_000001");
		expect((await currentTenant(accountKey, { "x-tenant-id": "tnt_000002" })).tenantId).toBe("tnt_000002");
	});

	it("answers 404 for a tenant outside the account, as for a missing one", async () => {
		await register(t, "Stranger");
		for (const id of ["tnt_000002", "tnt_999999"]) {
			const probe = await currentTenant(accountKey, { "x-tenant-id": id });
			expect(probe.status).toBe(404);
			expect(probe.json.error).toMatchObject({ type: "resource_error", code: "NOT_FOUND" });
		}
	});

	it("is ignored for tenant keys", async () => {
		await t.call("POST", "/v1/tenants", { token: accountKey, body: { name: "Second" } });
		const tenantKey = await createKey(t, owner.token, { scope: "tenant", tenant_id: "tnt_000001", permissions: ["*"] });
		expect((await currentTenant(tenantKey, { "x-tenant-id": "tnt_000002" })).tenantId).toBe("tnt_000001");
	});

	it("honours an account key's tenant restriction: 404 outside it (as for a missing tenant), and its first allowed tenant by default", async () => {
		await t.call("POST", "/v1/tenants", { token: accountKey, body: { name: "Second" } });
		const restricted = await createKey(t, owner.token, {
			scope: "account",
			permissions: ["*"],
			allowed_tenant_ids: ["tnt_000002"],
		});
		expect((await currentTenant(restricted)).tenantId).toBe("tnt_000002");
		const outside = await currentTenant(restricted, { "x-tenant-id": "tnt_000001" });
		expect(outside.status).toBe(404);
		expect(outside.json.error).toMatchObject({ type: "resource_error", code: "NOT_FOUND" });
		const list = await t.call("GET", "/v1/tenants", { token: restricted });
		expect(list.json.data.map((x: { id: string }) => x.id)).toEqual(["tnt_000002"]);
		expect((await t.call("GET", "/v1/tenants/tnt_000001", { token: restricted })).status).toBe(404);
	});
});

describe("/v1/account", () => {
	it("shows the account with its plan's limits", async () => {
		const response = await t.call("GET", "/v1/account", { token: accountKey });
		expect(response.json.data).toMatchObject({
			id: owner.accountId,
			plan: "free",
			limits: {
				requests_per_minute: 100,
				burst_limit: 20,
				concurrent_requests: 5,
				partners: 5,
				max_payload_bytes: 50 * 1024 * 1024,
			},
		});
	});

	it("renames with account.updated; a plan change needs billing:write and emits billing.subscription_updated", async () => {
		const noBilling = await createKey(t, owner.token, { scope: "account", permissions: ["accounts:write"] });
		expect((await t.call("PATCH", "/v1/account", { token: noBilling, body: { name: "Umbrella Inc" } })).status).toBe(
			200,
		);
		const refused = await t.call("PATCH", "/v1/account", { token: noBilling, body: { plan: "starter" } });
		expect(refused.status).toBe(403);
		const changed = await t.call("PATCH", "/v1/account", { token: accountKey, body: { plan: "professional" } });
		expect(changed.json.data).toMatchObject({
			name: "Umbrella Inc",
			plan: "professional",
			limits: { requests_per_minute: 1000 },
		});
		const kinds = (await t.store.events.list({ accountId: owner.accountId })).map((e) => e.kind);
		expect(kinds.slice(-3)).toEqual(["account.updated", "account.updated", "billing.subscription_updated"]);
		const [subscription] = await t.store.events.list({
			accountId: owner.accountId,
			kind: "billing.subscription_updated",
		});
		expect(subscription?.data).toMatchObject({
			account_id: owner.accountId,
			plan: "professional",
			previous_plan: "free",
		});
		expect((await t.call("PATCH", "/v1/account", { token: accountKey, body: { plan: "platinum" } })).status).toBe(422);
	});

	it("is closed to tenant keys", async () => {
		const tenantKey = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["*"],
		});
		expect((await t.call("GET", "/v1/account", { token: tenantKey })).status).toBe(403);
	});
});
