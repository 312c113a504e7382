import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let accountKey: string;
let tenantKey: string;
beforeEach(async () => {
	t = createTestApp();
	owner = await register(t, "Holding");
	accountKey = await createKey(t, owner.token, { scope: "account", environment: "live", permissions: ["*"] });
	tenantKey = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	await t.call("POST", "/v1/tenants", { token: accountKey, body: { name: "Holding EU" } });
});
afterEach(() => t.close());

const hub = {
	name: "EDI Hub",
	as2_id: "EDI-HUB",
	url: "https://hub.example/as2",
	sign: true,
	sign_algorithm: "SHA256withRSA",
};
const masters = () => `/v1/accounts/${owner.accountId}/partners`;

describe("master partners", () => {
	it("are created by account keys and inherited by every tenant as type inherited", async () => {
		const created = await t.call("POST", masters(), { token: accountKey, body: hub });
		expect(created.status).toBe(201);
		expect(created.json.data).toMatchObject({
			id: "prt_master_000001",
			type: "inherited",
			master_partner_id: "prt_master_000001",
		});
		for (const tenant of [owner.tenantId, "tnt_000002"]) {
			const list = await t.call("GET", "/v1/partners", { token: accountKey, headers: { "x-tenant-id": tenant } });
			expect(list.json.data).toEqual([
				expect.objectContaining({
					id: "prt_master_000001",
					type: "inherited",
					master_partner_id: "prt_master_000001",
					has_overrides: false,
					name: "EDI Hub",
				}),
			]);
		}
		const [event] = await t.store.events.list({ accountId: owner.accountId, kind: "partner.created" });
		expect(event).toMatchObject({ tenantId: null, data: { id: "prt_master_000001" } });
		const listed = await t.call("GET", masters(), { token: accountKey });
		expect(listed.json.data.map((p: { id: string }) => p.id)).toEqual(["prt_master_000001"]);
		const one = await t.call("GET", `${masters()}/prt_master_000001`, { token: accountKey });
		expect(one.json.data).toMatchObject({ id: "prt_master_000001", certificates: [] });
	});

	it("are closed to tenant keys, and to other accounts (404)", async () => {
		expect((await t.call("POST", masters(), { token: tenantKey, body: hub })).status).toBe(403);
		expect((await t.call("GET", masters(), { token: tenantKey })).json.error.code).toBe("insufficient_scope");
		const other = await register(t, "Other");
		const otherKey = await createKey(t, other.token, { scope: "account", permissions: ["*"] });
		expect((await t.call("GET", masters(), { token: otherKey })).status).toBe(404);
		expect((await t.call("POST", masters(), { token: otherKey, body: hub })).status).toBe(404);
	});

	it("count against the plan's partner limit", async () => {
		for (let i = 1; i <= 5; i++)
			await t.call("POST", masters(), { token: accountKey, body: { ...hub, as2_id: `HUB${i}` } });
		const sixth = await t.call("POST", "/v1/partners", { token: tenantKey, body: { ...hub, as2_id: "LOCAL" } });
		expect(sixth.json.error.code).toBe("PARTNER_LIMIT_EXCEEDED");
	});
});

