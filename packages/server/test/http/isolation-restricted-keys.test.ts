import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../helpers/certs.ts";
import { createKey, createTestApp, register, type TestApp, type TestResponse } from "../helpers/test-app.ts";

/**
 * Issue #16, defect 3: an account key restricted to tenant A2 acted on the whole account. It
 * may touch only what belongs to its allowed tenants; what every tenant shares (the account,
 * new tenants, master partners and their certificates, other tenants' keys) needs an owner's
 * or admin's session or an account key without a restriction (README, Who may do what).
 */
let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let a2: string;
let unrestricted: string;
let restricted: string;
let master: string;
let masterCertificate: string;
const pem = () => makeCertificates().selfSigned("restricted-probe").certPem;

beforeAll(async () => {
	t = createTestApp({ defaultPlan: "enterprise" });
	owner = await register(t, "Restricted Inc");
	a2 = (await t.call("POST", "/v1/tenants", { token: owner.token, body: { name: "A2" } })).json.data.id;
	unrestricted = await createKey(t, owner.token, { scope: "account", environment: "live", permissions: ["*"] }); // key_000001
	await createKey(t, owner.token, { scope: "tenant", tenant_id: owner.tenantId, permissions: ["*"] }); // key_000002
	await createKey(t, owner.token, { scope: "tenant", tenant_id: a2, environment: "live", permissions: ["*"] }); // key_000003
	restricted = await createKey(t, owner.token, {
		scope: "account",
		environment: "live",
		permissions: ["*"],
		allowed_tenant_ids: [a2],
	}); // key_000004
	const hub = { name: "Hub", as2_id: "HUB", url: "https://hub.example/as2" };
	master = (await t.call("POST", `/v1/accounts/${owner.accountId}/partners`, { token: unrestricted, body: hub })).json
		.data.id;
	masterCertificate = (
		await t.call("POST", `/v1/partners/${master}/certificates`, {
			token: unrestricted,
			body: { name: "hub", usage: "both", certificate: pem() },
		})
	).json.data.id;
});
afterAll(() => t.close());

function expectForbidden(response: TestResponse, label: string) {
	expect(response.status, `${label}: ${response.text}`).toBe(403);
	expect(response.json.error, label).toMatchObject({ type: "authorization_error", code: "insufficient_scope" });
}

const keyIds = async (token: string) =>
	(await t.call("GET", "/v1/api-keys", { token })).json.data.map((k: { id: string }) => k.id).sort();

describe("an account key restricted to tenant A2", () => {
	it("lists only the keys of A2, not the owner's nor tenant A1's", async () => {
		expect(await keyIds(restricted)).toEqual(["key_000003"]);
	});

	it("cannot revoke the owner's unrestricted key nor A1's key: 404, as for a missing key", async () => {
		for (const keyId of ["key_000001", "key_000002"]) {
			const response = await t.call("DELETE", `/v1/api-keys/${keyId}`, { token: restricted });
			expect(response.status, response.text).toBe(404);
			expect(response.json.error).toMatchObject({ type: "resource_error", code: "NOT_FOUND" });
		}
		expect(await keyIds(owner.token)).toEqual(["key_000001", "key_000002", "key_000003", "key_000004"]);
		expect((await t.call("GET", "/v1/tenants", { token: unrestricted })).status).toBe(200);
	});

	it("cannot change the account: neither its name nor its plan", async () => {
		for (const body of [{ plan: "free" }, { name: "Taken over" }]) {
			expectForbidden(await t.call("PATCH", "/v1/account", { token: restricted, body }), JSON.stringify(body));
		}
		const account = await t.call("GET", "/v1/account", { token: restricted });
		expect(account.json.data).toMatchObject({ name: "Restricted Inc", plan: "enterprise" });
	});

	it("reads the master partners every tenant inherits, but cannot create, change or delete them", async () => {
		const base = `/v1/accounts/${owner.accountId}/partners`;
		expect((await t.call("GET", base, { token: restricted })).json.data.map((p: { id: string }) => p.id)).toEqual([
			master,
		]);
		expect((await t.call("GET", `${base}/${master}`, { token: restricted })).status).toBe(200);
		const hub = { name: "Rogue hub", as2_id: "ROGUE", url: "https://rogue.example/as2" };
		expectForbidden(await t.call("POST", base, { token: restricted, body: hub }), "create");
		expectForbidden(
			await t.call("PATCH", `${base}/${master}`, { token: restricted, body: { url: "https://rogue.example/as2" } }),
			"update",
		);
		expectForbidden(await t.call("DELETE", `${base}/${master}`, { token: restricted }), "delete");
		const after = await t.call("GET", `${base}/${master}`, { token: unrestricted });
		expect(after.json.data).toMatchObject({ url: "https://hub.example/as2", active: true });
		expect((await t.call("GET", base, { token: unrestricted })).json.pagination.total).toBe(1);
	});

	it("cannot change a master partner's certificates, which every tenant uses", async () => {
		const upload = { name: "rogue", usage: "both", certificate: pem() };
		expectForbidden(
			await t.call("POST", `/v1/partners/${master}/certificates`, { token: restricted, body: upload }),
			"upload to the partner",
		);
		expectForbidden(
			await t.call("POST", "/v1/certificates", {
				token: restricted,
				body: { ...upload, type: "partner", partner_id: master },
			}),
			"upload",
		);
		for (const [method, path] of [
			["POST", `/v1/certificates/${masterCertificate}/deactivate`],
			["DELETE", `/v1/certificates/${masterCertificate}`],
		] as const) {
			expectForbidden(await t.call(method, path, { token: restricted }), `${method} ${path}`);
		}
		const certificate = await t.call("GET", `/v1/certificates/${masterCertificate}`, { token: restricted });
		expect(certificate.json.data).toMatchObject({ id: masterCertificate, active: true });
	});

	it("cannot create tenants, and sees only A2", async () => {
		expectForbidden(await t.call("POST", "/v1/tenants", { token: restricted, body: { name: "A3" } }), "create");
		const tenants = await t.call("GET", "/v1/tenants", { token: restricted });
		expect(tenants.json.data.map((x: { id: string }) => x.id)).toEqual([a2]);
	});

	it("still works in A2: partners, overrides of an inherited partner, keys of A2", async () => {
		const partner = { name: "A2 partner", as2_id: "A2-P", url: "https://a2.example/as2" };
		expect((await t.call("POST", "/v1/partners", { token: restricted, body: partner })).status).toBe(201);
		const override = await t.call("PATCH", `/v1/partners/${master}`, {
			token: restricted,
			body: { name: "Hub in A2" },
		});
		expect(override.status, override.text).toBe(200);
		const inA1 = await t.call("GET", `/v1/partners/${master}`, { token: unrestricted });
		expect(inA1.json.data.name).toBe("Hub");
		const key = await t.call("POST", "/v1/api-keys", {
			token: restricted,
			body: { name: "A2 reader", scope: "tenant", tenant_id: a2, permissions: ["partners:read"] },
		});
		expect(key.status, key.text).toBe(201);
	});
});

describe("an owner's session and an unrestricted account key", () => {
	it("change the account and master partners", async () => {
		for (const token of [owner.token, unrestricted]) {
			expect((await t.call("PATCH", "/v1/account", { token, body: { name: "Restricted Inc" } })).status).toBe(200);
			const patched = await t.call("PATCH", `/v1/accounts/${owner.accountId}/partners/${master}`, {
				token,
				body: { name: "Hub" },
			});
			expect(patched.status, patched.text).toBe(200);
		}
	});
});
