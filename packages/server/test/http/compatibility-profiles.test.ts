import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * issue #17, "Compatibility profiles": GET /v1/compatibility-profiles, a partner's
 * `compatibility.profile` with its own switches over it, and the effective switches the
 * partner detail shows (and the outbound builder uses: see test/e2e/partner-wire-settings).
 */
let t: TestApp;
let key: string;
let tenantId: string;
beforeEach(async () => {
	t = createTestApp();
	const owner = await register(t, "Profileco");
	tenantId = owner.tenantId;
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["partners:write"],
	});
});
afterEach(() => t.close());

const STRICT = {
	signed_attributes: true,
	algorithm_protection: true,
	transfer_encoding: "binary",
	compress_order: "before-sign",
	key_encryption: "rsa",
	chunked: false,
};
const NAMES = [
	"default",
	"ibm-sterling",
	"mendelson",
	"openas2",
	"pyas2",
	"aws-transfer-family",
	"cleo",
	"axway",
	"seeburger",
];

async function createPartner(compatibility?: Record<string, unknown>) {
	const response = await t.call("POST", "/v1/partners", {
		token: key,
		body: {
			name: "Sterling Hub",
			as2_id: "STERLING",
			url: "https://as2.sterling.example/receive",
			...(compatibility ? { compatibility } : {}),
		},
	});
	return response;
}
const detail = async (id: string) => (await t.call("GET", `/v1/partners/${id}`, { token: key })).json.data;