describe("inherited partners in a tenant", () => {
	beforeEach(async () => {
		await t.call("POST", masters(), { token: accountKey, body: hub });
	});

	it("are read-only for tenant keys: PATCH, DELETE, overrides, activation and certificates answer 403", async () => {
		for (const [method, path, body] of [
			["PATCH", "/v1/partners/prt_master_000001", { url: "https://mine.example/as2" }],
			["DELETE", "/v1/partners/prt_master_000001", undefined],
			["GET", "/v1/partners/prt_master_000001/overrides", undefined],
			["DELETE", "/v1/partners/prt_master_000001/overrides", undefined],
			["POST", "/v1/partners/prt_master_000001/deactivate", undefined],
		] as const) {
			const response = await t.call(method, path, { token: tenantKey, body });
			expect(response.status, `${method} ${path}`).toBe(403);
			expect(response.json.error.code).toBe("insufficient_scope");
		}
		expect((await t.call("GET", "/v1/partners/prt_master_000001", { token: tenantKey })).status).toBe(200);
	});

	it("store an account key's PATCH as override_settings of this tenant only, and reset with DELETE overrides", async () => {
		const patched = await t.call("PATCH", "/v1/partners/prt_master_000001", {
			token: accountKey,
			body: { url: "https://eu.hub.example/as2", connection: { timeout_seconds: 30 } },
		});
		expect(patched.status).toBe(200);
		expect(patched.json.data).toMatchObject({
			id: "prt_master_000001",
			type: "inherited",
			has_overrides: true,
			url: "https://eu.hub.example/as2",
			override_settings: { url: "https://eu.hub.example/as2", connection: { timeout_seconds: 30 } },
		});
		await t.call("PATCH", "/v1/partners/prt_master_000001", { token: accountKey, body: { name: "Hub (EU)" } });
		const overrides = await t.call("GET", "/v1/partners/prt_master_000001/overrides", { token: accountKey });
		expect(overrides.json.data).toEqual({
			partner_id: "prt_master_000001",
			master_partner_id: "prt_master_000001",
			has_overrides: true,
			override_settings: { name: "Hub (EU)", url: "https://eu.hub.example/as2", connection: { timeout_seconds: 30 } },
		});
		const detail = await t.call("GET", "/v1/partners/prt_master_000001", { token: tenantKey });
		expect(detail.json.data).toMatchObject({ name: "Hub (EU)", url: "https://eu.hub.example/as2", sign: true });
		expect(detail.json.data.override_settings).toMatchObject({ name: "Hub (EU)" });
		// The other tenant and the master itself are untouched.
		const other = await t.call("GET", "/v1/partners/prt_master_000001", {
			token: accountKey,
			headers: { "x-tenant-id": "tnt_000002" },
		});
		expect(other.json.data).toMatchObject({ name: "EDI Hub", url: "https://hub.example/as2", has_overrides: false });
		expect((await t.call("GET", `${masters()}/prt_master_000001`, { token: accountKey })).json.data.url).toBe(
			"https://hub.example/as2",
		);
		// Master changes show through where the tenant did not override.
		await t.call("PATCH", `${masters()}/prt_master_000001`, {
			token: accountKey,
			body: { compress: true, url: "https://v2.hub.example/as2" },
		});
		const merged = await t.call("GET", "/v1/partners/prt_master_000001", { token: tenantKey });
		expect(merged.json.data).toMatchObject({ compress: true, url: "https://eu.hub.example/as2" });
		const reset = await t.call("DELETE", "/v1/partners/prt_master_000001/overrides", { token: accountKey });
		expect(reset.json.data).toMatchObject({ has_overrides: false, name: "EDI Hub", url: "https://v2.hub.example/as2" });
		expect(
			(await t.call("GET", "/v1/partners/prt_master_000001/overrides", { token: accountKey })).json.data,
		).toMatchObject({
			has_overrides: false,
			override_settings: {},
		});
	});

	it("can be deactivated for one tenant by an account key (an override of active)", async () => {
		const off = await t.call("POST", "/v1/partners/prt_master_000001/deactivate", { token: accountKey });
		expect(off.json.data).toMatchObject({ active: false });
		expect(
			(await t.call("GET", "/v1/partners?active=false", { token: tenantKey })).json.data.map(
				(p: { id: string }) => p.id,
			),
		).toEqual(["prt_master_000001"]);
		const other = await t.call("GET", "/v1/partners?active=true", {
			token: accountKey,
			headers: { "x-tenant-id": "tnt_000002" },
		});
		expect(other.json.data.map((p: { id: string }) => p.id)).toEqual(["prt_master_000001"]);
	});

	it("is not deleted from a tenant; deleting the master removes it everywhere", async () => {
		expect((await t.call("DELETE", "/v1/partners/prt_master_000001", { token: accountKey })).status).toBe(403);
		const deleted = await t.call("DELETE", `${masters()}/prt_master_000001`, { token: accountKey });
		expect(deleted.json.data.id).toBe("prt_master_000001");
		expect((await t.call("GET", "/v1/partners/prt_master_000001", { token: tenantKey })).json.error.code).toBe(
			"PARTNER_NOT_FOUND",
		);
	});

	it("overrides cannot change the AS2 id; a tenant partner cannot take an inherited AS2 id", async () => {
		const patched = await t.call("PATCH", "/v1/partners/prt_master_000001", {
			token: accountKey,
			body: { as2_id: "MINE" },
		});
		expect(patched.status).toBe(422);
		const taken = await t.call("POST", "/v1/partners", { token: tenantKey, body: { ...hub, name: "Copy" } });
		expect(taken.json.error.code).toBe("DUPLICATE_AS2_ID");
		expect((await t.call("GET", "/v1/partners/prt_000001/overrides", { token: accountKey })).status).toBe(404);
	});
});
