import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageRecord } from "@as2kit/core/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../helpers/certs.ts";
import { storeMessage } from "../helpers/messages.ts";
import {
	EDIFACT_INTERCHANGE,
	mendelsonRawEncrypted,
	openas2AsyncMdn,
	pyas2SignedMdn,
	type WireMessage,
} from "../helpers/partner-bytes.ts";
import { createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * Receipts and entities as partners send them (issue #17, defects 1, 4 and 5), in process:
 * each partner's bytes are built with the OpenSSL CLI and MIME assembled as the partner
 * writes it (helpers/partner-bytes.ts), and posted to /as2/receive or /as2/mdn.
 */
const certs = makeCertificates();
const partnerKey = certs.selfSigned("receipts-partner");
const OUR_MIC = "Q2hlY2tzdW0gb2YgdGhlIGVuY3J5cHRlZCBlbnRpdHk=, sha-256";

let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let tenantAs2Id: string;
beforeAll(async () => {
	t = createTestApp({ defaultPlan: "professional" });
	owner = await register(t);
	tenantAs2Id = (await t.call("GET", `/v1/tenants/${owner.tenantId}`, { token: owner.token })).json.data.as2_id;
});
afterAll(async () => {
	await t.close();
	rmSync(certs.dir, { recursive: true, force: true });
});

async function partner(as2Id: string, settings: Record<string, unknown> = {}): Promise<string> {
	const created = await t.call("POST", "/v1/partners", {
		token: owner.token,
		body: {
			name: as2Id,
			as2_id: as2Id,
			url: `https://${as2Id.toLowerCase()}.example/as2`,
			mdn_mode: "async",
			mdn: { signed: true },
			...settings,
		},
	});
	expect(created.status, created.text).toBe(201);
	const id = created.json.data.id;
	const cert = await t.call("POST", `/v1/partners/${id}/certificates`, {
		token: owner.token,
		body: { name: "partner", usage: "both", certificate: partnerKey.certPem },
	});
	expect(cert.status, cert.text).toBe(201);
	return id;
}

/** A message of ours awaiting its async MDN, as the send job leaves it. */
function awaiting(partnerId: string, as2Id: string, overrides: Partial<MessageRecord>): Promise<MessageRecord> {
	return storeMessage(t, owner, {
		partnerId,
		partnerAs2Id: as2Id,
		toAs2Id: as2Id,
		fromAs2Id: tenantAs2Id,
		status: "sent",
		mdnMode: "async",
		mdnStatus: "pending",
		mic: OUR_MIC,
		sentAt: t.clock.now(),
		mdnDeadline: new Date(t.clock.now().getTime() + 3600_000),
		...overrides,
	});
}

async function post(path: "/as2/receive" | "/as2/mdn", wire: WireMessage) {
	const response = await t.app.request(path, {
		method: "POST",
		headers: wire.headers,
		body: new Uint8Array(wire.body),
	});
	return { status: response.status, text: await response.text() };
}

const detail = async (id: string) => (await t.call("GET", `/v1/messages/${id}`, { token: owner.token })).json.data;

describe("pyas2-lib: a signed MDN without Received-Content-MIC (defect 1)", () => {
	it("delivers an encrypt-only message of ours and records mic_missing", async () => {
		const partnerId = await partner("PYAS2-ENCRYPT", { sign: false, encrypt: true });
		const message = await awaiting(partnerId, "PYAS2-ENCRYPT", { signed: false, encrypted: true });
		const mdn = pyas2SignedMdn(
			certs.dir,
			{ from: "PYAS2-ENCRYPT", to: tenantAs2Id, originalMessageId: message.messageId },
			partnerKey,
		);
		const answer = await post("/as2/receive", mdn);
		expect(answer, answer.text).toMatchObject({ status: 200 });
		const delivered = await detail(message.id);
		expect(delivered).toMatchObject({ status: "delivered", mdn_status: "received", error_code: null });
		expect(delivered.mdn_data).toMatchObject({
			signed: true,
			signature_valid: true,
			received_content_mic: null,
			mic_missing: true,
			reporting_ua: "pyAS2 Open Source AS2 Software",
		});
	});

	it("still fails a signed message of ours with MIC_MISMATCH (RFC 4130 §7.4.3)", async () => {
		const partnerId = await partner("PYAS2-SIGN", { sign: true, encrypt: true });
		const message = await awaiting(partnerId, "PYAS2-SIGN", { signed: true, encrypted: true });
		const mdn = pyas2SignedMdn(
			certs.dir,
			{ from: "PYAS2-SIGN", to: tenantAs2Id, originalMessageId: message.messageId },
			partnerKey,
		);
		expect((await post("/as2/receive", mdn)).status).toBe(200);
		const failed = await detail(message.id);
		expect(failed).toMatchObject({ status: "failed", error_code: "MIC_MISMATCH", mdn_status: "failed" });
		expect(failed.mdn_data).toMatchObject({ received_content_mic: null, mic_missing: false });
	});

	it("with its MIC, delivers and records mic_missing false", async () => {
		const partnerId = await partner("PYAS2-MIC", { sign: true, encrypt: true });
		const message = await awaiting(partnerId, "PYAS2-MIC", { signed: true, encrypted: true });
		const mdn = pyas2SignedMdn(
			certs.dir,
			{ from: "PYAS2-MIC", to: tenantAs2Id, originalMessageId: message.messageId, mic: OUR_MIC },
			partnerKey,
		);
		expect((await post("/as2/receive", mdn)).status).toBe(200);
		expect((await detail(message.id)).mdn_data).toMatchObject({ mic_matches: true, mic_missing: false });
	});
});

describe("OpenAS2 4.9: a signed async MDN whose body opens with a preamble (defect 5)", () => {
	for (const path of ["/as2/mdn", "/as2/receive"] as const) {
		it(`is taken as the MDN on ${path} and delivers the message it names`, async () => {
			const as2Id = `OPENAS2${path.replaceAll("/", "-").toUpperCase()}`;
			const partnerId = await partner(as2Id, { sign: true, encrypt: true });
			const message = await awaiting(partnerId, as2Id, { signed: true, encrypted: true });
			const mdn = openas2AsyncMdn(
				certs.dir,
				{ from: as2Id, to: tenantAs2Id, originalMessageId: message.messageId, mic: OUR_MIC },
				partnerKey,
			);
			const answer = await post(path, mdn);
			expect(answer.text).toBe("MDN received\n");
			expect(answer.status).toBe(200);
			const delivered = await detail(message.id);
			expect(delivered).toMatchObject({ status: "delivered", mdn_status: "received" });
			expect(delivered.mdn_data).toMatchObject({ signed: true, signature_valid: true, mic_matches: true });
			const inbound = await t.call("GET", "/v1/messages?direction=inbound", { token: owner.token });
			expect(inbound.json.data.filter((m: { partner: { as2_id: string } }) => m.partner.as2_id === as2Id)).toEqual([]);
		});
	}
});

describe("mendelson: an unsigned 3DES message whose EnvelopedData holds the raw payload (defect 4)", () => {
	it("is received with the raw EDIFACT as its payload, typed application/octet-stream", async () => {
		await partner("MENDELSON", { sign: false, encrypt: true, mdn_mode: "sync", mdn: { signed: false } });
		const identity = (await t.call("GET", "/v1/certificates?type=identity", { token: owner.token })).json.data[0];
		const ourCert = join(certs.dir, "receipts-identity.pem");
		writeFileSync(ourCert, identity.certificate_pem);
		const wire = mendelsonRawEncrypted(certs.dir, EDIFACT_INTERCHANGE, ourCert, {
			from: "MENDELSON",
			to: tenantAs2Id,
			messageId: "mendelson-raw-3des-1@mendelson",
		});
		wire.headers["Disposition-Notification-To"] = "as2@mendelson.example";
		const answer = await post("/as2/receive", wire);
		expect(answer.status).toBe(200);
		expect(answer.text).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed\r?\n/);
		const inbound = await t.call("GET", "/v1/messages?direction=inbound", { token: owner.token });
		const received = inbound.json.data.find(
			(m: { message_id: string }) => m.message_id === "mendelson-raw-3des-1@mendelson",
		);
		expect(received).toMatchObject({ status: "received", encrypted: true, signed: false });
		expect(received.content_type).toBe("application/octet-stream");
		const payload = await t.app.request(`/v1/messages/${received.id}/payload`, {
			headers: { authorization: `Bearer ${owner.token}` },
		});
		expect(Buffer.from(await payload.arrayBuffer())).toEqual(EDIFACT_INTERCHANGE);
	});
});
