import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeCertificates } from "../helpers/certs.ts";
import { createKey, createTestApp, register, type TestApp, type TestResponse } from "../helpers/test-app.ts";

/** Every response of this file, scanned at the end for private key material. */
const seen: TestResponse[] = [];
let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let key: string;
const certs = makeCertificates();
const rsa2048 = certs.selfSigned("partner-2048");
const rsa1024 = certs.selfSigned("partner-1024", { bits: 1024 });
const rsa4096 = certs.selfSigned("partner-4096", { bits: 4096 });
const rsa512 = certs.selfSigned("partner-512", { bits: 512 });
const ec = certs.selfSigned("partner-ec", { ec: true });
const expired = certs.selfSigned("partner-expired", {
	validity: { from: new Date("2001-01-01Z"), to: new Date("2002-01-01Z") },
});
const chain = certs.chain();
const p12 = certs.pkcs12("p12-secret");
const identity = certs.selfSigned("our-identity");

async function call(method: string, path: string, options: Parameters<TestApp["call"]>[2] = {}) {
	const response = await t.call(method, path, { token: key, ...options });
	seen.push(response);
	return response;
}

beforeAll(async () => {
	t = createTestApp({ defaultPlan: "professional" });
});
beforeEach(async () => {
	owner = await register(t);
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	await call("POST", "/v1/partners", {
		body: { name: "Partner", as2_id: `P-${owner.tenantId}`, url: "https://p.example/as2" },
	});
});
afterAll(() => t.close());

const partnerId = async () => (await call("GET", "/v1/partners")).json.data[0].id as string;
const uploadPartner = async (certificate: string, usage = "both") =>
	call("POST", `/v1/partners/${await partnerId()}/certificates`, {
		body: { name: "partner cert", usage, certificate },
	});

