import { rmSync } from "node:fs";
import { buildMdn, importPrivateKey, type Mic, parseCertificates, parseMdn, parseMic } from "@as2kit/core";
import type { MessageRecord } from "@as2kit/core/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMdn } from "../../src/service/messages/apply-mdn.ts";
import { mdnTimeoutHandler } from "../../src/service/messages/mdn-timeout.ts";
import { makeCertificates } from "../helpers/certs.ts";
import { storeMessage } from "../helpers/messages.ts";
import { createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { jobContext } from "../helpers/worker.ts";

/**
 * Forged MDNs (issue #16, defect 5): /as2/receive takes MDNs from anyone, as AS2 requires, so
 * an MDN that cannot prove its origin must settle nothing. It is recorded on the message
 * (rejected_mdns), the message keeps waiting, and the genuine MDN that follows delivers it.
 */
const certs = makeCertificates();
const partnerKey = certs.selfSigned("genuine-partner");
const forgerKey = certs.selfSigned("forger");
const OUR_MIC = "Q2hlY2tzdW0gb2YgdGhlIHNpZ25lZCBjb250ZW50IQ==, sha-256";

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

async function partner(as2Id: string, signedMdn: boolean): Promise<string> {
	const created = await t.call("POST", "/v1/partners", {
		token: owner.token,
		body: {
			name: as2Id,
			as2_id: as2Id,
			url: `https://${as2Id.toLowerCase()}.example/as2`,
			sign: true,
			mdn_mode: "async",
			mdn: { signed: signedMdn },
		},
	});
	expect(created.status, created.text).toBe(201);
	const id = created.json.data.id;
	const cert = await t.call("POST", `/v1/partners/${id}/certificates`, {
		token: owner.token,
		body: { name: "signing", usage: "both", certificate: partnerKey.certPem },
	});
	expect(cert.status, cert.text).toBe(201);
	return id;
}

/** A message of ours awaiting its async MDN, as the send job leaves it. */
function awaiting(partnerId: string, as2Id: string): Promise<MessageRecord> {
	return storeMessage(t, owner, {
		partnerId,
		partnerAs2Id: as2Id,
		toAs2Id: as2Id,
		fromAs2Id: tenantAs2Id,
		status: "sent",
		mdnMode: "async",
		mdnStatus: "pending",
		mic: OUR_MIC,
		signed: true,
		sentAt: t.clock.now(),
		mdnDeadline: new Date(t.clock.now().getTime() + 3600_000),
	});
}

interface MdnOptions {
	signer?: { certPem: string; keyPem: string };
	mic?: Mic | null;
	disposition?: "processed" | "failed";
}

/** The partner's MDN for `message`, signed with `signer` (or not), carrying `mic` (ours by default, or none). */
function mdnFor(message: MessageRecord, options: MdnOptions) {
	return buildMdn({
		original: {
			messageId: message.messageId,
			from: tenantAs2Id,
			to: message.partnerAs2Id,
			mdnRequest: {
				mode: "async",
				url: "https://me.example/as2/receive",
				notificationTo: "as2@me.example",
				signed: true,
				micAlgorithms: ["sha256"],
			},
			...(options.mic === null ? {} : { mic: options.mic ?? parseMic(OUR_MIC) }),
		},
		disposition:
			options.disposition === "failed"
				? { type: "processed", modifier: "error", detail: "authentication-failed" }
				: { type: "processed" },
		...(options.signer
			? {
					sign: {
						privateKey: importPrivateKey(options.signer.keyPem),
						certificate: parseCertificates(options.signer.certPem)[0]!,
					},
				}
			: {}),
	});
}

/** POSTs the MDN to /as2/receive, as the partner (or anyone) can. */
async function postMdn(message: MessageRecord, options: MdnOptions) {
	const mdn = mdnFor(message, options);
	const headers = new Headers([...mdn.headers]);
	headers.set("as2-from", message.partnerAs2Id);
	headers.set("as2-to", tenantAs2Id);
	const response = await t.app.request("/as2/receive", { method: "POST", headers, body: Buffer.from(mdn.body) });
	return { status: response.status, text: await response.text() };
}

const detail = async (message: MessageRecord) =>
	(await t.call("GET", `/v1/messages/${message.id}`, { token: owner.token })).json.data;

describe("an async MDN for a message that asked for a signed one", () => {
	it("settles nothing when unsigned or signed by another key; the genuine signed MDN then delivers it", async () => {
		const partnerId = await partner("SIGNER", true);
		const message = await awaiting(partnerId, "SIGNER");

		const unsigned = await postMdn(message, {});
		expect(unsigned.status).toBe(400);
		expect(unsigned.text).toMatch(/not accepted: it is unsigned, and the partner agreement asks for a signed MDN/);
		const forgedNegative = await postMdn(message, { signer: forgerKey, disposition: "failed" });
		expect(forgedNegative.status).toBe(400);
		expect(forgedNegative.text).toMatch(/signature does not verify/);

		const waiting = await detail(message);
		expect(waiting).toMatchObject({ status: "sent", mdn_status: "pending", mdn_data: null, error_code: null });
		expect(waiting.rejected_mdns).toEqual([
			expect.objectContaining({
				reason: "it is unsigned, and the partner agreement asks for a signed MDN",
				original_message_id: message.messageId,
				signed: false,
				signature_valid: null,
				received_content_mic: OUR_MIC,
				received_at: "2026-03-01T09:00:00.000000Z",
			}),
			expect.objectContaining({
				reason: expect.stringMatching(/^its signature does not verify against the partner's certificates: /),
				disposition: "automatic-action/MDN-sent-automatically; processed/error: authentication-failed",
				signed: true,
				signature_valid: false,
			}),
		]);

		const genuine = await postMdn(message, { signer: partnerKey });
		expect(genuine).toEqual({ status: 200, text: "MDN received\n" });
		const delivered = await detail(message);
		expect(delivered).toMatchObject({
			status: "delivered",
			mdn_status: "received",
			mdn_data: { signed: true, signature_valid: true, mic_matches: true },
		});
		expect(delivered.rejected_mdns).toHaveLength(2);
		const events = await t.store.events.list({ accountId: owner.accountId, limit: 1000 });
		expect(events.filter((e) => e.data.id === message.id).map((e) => e.kind)).toEqual(["message.delivered"]);
	});

	it("fails on the MDN timeout, saying that MDNs were rejected", async () => {
		const partnerId = await partner("TIMEOUT", true);
		const message = await awaiting(partnerId, "TIMEOUT");
		expect((await postMdn(message, {})).status).toBe(400);
		t.clock.advance(3601);
		try {
			await mdnTimeoutHandler(t.service.deps)(
				{ id: "job", kind: "scan", payload: {}, attempts: 1 } as never,
				jobContext(),
			);
		} finally {
			t.clock.advance(-3601);
		}
		const failed = await detail(message);
		expect(failed).toMatchObject({ status: "failed", mdn_status: "timeout", error_code: "MDN_TIMEOUT" });
		expect(failed.error_message).toMatch(/^no valid MDN arrived by .*; 1 rejected \(the latest because it is unsigned/);
	});
});

describe("an unsigned MDN where the partner agreement does not ask for a signed one", () => {
	it("does not deliver a signed message without its MIC, or with another MIC; with ours it does", async () => {
		const partnerId = await partner("PLAIN", false);
		const message = await awaiting(partnerId, "PLAIN");
		const noMic = await postMdn(message, { mic: null });
		expect(noMic.text).toMatch(/returns no Received-Content-MIC for a signed message/);
		const otherMic = await postMdn(message, { mic: parseMic("b3RoZXI=, sha-256") });
		expect(otherMic.text).toMatch(/it is unsigned and the MDN's MIC b3RoZXI=, sha-256 is not ours/);
		expect(await detail(message)).toMatchObject({ status: "sent", mdn_status: "pending" });
		expect((await postMdn(message, {})).status).toBe(200);
		expect(await detail(message)).toMatchObject({ status: "delivered", rejected_mdns: [{}, {}] });
	});

	it("takes a validly signed MDN's other MIC as the partner's word: MIC_MISMATCH", async () => {
		const partnerId = await partner("HONEST", false);
		const message = await awaiting(partnerId, "HONEST");
		expect((await postMdn(message, { signer: partnerKey, mic: parseMic("b3RoZXI=, sha-256") })).status).toBe(200);
		expect(await detail(message)).toMatchObject({ status: "failed", error_code: "MIC_MISMATCH", rejected_mdns: [] });
	});
});

describe("a sync MDN (the answer to our own POST) that does not verify", () => {
	it("fails the message with INVALID_MDN at once — no other MDN will come — and keeps it in rejected_mdns", async () => {
		const partnerId = await partner("SYNC", true);
		const message = await storeMessage(t, owner, {
			partnerId,
			partnerAs2Id: "SYNC",
			toAs2Id: "SYNC",
			fromAs2Id: tenantAs2Id,
			status: "processing",
			mdnMode: "sync",
			mic: OUR_MIC,
		});
		const built = mdnFor(message, { signer: forgerKey });
		const mdn = await parseMdn({
			headers: built.headers,
			body: built.body,
			partnerCertificates: [parseCertificates(partnerKey.certPem)[0]!],
			at: t.clock.now(),
		});
		const { verdict } = await applyMdn(t.service.deps, message, mdn, {
			signedRequested: true,
			at: t.clock.now(),
			via: "sync",
		});
		expect(verdict.outcome).toBe("rejected");
		const failed = await detail(message);
		expect(failed).toMatchObject({ status: "failed", error_code: "INVALID_MDN", mdn_status: "failed" });
		expect(failed.error_message).toMatch(/^the sync MDN was rejected: its signature does not verify/);
		expect(failed.rejected_mdns).toEqual([expect.objectContaining({ signed: true, signature_valid: false })]);
		const events = await t.store.events.list({ accountId: owner.accountId, limit: 1000 });
		expect(events.filter((e) => e.data.id === message.id).map((e) => e.kind)).toEqual(["message.failed"]);
	});
});
