import { collect, importPrivateKey, pack, parseCertificates, parseMdn } from "@as2kit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../helpers/certs.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * Certificate rollover at the server (decisions.md, Identity certificate of a tenant; the
 * certificate service: "two active certificates of one usage may overlap (rollover): inbound
 * processing tries each"). The tenant holds two active identities — the one generated at its
 * creation and a PKCS#12 uploaded later — and the partner two active signing certificates.
 * A partner that has not switched yet encrypts to the old identity, one that has to the new:
 * both messages are received at /as2/receive, whichever of its keys the partner signed with.
 * Messages are built by the as2kit core `pack()`, as an independent partner would build them.
 */
let t: TestApp;
let key: string;
let tenantId: string;
let tenantAs2Id: string;
let partnerId: string;
const certs = makeCertificates();
const partnerOld = certs.selfSigned("rollover-partner-old");
const partnerNew = certs.selfSigned("rollover-partner-new");
const stranger = certs.selfSigned("rollover-stranger");
const ourNew = certs.pkcs12("rollover-p12-pw");
let identities: { old: { id: string; pem: string }; new: { id: string; pem: string } };

const der = (pem: string) => parseCertificates(pem)[0]!;
const signer = (cert: { certPem: string; keyPem: string }) => ({
	privateKey: importPrivateKey(cert.keyPem),
	certificate: der(cert.certPem),
	digest: "sha256" as const,
});

beforeAll(async () => {
	t = createTestApp({ defaultPlan: "professional" });
	const owner = await register(t, "Rollover Co");
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	tenantId = owner.tenantId;
	tenantAs2Id = (await t.call("GET", `/v1/tenants/${owner.tenantId}`, { token: owner.token })).json.data.as2_id;
	// sign and encrypt on: inbound messages must be both (decisions.md, Clarifications: inbound security).
	const partner = await t.call("POST", "/v1/partners", {
		token: key,
		body: { name: "Rolling Partner", as2_id: "ROLLING", url: "https://rolling.example/as2", sign: true, encrypt: true },
	});
	expect(partner.status).toBe(201);
	partnerId = partner.json.data.id;
	for (const [name, cert] of [
		["old signing", partnerOld],
		["new signing", partnerNew],
	] as const) {
		const uploaded = await t.call("POST", `/v1/partners/${partnerId}/certificates`, {
			token: key,
			body: { name, usage: "signing", certificate: cert.certPem },
		});
		expect(uploaded.status).toBe(201);
	}
	const generated = (await t.call("GET", "/v1/certificates?type=identity", { token: key })).json.data;
	expect(generated).toHaveLength(1);
	t.clock.advance(60);
	const uploaded = await t.call("POST", "/v1/certificates", {
		token: key,
		body: {
			name: "next identity",
			type: "identity",
			usage: "both",
			pkcs12: ourNew.p12.toString("base64"),
			password: "rollover-p12-pw",
		},
	});
	expect(uploaded.status).toBe(201);
	identities = {
		old: { id: generated[0].id, pem: generated[0].certificate_pem },
		new: { id: uploaded.json.data.id, pem: uploaded.json.data.certificate_pem },
	};
	const active = (await t.call("GET", "/v1/certificates?type=identity&active=true", { token: key })).json.data;
	expect(active.map((c: { id: string }) => c.id).sort()).toEqual([identities.old.id, identities.new.id].sort());
});
afterAll(() => t.close());

let counter = 0;

/** An AS2 message from the partner, signed by `signWith`, encrypted to `encryptTo`, asking for a signed sync MDN. */
async function sendInbound(encryptTo: string, signWith: { certPem: string; keyPem: string }) {
	const payload = `ISA*00*ROLLOVER*${++counter}~\r\nST*850*000${counter}~\r\n`;
	const messageId = `rollover-${counter}-${Date.now()}@rolling.example`;
	const packed = await pack({
		payload: new TextEncoder().encode(payload),
		contentType: "application/edi-x12",
		from: "ROLLING",
		to: tenantAs2Id,
		messageId,
		subject: `rollover ${counter}`,
		sign: signer(signWith),
		encrypt: { certificates: [der(encryptTo)], algorithm: "aes256" },
		mdn: { mode: "sync", signed: ["sha256"] },
	});
	const body = await collect(packed.body.open());
	const response = await t.app.request("/as2/receive", {
		method: "POST",
		headers: [...packed.headers],
		body: body as Uint8Array<ArrayBuffer>,
	});
	expect(response.status).toBe(200);
	const mdn = await parseMdn({
		headers: [...response.headers],
		body: new Uint8Array(await response.arrayBuffer()),
		// Our MDN is signed by one of our active identities (the one with the latest notBefore).
		partnerCertificates: [der(identities.new.pem), der(identities.old.pem)],
		at: t.clock.now(),
	});
	const stored = await t.store.messages.findByMessageId(tenantId, messageId, {
		direction: "inbound",
	});
	return { payload, messageId, mdn, stored };
}