describe("partner certificates from real OpenSSL files", () => {
	it.each([
		["RSA 1024", rsa1024.certPem, 1024],
		["RSA 2048", rsa2048.certPem, 2048],
		["RSA 4096", rsa4096.certPem, 4096],
	])("reads %s: subject, issuer, serial, fingerprint, validity, certificate_pem", async (_, pem, bits) => {
		const response = await uploadPartner(pem);
		expect(response.status).toBe(201);
		expect(response.json.data).toMatchObject({
			type: "partner",
			usage: "both",
			active: true,
			key_algorithm: "rsa",
			key_bits: bits,
			subject: expect.stringMatching(/^CN=partner-/),
			fingerprint: expect.stringMatching(/^SHA256:([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
			serial_number: expect.stringMatching(/^[0-9A-F]+$/),
			certificate_pem: expect.stringContaining("-----BEGIN CERTIFICATE-----"),
			has_private_key: false,
		});
	});

	it("reads a DER file through multipart, picking the leaf of a chain and keeping the chain", async () => {
		const form = new FormData();
		form.append("name", "partner der");
		form.append("usage", "encryption");
		form.append("certificate", new File([new Uint8Array(certs.der(rsa2048.certPath))], "partner.cer"));
		const response = await t.app.request(`/v1/partners/${await partnerId()}/certificates`, {
			method: "POST",
			body: form,
			headers: { authorization: `Bearer ${key}` },
		});
		expect(response.status).toBe(201);
		const bundle = await uploadPartner(chain.bundlePem);
		expect(bundle.json.data).toMatchObject({ subject: "CN=chain-leaf", issuer: "CN=chain-ca" });
		expect(bundle.json.data.chain_pem).toContain("BEGIN CERTIFICATE");
		const p7b = await call("POST", "/v1/certificates", {
			body: {
				name: "p7b",
				type: "partner",
				usage: "signing",
				partner_id: await partnerId(),
				certificate: chain.p7bDer.toString("base64"),
			},
		});
		expect(p7b.json.data.subject).toBe("CN=chain-leaf");
	});

	it("accepts an expired certificate but says when it expired", async () => {
		const response = await uploadPartner(expired.certPem);
		expect(response.status).toBe(201);
		expect(response.json.data.expires_at).toBe("2002-01-01T00:00:00.000000Z");
	});

	it.each([
		["garbage", "this is not a certificate", "INVALID_CERTIFICATE"],
		["a truncated PEM", rsa2048.certPem.slice(0, 200), "INVALID_CERTIFICATE"],
		["a 512-bit RSA key", rsa512.certPem, "INVALID_CERTIFICATE"],
		["an EC key", ec.certPem, "UNSUPPORTED_ALGORITHM"],
	])("refuses %s with 422 %s on the certificate field", async (_, pem, code) => {
		const response = await uploadPartner(pem);
		expect(response.status).toBe(422);
		expect(response.json.error.code).toBe(code);
		expect(response.json.errors).toHaveProperty("certificate");
	});
});

describe("identity certificates", () => {
	it("every tenant starts with a generated RSA-2048 identity whose key is held, never shown", async () => {
		const list = await call("GET", "/v1/certificates?type=identity");
		expect(list.json.data).toEqual([
			expect.objectContaining({
				type: "identity",
				origin: "generated",
				key_bits: 2048,
				has_private_key: true,
				active: true,
			}),
		]);
		const stored = await t.store.certificates.get(owner.accountId, list.json.data[0].id);
		expect(stored?.privateKeySealed).toMatch(/^v1\./);
	});

	it("uploads an identity from a PEM key and certificate, and from an `openssl pkcs12 -export` file", async () => {
		const fromPem = await call("POST", "/v1/certificates", {
			body: {
				name: "ours",
				type: "identity",
				usage: "both",
				certificate: identity.certPem,
				private_key: identity.keyPem,
			},
		});
		expect(fromPem.status).toBe(201);
		expect(fromPem.json.data).toMatchObject({
			type: "identity",
			has_private_key: true,
			origin: "uploaded",
			subject: "CN=our-identity",
		});
		const form = new FormData();
		form.append("name", "from p12");
		form.append("type", "identity");
		form.append("usage", "signing");
		form.append("password", "p12-secret");
		form.append("pkcs12", new File([new Uint8Array(p12.p12)], "identity.p12"));
		const fromP12 = await t.app.request("/v1/certificates", {
			method: "POST",
			body: form,
			headers: { authorization: `Bearer ${key}` },
		});
		expect(fromP12.status).toBe(201);
		expect(((await fromP12.json()) as { data: { subject: string } }).data.subject).toBe("CN=p12-identity");
		const json = await call("POST", "/v1/certificates", {
			body: {
				name: "p12 json",
				type: "identity",
				usage: "both",
				pkcs12: p12.p12.toString("base64"),
				password: "p12-secret",
			},
		});
		expect(json.status).toBe(201);
	});

	it.each([
		[
			"a key that does not match the certificate",
			() => ({ certificate: identity.certPem, private_key: rsa2048.keyPem }),
			"private_key",
		],
		["no key at all", () => ({ certificate: identity.certPem }), "private_key"],
		["a PKCS#12 with the wrong password", () => ({ pkcs12: p12.p12.toString("base64"), password: "wrong" }), "pkcs12"],
	])("refuses %s with 422", async (_, fields, field) => {
		const response = await call("POST", "/v1/certificates", {
			body: { name: "x", type: "identity", usage: "both", ...fields() },
		});
		expect(response.status).toBe(422);
		expect(response.json.errors).toHaveProperty(field);
	});
});

describe("one 422 names every field at fault (issue #16, defect 9)", () => {
	it("an empty name with an unreadable certificate, in JSON and in a multipart upload, on both upload routes", async () => {
		const partner = await partnerId();
		const json = await call("POST", "/v1/certificates", {
			body: { name: "", type: "partner", usage: "both", partner_id: partner, certificate: "not a certificate" },
		});
		expect(json.status, json.text).toBe(422);
		expect(Object.keys(json.json.errors).sort()).toEqual(["certificate", "name"]);
		expect(json.json.error.code).toBe("INVALID_CERTIFICATE");
		const form = new FormData();
		form.append("name", "");
		form.append("usage", "sometimes");
		form.append("certificate", new File([new Uint8Array([0x30, 0x82, 0x01])], "broken.cer"));
		const multipart = await t.app.request(`/v1/partners/${partner}/certificates`, {
			method: "POST",
			body: form,
			headers: { authorization: `Bearer ${key}` },
		});
		const answer = (await multipart.json()) as { errors: Record<string, string[]> };
		expect([multipart.status, Object.keys(answer.errors).sort()]).toEqual([422, ["certificate", "name", "usage"]]);
	});

	it("the service's checks together: no partner_id and an unreadable certificate; an identity without its key", async () => {
		const partner = await call("POST", "/v1/certificates", {
			body: { name: "x", type: "partner", usage: "both", certificate: "garbage" },
		});
		expect(Object.keys(partner.json.errors).sort()).toEqual(["certificate", "partner_id"]);
		const identityWithoutKey = await call("POST", "/v1/certificates", {
			body: { name: "", type: "identity", usage: "both", certificate: identity.certPem },
		});
		expect(Object.keys(identityWithoutKey.json.errors).sort()).toEqual(["name", "private_key"]);
		// With the type refused, what the material is cannot be judged: only the schema speaks.
		const unknownType = await call("POST", "/v1/certificates", {
			body: { name: "", type: "mystery", usage: "both", certificate: "garbage" },
		});
		expect(Object.keys(unknownType.json.errors).sort()).toEqual(["name", "type"]);
		expect((await call("GET", "/v1/certificates?type=partner")).json.data).toEqual([]);
	});

	it("refuses a master partner's certificate from a key without the whole account with 403 before validating", async () => {
		const master = await t.call("POST", `/v1/accounts/${owner.accountId}/partners`, {
			token: owner.token,
			body: { name: "Master", as2_id: `M-${owner.tenantId}`, url: "https://m.example/as2" },
		});
		expect(master.status, master.text).toBe(201);
		const restricted = await createKey(t, owner.token, {
			scope: "account",
			permissions: ["*"],
			allowed_tenant_ids: [owner.tenantId],
		});
		for (const [path, body] of [
			[`/v1/partners/${master.json.data.id}/certificates`, { name: "", certificate: "garbage" }],
			["/v1/certificates", { name: "", type: "partner", partner_id: master.json.data.id, certificate: "garbage" }],
		] as const) {
			const response = await t.call("POST", path, { token: restricted, body });
			expect([response.status, response.json.error.code], path).toEqual([403, "insufficient_scope"]);
		}
	});
});

describe("certificate lifecycle", () => {
	it("deactivates, activates (certificate.activated) and deletes; lists filter; events carry no key", async () => {
		const uploaded = (await uploadPartner(rsa2048.certPem)).json.data;
		const off = await call("POST", `/v1/certificates/${uploaded.id}/deactivate`);
		expect(off.json.data.active).toBe(false);
		expect((await call("GET", "/v1/certificates?active=false")).json.data.map((c: { id: string }) => c.id)).toEqual([
			uploaded.id,
		]);
		t.clock.advance(60);
		const on = await call("POST", `/v1/certificates/${uploaded.id}/activate`);
		expect(on.json.data).toMatchObject({ active: true, activated_at: expect.any(String) });
		const kinds = (await t.store.events.list({ accountId: owner.accountId })).map((e) => e.kind);
		expect(kinds).toContain("certificate.activated");
		expect((await call("GET", `/v1/certificates?partner_id=${await partnerId()}`)).json.pagination.total).toBe(1);
		const deleted = await call("DELETE", `/v1/certificates/${uploaded.id}`);
		expect(deleted.json.data).toEqual({ id: uploaded.id, deleted_at: expect.any(String) });
		expect((await call("GET", `/v1/certificates/${uploaded.id}`)).status).toBe(404);
		for (const event of await t.store.events.list({ accountId: owner.accountId }))
			expect(JSON.stringify(event.data)).not.toContain("PRIVATE KEY");
	});

	it("stops at the plan's certificate limit (402 CERTIFICATE_LIMIT_EXCEEDED); generated identities do not count", async () => {
		const small = createTestApp();
		try {
			const o = await register(small);
			await small.call("POST", "/v1/partners", {
				token: o.token,
				body: { name: "P", as2_id: "P", url: "https://p.example" },
			});
			for (let i = 0; i < 10; i++) {
				const ok = await small.call("POST", "/v1/partners/prt_000001/certificates", {
					token: o.token,
					body: { name: `c${i}`, usage: "both", certificate: rsa2048.certPem },
				});
				expect(ok.status).toBe(201);
			}
			const over = await small.call("POST", "/v1/partners/prt_000001/certificates", {
				token: o.token,
				body: { name: "c11", usage: "both", certificate: rsa2048.certPem },
			});
			expect(over.status).toBe(402);
			expect(over.json.error).toMatchObject({
				code: "CERTIFICATE_LIMIT_EXCEEDED",
				details: { current_certificates: 10, plan_limit: 10, plan: "free" },
			});
		} finally {
			await small.close();
		}
	});
});

describe("private keys", () => {
	it("appear in no response of this file", () => {
		expect(seen.length).toBeGreaterThan(20);
		const keyBodies = [identity.keyPem, p12.keyPem, rsa2048.keyPem].map((pem) => pem.split("\n")[1]!);
		for (const response of seen) {
			expect(response.text).not.toMatch(/PRIVATE KEY/);
			for (const body of keyBodies) expect(response.text).not.toContain(body);
		}
	});
});
