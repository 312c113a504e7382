import { createHash } from "node:crypto";
import { parseCertificates } from "@as2kit/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeCertificates } from "../helpers/certs.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * Smaller points of the partners and certificates contract (interface spec, Partners;
 * decisions.md, Identity certificate of a tenant): the `type=all` list filter, the
 * certificate.uploaded event of an API upload, `certificate_pem` on every certificate object,
 * and the generated identity of a tenant made with POST /v1/tenants.
 */
let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let key: string;
let accountKey: string;
const certs = makeCertificates();
const partnerCert = certs.selfSigned("details-partner");
const ourIdentity = certs.selfSigned("details-identity");
const chain = certs.chain();

beforeEach(async () => {
	t = createTestApp({ defaultPlan: "professional" });
	owner = await register(t, "Details Co");
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	accountKey = await createKey(t, owner.token, { scope: "account", environment: "live", permissions: ["*"] });
});
afterEach(() => t.close());

const derOf = (pem: string) => Buffer.from(parseCertificates(pem)[0]!);
/** The API's fingerprint format: SHA256: and colon-separated upper-case hex of the DER. */
const fingerprintOf = (pem: string) =>
	`SHA256:${createHash("sha256").update(derOf(pem)).digest("hex").toUpperCase().match(/../g)!.join(":")}`;

describe("GET /v1/partners?type=", () => {
	it("all lists tenant and inherited partners together, as no filter does; tenant and inherited split them", async () => {
		for (const as2Id of ["OWN-A", "OWN-B"]) {
			const own = await t.call("POST", "/v1/partners", {
				token: key,
				body: { name: as2Id, as2_id: as2Id, url: "https://own.example/as2" },
			});
			expect(own.status).toBe(201);
		}
		const master = await t.call("POST", `/v1/accounts/${owner.accountId}/partners`, {
			token: accountKey,
			body: { name: "Hub", as2_id: "HUB", url: "https://hub.example/as2" },
		});
		expect(master.status).toBe(201);
		await t.call("POST", "/v1/partners/prt_000002/deactivate", { token: key });
		const list = async (query: string) => {
			const response = await t.call("GET", `/v1/partners${query}`, { token: key });
			expect(response.status, query).toBe(200);
			return response.json.data.map((p: { id: string; type: string }) => [p.id, p.type]);
		};
		const everything = [
			["prt_000001", "tenant"],
			["prt_000002", "tenant"],
			["prt_master_000001", "inherited"],
		];
		expect(await list("")).toEqual(everything);
		expect(await list("?type=all")).toEqual(everything);
		expect((await t.call("GET", "/v1/partners?type=all", { token: key })).json.pagination).toMatchObject({ total: 3 });
		expect(await list("?type=tenant")).toEqual(everything.slice(0, 2));
		expect(await list("?type=inherited")).toEqual(everything.slice(2));
		expect(await list("?type=all&active=true")).toEqual([everything[0], everything[2]]);
		expect(await list("?type=all&search=hub")).toEqual([everything[2]]);
	});
});

describe("certificate.uploaded", () => {
	it("is emitted for a partner certificate and an identity uploaded through the API, with the certificate object", async () => {
		const partner = await t.call("POST", "/v1/partners", {
			token: key,
			body: { name: "P", as2_id: "P", url: "https://p.example/as2" },
		});
		const before = await t.store.events.list({ accountId: owner.accountId, kind: "certificate.uploaded" });
		const uploads = [
			await t.call("POST", `/v1/partners/${partner.json.data.id}/certificates`, {
				token: key,
				body: { name: "partner cert", usage: "both", certificate: partnerCert.certPem },
			}),
			await t.call("POST", "/v1/certificates", {
				token: key,
				body: {
					name: "our identity",
					type: "identity",
					usage: "both",
					certificate: ourIdentity.certPem,
					private_key: ourIdentity.keyPem,
				},
			}),
		];
		for (const upload of uploads) expect(upload.status, upload.text).toBe(201);
		const events = (await t.store.events.list({ accountId: owner.accountId, kind: "certificate.uploaded" })).filter(
			(e) => !before.some((b) => b.id === e.id),
		);
		expect(events).toHaveLength(2);
		for (const upload of uploads) {
			const event = events.find((e) => e.data.id === upload.json.data.id);
			expect(event, upload.json.data.name).toMatchObject({
				tenantId: owner.tenantId,
				environment: "live",
				// interface spec, Event kinds: certificate.uploaded carries the certificate object.
				data: upload.json.data,
			});
			expect(JSON.stringify(event!.data)).not.toMatch(/PRIVATE KEY/);
		}
		expect(events.find((e) => e.data.id === uploads[1]!.json.data.id)!.data).toMatchObject({
			type: "identity",
			has_private_key: true,
			certificate_pem: expect.stringContaining("BEGIN CERTIFICATE"),
		});
	});
});

