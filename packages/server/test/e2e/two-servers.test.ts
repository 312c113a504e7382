import { randomBytes } from "node:crypto";
import type { MessageRecord } from "@as2kit/core/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addPartner, type Peer, startPair } from "../helpers/peers.ts";
import { eventually } from "../helpers/worker.ts";

/**
 * Two reference servers (separate databases), each a tenant with the other as its partner,
 * exchanging live AS2 over loopback HTTPS with a throwaway CA: every sign × encrypt ×
 * compress × MDN mode (sync, async, none; signed and unsigned MDN).
 */
let pair: Awaited<ReturnType<typeof startPair>>;
let partnerOnA: string;

beforeAll(async () => {
	pair = await startPair();
	partnerOnA = await addPartner(pair.a, pair.b, pair.pki, {
		sign_algorithm: "SHA256withRSA",
		encrypt_algorithm: "AES256_CBC",
	});
	await addPartner(pair.b, pair.a, pair.pki, { sign_algorithm: "SHA256withRSA" });
});
afterAll(() => pair.close());

const FINAL = new Set(["delivered", "failed", "sent"]);
const settled = (m: MessageRecord | null) =>
	!!m && FINAL.has(m.status) && !(m.status === "sent" && m.mdnStatus === "pending");

async function waitSettled(peer: Peer, ids: string[]): Promise<MessageRecord[]> {
	return eventually(
		async () => {
			const all = await Promise.all(ids.map((id) => peer.server.store.messages.get(peer.tenantId, id)));
			return all.every(settled) ? (all as MessageRecord[]) : null;
		},
		"every message to settle",
		60_000,
	);
}

const kindsOf = async (peer: Peer, id: string) =>
	(await peer.server.store.events.list({ accountId: peer.accountId, limit: 100_000 }))
		.filter((e) => e.data.id === id)
		.map((e) => e.kind);

async function payloadOf(peer: Peer, record: MessageRecord): Promise<Buffer> {
	const stream = await peer.server.service.deps.blobs.get(record.payloadKey!);
	return Buffer.from(await new Response(stream).arrayBuffer());
}

describe("A sends to B: every combination reaches its final state, byte-exact", () => {
	for (const signedMdn of [true, false]) {
		it(`with ${signedMdn ? "signed" : "unsigned"} MDNs`, async () => {
			await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { mdn: { signed: signedMdn } });
			const cases: { id: string; sign: boolean; encrypt: boolean; compress: boolean; mdn: string; payload: Buffer }[] =
				[];
			for (const sign of [false, true])
				for (const encrypt of [false, true])
					for (const compress of [false, true])
						for (const mdn of ["sync", "async", "none"]) {
							// Binary payloads, with CR/LF and NUL bytes: every byte must arrive as sent.
							const payload = Buffer.concat([Buffer.from("\r\n\0bin"), randomBytes(2048 + cases.length * 97)]);
							const sent = await pair.a.call("POST", "/v1/messages", {
								partner_id: partnerOnA,
								content_type: "application/zip",
								payload: { content: payload.toString("base64"), encoding: "base64", filename: `f${cases.length}.bin` },
								sign,
								encrypt,
								compress,
								mdn_mode: mdn,
								subject: `case ${cases.length}`,
							});
							expect(sent.status, sent.text).toBe(202);
							cases.push({ id: sent.json.data.id, sign, encrypt, compress, mdn, payload });
						}
			const finals = await waitSettled(
				pair.a,
				cases.map((c) => c.id),
			);
			for (const [i, c] of cases.entries()) {
				const label = `sign=${c.sign} encrypt=${c.encrypt} compress=${c.compress} mdn=${c.mdn} signedMdn=${signedMdn}`;
				const outbound = finals[i]!;
				expect(outbound.status, `${label}: ${outbound.errorCode} ${outbound.errorMessage}`).toBe(
					c.mdn === "none" ? "sent" : "delivered",
				);
				expect(outbound.mdnStatus, label).toBe(c.mdn === "none" ? "none" : "received");
				if (c.mdn !== "none") {
					expect(outbound.mdnData, label).toMatchObject({ signed: signedMdn, micMatches: true });
					expect(outbound.mdnData?.disposition, label).toMatch(/processed$/);
				}
				expect(await kindsOf(pair.a, c.id), label).toEqual(
					c.mdn === "none"
						? ["message.queued", "message.sent"]
						: ["message.queued", "message.sent", "message.delivered"],
				);
				const inbound = await pair.b.server.store.messages.findByMessageId(pair.b.tenantId, outbound.messageId, {
					direction: "inbound",
				});
				expect(inbound, label).toMatchObject({
					status: "received",
					signed: c.sign,
					encrypted: c.encrypt,
					compressed: c.compress,
				});
				expect((await payloadOf(pair.b, inbound!)).equals(c.payload), `${label}: payload byte-exact`).toBe(true);
				expect(inbound!.mic, label).toBe(outbound.mic);
				expect(await kindsOf(pair.b, inbound!.id), label).toEqual(["message.received"]);
			}
		});
	}
});

describe("B's events carry what the spec lists", () => {
	it("message.received: mdn_requested, encrypted, signed, received_at", async () => {
		const events = await pair.b.server.store.events.list({
			accountId: pair.b.accountId,
			kind: "message.received",
			limit: 1,
		});
		expect(Object.keys(events[0]!.data).sort()).toEqual(
			[
				"attempts",
				"bytes",
				"content_type",
				"direction",
				"encrypted",
				"from_as2_id",
				"id",
				"mdn_requested",
				"message_id",
				"partner",
				"received_at",
				"signed",
				"status",
				"subject",
				"to_as2_id",
			].sort(),
		);
	});
});