async function expectReceived(result: Awaited<ReturnType<typeof sendInbound>>) {
	expect(result.mdn.disposition.raw).toMatch(/processed$/);
	expect(result.mdn.positive).toBe(true);
	expect(result.mdn.signatureError?.message, "MDN signature").toBeUndefined();
	expect(result.mdn.signatureValid).toBe(true);
	expect(result.stored).toMatchObject({ status: "received", encrypted: true, signed: true, partnerId });
	const listed = await t.call("GET", `/v1/messages/${result.stored!.id}`, { token: key });
	expect(listed.json.data).toMatchObject({ status: "received", direction: "inbound", encrypted: true, signed: true });
	const download = await t.app.request(`/v1/messages/${result.stored!.id}/payload`, {
		headers: { authorization: `Bearer ${key}` },
	});
	expect(download.status).toBe(200);
	expect(await download.text()).toBe(result.payload);
}

describe("two active identities: the partner may encrypt to either", () => {
	it("a message encrypted to the new (uploaded PKCS#12) identity is received and decrypted, payload intact", async () => {
		await expectReceived(await sendInbound(identities.new.pem, partnerNew));
	});

	it("a message encrypted to the old (generated) identity is received and decrypted, payload intact", async () => {
		await expectReceived(await sendInbound(identities.old.pem, partnerNew));
	});

	it("a message encrypted to a certificate that is none of ours is refused (decryption-failed), not stored", async () => {
		const result = await sendInbound(stranger.certPem, partnerNew);
		expect(result.mdn.positive).toBe(false);
		expect(result.mdn.disposition.raw).toMatch(/decryption-failed/);
		expect(result.stored).toBeNull();
	});

	it("once the old identity is deactivated, a message encrypted to it is refused; the new one still works", async () => {
		const off = await t.call("POST", `/v1/certificates/${identities.old.id}/deactivate`, { token: key });
		expect(off.json.data.active).toBe(false);
		try {
			const refused = await sendInbound(identities.old.pem, partnerNew);
			expect(refused.mdn.disposition.raw).toMatch(/decryption-failed/);
			expect(refused.stored).toBeNull();
			await expectReceived(await sendInbound(identities.new.pem, partnerNew));
		} finally {
			await t.call("POST", `/v1/certificates/${identities.old.id}/activate`, { token: key });
		}
	});
});

describe("two active partner signing certificates: a signature by either verifies", () => {
	it("a message signed with the partner's old key is received", async () => {
		await expectReceived(await sendInbound(identities.new.pem, partnerOld));
	});

	it("a message signed with the partner's new key is received", async () => {
		await expectReceived(await sendInbound(identities.old.pem, partnerNew));
	});

	it("a message signed with a key the partner never registered is refused (authentication-failed)", async () => {
		const result = await sendInbound(identities.new.pem, stranger);
		expect(result.mdn.positive).toBe(false);
		expect(result.mdn.disposition.raw).toMatch(/authentication-failed/);
		expect(result.stored).toBeNull();
	});

	it("once the old signing certificate is deactivated, its signature is refused; the new one still verifies", async () => {
		const list = (await t.call("GET", `/v1/certificates?partner_id=${partnerId}`, { token: key })).json.data;
		const old = list.find((c: { name: string }) => c.name === "old signing");
		expect((await t.call("POST", `/v1/certificates/${old.id}/deactivate`, { token: key })).json.data.active).toBe(
			false,
		);
		try {
			const refused = await sendInbound(identities.new.pem, partnerOld);
			expect(refused.mdn.disposition.raw).toMatch(/authentication-failed/);
			expect(refused.stored).toBeNull();
			await expectReceived(await sendInbound(identities.new.pem, partnerNew));
		} finally {
			await t.call("POST", `/v1/certificates/${old.id}/activate`, { token: key });
		}
	});
});