describe("certificate_pem on every certificate object", () => {
	it("list, GET and partner detail carry the public certificate of partner certificates and identities", async () => {
		const partner = await t.call("POST", "/v1/partners", {
			token: key,
			body: { name: "P", as2_id: "P", url: "https://p.example/as2" },
		});
		const partnerId = partner.json.data.id as string;
		const uploadedPartner = await t.call("POST", `/v1/partners/${partnerId}/certificates`, {
			token: key,
			body: { name: "partner cert", usage: "encryption", certificate: partnerCert.certPem },
		});
		const uploadedIdentity = await t.call("POST", "/v1/certificates", {
			token: key,
			body: {
				name: "our identity",
				type: "identity",
				usage: "both",
				certificate: ourIdentity.certPem,
				private_key: ourIdentity.keyPem,
			},
		});
		// A CA + leaf bundle: certificate_pem is the leaf itself, the CA goes to chain_pem.
		const uploadedBundle = await t.call("POST", `/v1/partners/${partnerId}/certificates`, {
			token: key,
			body: { name: "partner bundle", usage: "signing", certificate: chain.bundlePem },
		});
		expect(uploadedBundle.json.data.chain_pem).toContain("BEGIN CERTIFICATE");
		const list = await t.call("GET", "/v1/certificates", { token: key });
		expect(list.json.data).toHaveLength(4);
		const expected: Record<string, string> = {
			[uploadedPartner.json.data.id]: partnerCert.certPem,
			[uploadedIdentity.json.data.id]: ourIdentity.certPem,
			[uploadedBundle.json.data.id]: chain.leafPem,
		};
		for (const item of list.json.data as { id: string; type: string; origin: string; certificate_pem: string }[]) {
			expect(item.certificate_pem, item.id).toMatch(
				/^-----BEGIN CERTIFICATE-----\r?\n[\s\S]+-----END CERTIFICATE-----/,
			);
			const one = await t.call("GET", `/v1/certificates/${item.id}`, { token: key });
			expect(one.status).toBe(200);
			expect(one.json.data.certificate_pem).toBe(item.certificate_pem);
			// The PEM is the certificate described: its fingerprint is the record's.
			expect(fingerprintOf(item.certificate_pem)).toBe(one.json.data.fingerprint);
			if (expected[item.id]) {
				expect(parseCertificates(item.certificate_pem), item.id).toHaveLength(1);
				expect(derOf(item.certificate_pem).equals(derOf(expected[item.id]!)), item.id).toBe(true);
			}
		}
		// Identity objects, generated and uploaded: the certificate, never the key.
		const identities = await t.call("GET", "/v1/certificates?type=identity", { token: key });
		expect(identities.json.data.map((c: { origin: string }) => c.origin).sort()).toEqual(["generated", "uploaded"]);
		for (const identity of identities.json.data) {
			expect(identity).toMatchObject({
				has_private_key: true,
				certificate_pem: expect.stringContaining("CERTIFICATE"),
			});
			expect(identity).not.toHaveProperty("private_key");
			expect(identities.text).not.toMatch(/PRIVATE KEY/);
		}
		const detail = await t.call("GET", `/v1/partners/${partnerId}`, { token: key });
		const pemOf = (id: string) =>
			(list.json.data as { id: string; certificate_pem: string }[]).find((c) => c.id === id)!.certificate_pem;
		const partnerIds = [uploadedPartner.json.data.id, uploadedBundle.json.data.id] as string[];
		expect(
			(detail.json.data.certificates as { id: string; certificate_pem: string }[])
				.map((c) => [c.id, c.certificate_pem])
				.sort(),
		).toEqual(partnerIds.map((id) => [id, pemOf(id)]).sort());
		const byPartner = await t.call("GET", `/v1/partners/${partnerId}/certificates`, { token: key });
		expect(
			(byPartner.json.data as { id: string; certificate_pem: string }[]).map((c) => [c.id, c.certificate_pem]).sort(),
		).toEqual(partnerIds.map((id) => [id, pemOf(id)]).sort());
	});
});

describe("a tenant made with POST /v1/tenants", () => {
	it("gets its own generated RSA-2048 identity, usable at once, distinct from and invisible to the first tenant", async () => {
		const created = await t.call("POST", "/v1/tenants", { token: accountKey, body: { name: "Details Europe" } });
		expect(created.status).toBe(201);
		const tenantId = created.json.data.id as string;
		const inNew = { token: accountKey, headers: { "x-tenant-id": tenantId } };
		const identities = await t.call("GET", "/v1/certificates?type=identity", inNew);
		expect(identities.status).toBe(200);
		expect(identities.json.data).toEqual([
			expect.objectContaining({
				type: "identity",
				usage: "both",
				origin: "generated",
				key_algorithm: "rsa",
				key_bits: 2048,
				active: true,
				has_private_key: true,
				partner_id: null,
				subject: expect.stringContaining("CN=Details Europe"),
				certificate_pem: expect.stringContaining("BEGIN CERTIFICATE"),
			}),
		]);
		const identity = identities.json.data[0];
		expect(fingerprintOf(identity.certificate_pem)).toBe(identity.fingerprint);
		// Valid now, for signing and decryption at once (decisions.md: "so it can exchange messages at once").
		expect(new Date(identity.not_before).getTime()).toBeLessThanOrEqual(t.clock.now().getTime());
		expect(new Date(identity.expires_at).getTime()).toBeGreaterThan(t.clock.now().getTime());
		const stored = await t.store.certificates.get(owner.accountId, identity.id);
		expect(stored).toMatchObject({ tenantId, privateKeySealed: expect.stringMatching(/^v1\./) });
		// Its own: not the first tenant's identity, and not visible from the first tenant.
		const first = (await t.call("GET", "/v1/certificates?type=identity", { token: key })).json.data;
		expect(first).toHaveLength(1);
		expect(first[0].id).not.toBe(identity.id);
		expect(first[0].fingerprint).not.toBe(identity.fingerprint);
		expect((await t.call("GET", `/v1/certificates/${identity.id}`, { token: key })).status).toBe(404);
		expect((await t.call("GET", `/v1/certificates/${identity.id}`, inNew)).json.data.id).toBe(identity.id);
	});
});