describe("GET /v1/compatibility-profiles", () => {
	it("lists every named profile with all its switches and a cited why", async () => {
		const response = await t.call("GET", "/v1/compatibility-profiles", { token: key });
		expect(response.status, response.text).toBe(200);
		const profiles = response.json.data as { name: string; switches: object; why: string; description: string }[];
		expect(profiles.map((p) => p.name)).toEqual(NAMES);
		for (const profile of profiles) {
			expect(Object.keys(profile.switches).sort()).toEqual(Object.keys(STRICT).sort());
			expect(profile.description.length).toBeGreaterThan(0);
			// Each why names its public source: a research-note section or an upstream issue.
			expect(profile.why).toMatch(/§|#\d|RFC/);
		}
		expect(profiles.find((p) => p.name === "default")?.switches).toEqual(STRICT);
		// as2-anchors §C.5, §D.9: Sterling rejects CMS signed attributes and the RFC 6211 attribute.
		expect(profiles.find((p) => p.name === "ibm-sterling")?.switches).toEqual({
			...STRICT,
			signed_attributes: false,
			algorithm_protection: false,
		});
		// as2-anchors §C.4: Axway B2Bi could not find binary-encoded signatures (django-pyas2#5).
		expect(profiles.find((p) => p.name === "axway")?.switches).toEqual({ ...STRICT, transfer_encoding: "base64" });
	});

	it("answers 401 without a credential", async () => {
		const response = await t.call("GET", "/v1/compatibility-profiles");
		expect(response.status).toBe(401);
	});
});

describe("a partner's compatibility.profile", () => {
	it("a new partner has no profile and the strict switches", async () => {
		const created = await createPartner();
		expect(created.status, created.text).toBe(201);
		const partner = await detail(created.json.data.id);
		expect(partner.compatibility).toEqual({ profile: null });
		expect(partner.effective_compatibility).toEqual(STRICT);
	});

	it("the profile's switches are effective; the detail shows the choice as given", async () => {
		const created = await createPartner({ profile: "ibm-sterling" });
		expect(created.status, created.text).toBe(201);
		const id = created.json.data.id;
		const partner = await detail(id);
		expect(partner.compatibility).toEqual({ profile: "ibm-sterling" });
		expect(partner.effective_compatibility).toEqual({
			...STRICT,
			signed_attributes: false,
			algorithm_protection: false,
		});
		const config = await t.call("GET", `/v1/partners/${id}/configuration`, { token: key });
		expect(config.json.data.compatibility).toEqual(partner.effective_compatibility);
	});

	it("a switch set over the profile wins over it", async () => {
		const created = await createPartner({ profile: "ibm-sterling", algorithm_protection: true, chunked: true });
		expect(created.status, created.text).toBe(201);
		const partner = await detail(created.json.data.id);
		expect(partner.compatibility).toEqual({ profile: "ibm-sterling", algorithm_protection: true, chunked: true });
		expect(partner.effective_compatibility).toEqual({
			...STRICT,
			signed_attributes: false,
			algorithm_protection: true,
			chunked: true,
		});
	});

	it("an unknown profile is a 422 naming compatibility.profile, on create and on PATCH", async () => {
		const refused = await createPartner({ profile: "sterling-ibm" });
		expect(refused.status).toBe(422);
		expect(refused.json.error.code).toBe("VALIDATION_FAILED");
		expect(refused.json.errors["compatibility.profile"][0]).toContain("ibm-sterling");
		const created = await createPartner();
		const patched = await t.call("PATCH", `/v1/partners/${created.json.data.id}`, {
			token: key,
			body: { compatibility: { profile: "nope" } },
		});
		expect(patched.status).toBe(422);
		expect(Object.keys(patched.json.errors)).toEqual(["compatibility.profile"]);
		expect((await detail(created.json.data.id)).compatibility).toEqual({ profile: null });
	});

	it("a profile of the wrong type is a 422, not a 500", async () => {
		const refused = await createPartner({ profile: 42 });
		expect(refused.status).toBe(422);
	});

	it("PATCH changes the profile and keeps the switches set; null clears the profile", async () => {
		const created = await createPartner({ profile: "ibm-sterling", chunked: true });
		const id = created.json.data.id;
		const toAxway = await t.call("PATCH", `/v1/partners/${id}`, {
			token: key,
			body: { compatibility: { profile: "axway" } },
		});
		expect(toAxway.status, toAxway.text).toBe(200);
		let partner = await detail(id);
		expect(partner.compatibility).toEqual({ profile: "axway", chunked: true });
		expect(partner.effective_compatibility).toEqual({ ...STRICT, transfer_encoding: "base64", chunked: true });
		const cleared = await t.call("PATCH", `/v1/partners/${id}`, {
			token: key,
			body: { compatibility: { profile: null } },
		});
		expect(cleared.status, cleared.text).toBe(200);
		partner = await detail(id);
		expect(partner.compatibility).toEqual({ profile: null, chunked: true });
		expect(partner.effective_compatibility).toEqual({ ...STRICT, chunked: true });
	});

	it("a switch PATCHed to null is unset: the profile's value applies again", async () => {
		const id = (await createPartner({ profile: "ibm-sterling", signed_attributes: true })).json.data.id;
		expect((await detail(id)).effective_compatibility.signed_attributes).toBe(true);
		const unset = await t.call("PATCH", `/v1/partners/${id}`, {
			token: key,
			body: { compatibility: { signed_attributes: null } },
		});
		expect(unset.status, unset.text).toBe(200);
		const partner = await detail(id);
		expect(partner.compatibility).toEqual({ profile: "ibm-sterling" });
		expect(partner.effective_compatibility.signed_attributes).toBe(false);
	});

	it("a partner stored before profiles (every switch, no profile) keeps its switches and can take a profile", async () => {
		const id = (await createPartner()).json.data.id;
		const record = await t.store.partners.getForTenant(tenantId, id);
		// The record as as2kit 0.1 wrote it: all six switches at their values, one changed by the user.
		const legacy = {
			signedAttributes: true,
			algorithmProtection: true,
			transferEncoding: "binary" as const,
			compressOrder: "before-sign" as const,
			keyEncryption: "rsa" as const,
			chunked: true,
		};
		await t.store.partners.update(id, { settings: { ...record!.settings, compatibility: legacy } });
		let partner = await detail(id);
		expect(partner.compatibility).toEqual({ profile: null, chunked: true });
		expect(partner.effective_compatibility).toEqual({ ...STRICT, chunked: true });
		// The stored defaults must not override the profile chosen now.
		await t.call("PATCH", `/v1/partners/${id}`, { token: key, body: { compatibility: { profile: "ibm-sterling" } } });
		partner = await detail(id);
		expect(partner.compatibility).toEqual({ profile: "ibm-sterling", chunked: true });
		expect(partner.effective_compatibility).toEqual({
			...STRICT,
			signed_attributes: false,
			algorithm_protection: false,
			chunked: true,
		});
	});

	it("a master partner's profile is inherited; a tenant's override changes it for that tenant only", async () => {
		const owner = await register(t, "Holding");
		const accountKey = await createKey(t, owner.token, { scope: "account", environment: "live", permissions: ["*"] });
		const master = await t.call("POST", `/v1/accounts/${owner.accountId}/partners`, {
			token: accountKey,
			body: {
				name: "EDI Hub",
				as2_id: "EDI-HUB",
				url: "https://hub.example/as2",
				compatibility: { profile: "ibm-sterling", chunked: true },
			},
		});
		expect(master.status, master.text).toBe(201);
		const id = master.json.data.id;
		const read = async () => (await t.call("GET", `/v1/partners/${id}`, { token: accountKey })).json.data;
		expect((await read()).effective_compatibility).toEqual({
			...STRICT,
			signed_attributes: false,
			algorithm_protection: false,
			chunked: true,
		});
		const override = await t.call("PATCH", `/v1/partners/${id}`, {
			token: accountKey,
			body: { compatibility: { profile: "axway" } },
		});
		expect(override.status, override.text).toBe(200);
		expect(override.json.data.override_settings).toEqual({ compatibility: { profile: "axway" } });
		const inherited = await read();
		expect(inherited.compatibility).toEqual({ profile: "axway", chunked: true });
		expect(inherited.effective_compatibility).toEqual({ ...STRICT, transfer_encoding: "base64", chunked: true });
		const unknown = await t.call("PATCH", `/v1/partners/${id}`, {
			token: accountKey,
			body: { compatibility: { profile: "nope" } },
		});
		expect(unknown.status).toBe(422);
	});
});
