import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mdnTimeoutHandler } from "../../src/service/messages/mdn-timeout.ts";
import { makeCertificates } from "../helpers/certs.ts";
import {
	addPartner,
	freePort,
	type Peer,
	sendMessage,
	settled,
	startPair,
	withImpostorCertificate,
} from "../helpers/peers.ts";
import { eventually, jobContext } from "../helpers/worker.ts";

/**
 * The documented end of every negative path between two real servers: the state, the error,
 * the MDN and the events. Retries are one second apart here (AS2_SEND_RETRY_DELAYS=0,1,1,1,1).
 */
let pair: Awaited<ReturnType<typeof startPair>>;
let partnerOnA: string;
let partnerOnB: string;
const stubs: Server[] = [];

beforeAll(async () => {
	pair = await startPair({ AS2_SEND_RETRY_DELAYS: "0,1,1,1,1", AS2_MDN_TIMEOUT_SECONDS: "1" });
	partnerOnA = await addPartner(pair.a, pair.b, pair.pki, { mdn_mode: "sync" });
	partnerOnB = await addPartner(pair.b, pair.a, pair.pki);
});
afterAll(async () => {
	for (const stub of stubs) await new Promise((resolve) => stub.close(resolve));
	await pair.close();
});

/** An HTTPS endpoint (the test CA's certificate) that answers every POST with `status` and `body`. */
async function stub(status: number, body = ""): Promise<string> {
	const server = createServer(
		{ cert: readFileSync(pair.pki.certPath), key: readFileSync(pair.pki.keyPath) },
		(req, res) => {
			req.resume();
			req.on("end", () => res.writeHead(status, { "content-type": "text/plain" }).end(body));
		},
	);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	stubs.push(server);
	return `https://127.0.0.1:${(server.address() as { port: number }).port}/as2`;
}

const send = (overrides: Record<string, unknown> = {}, from: Peer = pair.a, partner = partnerOnA) =>
	sendMessage(from, partner, overrides);

const kinds = async (peer: Peer, id: string) =>
	(await peer.server.store.events.list({ accountId: peer.accountId, limit: 100_000 }))
		.filter((e) => e.data.id === id)
		.map((e) => e.kind);
const inboundCount = async (peer: Peer) =>
	(await peer.server.store.messages.list(peer.tenantId, { direction: "inbound" }, { page: 1, perPage: 1 })).total;
const eventCount = async (peer: Peer) =>
	(await peer.server.store.events.list({ accountId: peer.accountId, limit: 100_000 })).length;
/** The `message.failed` event of `id`: error_code and error_message as the spec lists them. */
const failedEvent = async (peer: Peer, id: string) =>
	(await peer.server.store.events.list({ accountId: peer.accountId, kind: "message.failed", limit: 100_000 })).find(
		(e) => e.data.id === id,
	);

/**
 * Runs `action` against `peer` and checks it left nothing behind: no message, no event, no
 * receive or MDN job, and every blob it wrote (a streamed body) deleted again.
 */
async function leavesNoTrace(peer: Peer, action: () => Promise<void>) {
	const totalMessages = async () =>
		(await peer.server.store.messages.list(peer.tenantId, {}, { page: 1, perPage: 1 })).total;
	const as2Jobs = async () =>
		(await peer.server.store.jobs.list()).filter((j) => j.kind === "message.receive" || j.kind === "mdn.send").length;
	const before = { messages: await totalMessages(), events: await eventCount(peer), jobs: await as2Jobs() };
	const blobs = peer.server.service.deps.blobs;
	const put = vi.spyOn(blobs, "put");
	const removed = vi.spyOn(blobs, "delete");
	let puts: Array<Promise<{ key: string }>> = [];
	let deletes: string[] = [];
	try {
		await action();
	} finally {
		// Read before restoring: restoring a spy clears what it recorded.
		puts = put.mock.results.map((r) => r.value);
		deletes = removed.mock.calls.map(([key]) => key);
		put.mockRestore();
		removed.mockRestore();
	}
	expect({ messages: await totalMessages(), events: await eventCount(peer), jobs: await as2Jobs() }).toEqual(before);
	const written = (await Promise.all(puts)).map((b) => b.key);
	expect(deletes).toEqual(expect.arrayContaining(written));
	for (const key of written) expect(await blobs.stat(key), key).toBeNull();
	return written;
}

async function postRaw(peer: Peer, headers: Record<string, string>, body: string) {
	const response = await peer.server.app.request("/as2/receive", { method: "POST", headers, body });
	return { status: response.status, headers: response.headers, text: await response.text() };
}

describe("routing", () => {
	it("an unknown AS2-To gets a negative MDN when a sync MDN was asked for, and 404 otherwise; nothing is kept", async () => {
		const headers = {
			"as2-from": pair.a.as2Id,
			"as2-to": "NOBODY",
			"message-id": "<x1@test>",
			"content-type": "text/plain",
		};
		await leavesNoTrace(pair.b, async () => {
			const withMdn = await postRaw(pair.b, { ...headers, "disposition-notification-to": "a@example.com" }, "hello");
			expect(withMdn.status).toBe(200);
			expect(withMdn.headers.get("content-type")).toMatch(/^multipart\/report/);
			expect(withMdn.text).toMatch(/processed\/error: unknown-trading-partner/);
			expect((await postRaw(pair.b, headers, "hello")).status).toBe(404);
			// An async MDN asked for: no MDN is POSTed to a URL an unknown sender chose, 404 at once.
			const asyncMdn = await postRaw(
				pair.b,
				{
					...headers,
					"disposition-notification-to": "a@example.com",
					"receipt-delivery-option": `${pair.a.baseUrl}/as2/receive`,
				},
				"hello",
			);
			expect(asyncMdn.status).toBe(404);
		});
	});

	it("an unknown AS2-From gets a signed negative MDN from the tenant; nothing is kept", async () => {
		await leavesNoTrace(pair.b, async () => {
			const response = await postRaw(
				pair.b,
				{
					"as2-from": "STRANGER",
					"as2-to": pair.b.as2Id,
					"message-id": "<x2@test>",
					"content-type": "text/plain",
					"disposition-notification-to": "s@example.com",
					"disposition-notification-options":
						"signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256",
				},
				"hello",
			);
			expect(response.headers.get("content-type")).toMatch(/^multipart\/signed/);
			expect(response.text).toMatch(/unknown-trading-partner/);
		});
	});

	it("an unknown AS2-From without a sync MDN request: 404, and its streamed body is deleted", async () => {
		const written = await leavesNoTrace(pair.b, async () => {
			const response = await postRaw(
				pair.b,
				{
					"as2-from": "STRANGER",
					"as2-to": pair.b.as2Id,
					"message-id": "<x3@test>",
					"content-type": "application/octet-stream",
					"disposition-notification-to": "s@example.com",
					"receipt-delivery-option": `${pair.a.baseUrl}/as2/receive`,
				},
				"x".repeat(4096),
			);
			expect(response.status).toBe(404);
		});
		// No Content-Length: the body went to the blob store before routing refused it.
		expect(written).toHaveLength(1);
	});
});

describe("security failures come back as negative MDNs and fail the message", () => {
	it("a signature B cannot verify: authentication-failed → AUTHENTICATION_FAILED", async () => {
		await withImpostorCertificate(pair.b, partnerOnB, "impostor", async () => {
			const before = await inboundCount(pair.b);
			const failed = await settled(pair.a, await send({ encrypt: false }));
			expect(failed).toMatchObject({ status: "failed", errorCode: "AUTHENTICATION_FAILED", mdnStatus: "received" });
			expect(failed.mdnData?.disposition).toMatch(/processed\/error: authentication-failed/);
			expect(await kinds(pair.a, failed.id)).toEqual(["message.queued", "message.failed"]);
			expect(await inboundCount(pair.b)).toBe(before);
		});
	});

	it("encrypted for a key B does not hold: decryption-failed → DECRYPTION_FAILED", async () => {
		const wrong = makeCertificates().selfSigned("not-beta");
		const certs = (await pair.a.call("GET", `/v1/partners/${partnerOnA}/certificates`)).json.data;
		for (const c of certs) await pair.a.call("POST", `/v1/certificates/${c.id}/deactivate`);
		const planted = await pair.a.call("POST", `/v1/partners/${partnerOnA}/certificates`, {
			name: "wrong",
			usage: "encryption",
			certificate: wrong.certPem,
		});
		// B's receipt must still verify: an MDN whose signature does not settles nothing (forged-mdn.test.ts).
		const signing = await pair.a.call("POST", `/v1/partners/${partnerOnA}/certificates`, {
			name: "beta signing",
			usage: "signing",
			certificate: pair.b.identityPem,
		});
		try {
			const bEvents = await eventCount(pair.b);
			const before = await inboundCount(pair.b);
			const failed = await settled(pair.a, await send({ sign: false }));
			expect(failed).toMatchObject({ status: "failed", errorCode: "DECRYPTION_FAILED", mdnStatus: "received" });
			// The disposition B sent (RFC 4130 §7.4.3), in a receipt signed by B.
			expect(failed.mdnData?.disposition).toMatch(
				/^automatic-action\/MDN-sent-automatically; processed\/error: decryption-failed$/,
			);
			expect(failed.mdnData).toMatchObject({
				signed: true,
				signatureValid: true,
				originalMessageId: failed.messageId,
			});
			expect(await kinds(pair.a, failed.id)).toEqual(["message.queued", "message.failed"]);
			expect((await failedEvent(pair.a, failed.id))?.data).toMatchObject({
				status: "failed",
				error_code: "DECRYPTION_FAILED",
				error_message: expect.stringMatching(/decryption-failed/),
			});
			// B kept nothing and wrote no event (no message.received).
			expect(await inboundCount(pair.b)).toBe(before);
			expect(await eventCount(pair.b)).toBe(bEvents);
		} finally {
			await pair.a.call("DELETE", `/v1/certificates/${planted.json.data.id}`);
			await pair.a.call("DELETE", `/v1/certificates/${signing.json.data.id}`);
			for (const c of certs) await pair.a.call("POST", `/v1/certificates/${c.id}/activate`);
		}
	});

	it("unsigned where B requires signing: insufficient-message-security → INSUFFICIENT_MESSAGE_SECURITY", async () => {
		await pair.b.call("PATCH", `/v1/partners/${partnerOnB}`, { inbound: { require_signed: true } });
		try {
			const bEvents = await eventCount(pair.b);
			const before = await inboundCount(pair.b);
			const failed = await settled(pair.a, await send({ sign: false, encrypt: false }));
			expect(failed).toMatchObject({
				status: "failed",
				errorCode: "INSUFFICIENT_MESSAGE_SECURITY",
				mdnStatus: "received",
			});
			expect(failed.mdnData?.disposition).toMatch(
				/^automatic-action\/MDN-sent-automatically; processed\/error: insufficient-message-security$/,
			);
			expect(failed.mdnData).toMatchObject({ signed: true, signatureValid: true });
			expect(await kinds(pair.a, failed.id)).toEqual(["message.queued", "message.failed"]);
			expect((await failedEvent(pair.a, failed.id))?.data).toMatchObject({
				status: "failed",
				error_code: "INSUFFICIENT_MESSAGE_SECURITY",
			});
			expect(await inboundCount(pair.b)).toBe(before);
			expect(await eventCount(pair.b)).toBe(bEvents);
		} finally {
			await pair.b.call("PATCH", `/v1/partners/${partnerOnB}`, { inbound: { require_signed: null } });
		}
	});
});

describe("duplicates", () => {
	it("a resent Message-ID is stored once and answered with the same MIC, without a second message.received", async () => {
		const first = await settled(pair.a, await send());
		expect(first.status).toBe("delivered");
		const received = await pair.b.server.store.messages.findByMessageId(pair.b.tenantId, first.messageId, {
			direction: "inbound",
		});
		// The sender's crash-and-retry: same message, same Message-ID, sent again.
		await pair.a.server.store.messages.update(first.id, { status: "queued" } as never);
		await pair.a.server.store.transaction((tx) =>
			tx.jobs.enqueue({ kind: "message.send", payload: { messageId: first.id }, runAt: new Date() }, new Date()),
		);
		pair.a.server.service.deps.wake();
		const again = await eventually(async () => {
			const m = await pair.a.server.store.messages.get(pair.a.tenantId, first.id);
			return m && m.status === "delivered" && m.attempts === 2 ? m : null;
		});
		expect(again.mdnData?.micMatches).toBe(true);
		const stillOne = await pair.b.server.store.messages.list(
			pair.b.tenantId,
			{ search: first.messageId },
			{ page: 1, perPage: 10 },
		);
		expect(stillOne.items.map((m) => m.id)).toEqual([received!.id]);
		expect(await kinds(pair.b, received!.id)).toEqual(["message.received"]);
	});

	it("a new message is stored with no read for a duplicate first: the insert finds duplicates (issue #20)", async () => {
		const messages = pair.b.server.store.messages;
		const findByMessageId = messages.findByMessageId;
		const looked: string[] = [];
		messages.findByMessageId = (tenantId, messageId, filter) => {
			looked.push(messageId);
			return findByMessageId.call(messages, tenantId, messageId, filter);
		};
		try {
			const sent = await settled(pair.a, await send());
			expect(sent.status).toBe("delivered");
			expect(looked.filter((id) => id === sent.messageId)).toEqual([]);
		} finally {
			messages.findByMessageId = findByMessageId;
		}
	});

	it("a resent Message-ID whose body no longer processes is answered as the duplicate it is: processed, the original's MIC", async () => {
		const first = await settled(pair.a, await send());
		const received = await pair.b.server.store.messages.findByMessageId(pair.b.tenantId, first.messageId, {
			direction: "inbound",
		});
		const before = { inbound: await inboundCount(pair.b), events: await eventCount(pair.b) };
		// Not a message anyone can decrypt: the resend of a partner whose gateway mangled it, or a forgery.
		const body = new TextEncoder().encode("not a CMS structure");
		const answer = await pair.b.server.service.messages.receive({
			headers: [
				["AS2-From", received!.fromAs2Id],
				["AS2-To", received!.toAs2Id],
				["Message-ID", `<${first.messageId}>`],
				["Content-Type", 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"'],
				["Disposition-Notification-To", "mailto:as2@example.com"],
			],
			body: (async function* () {
				yield body;
			})(),
			contentLength: body.byteLength,
			clientIp: "127.0.0.1",
		});
		expect(answer.status).toBe(200);
		const mdn = new TextDecoder().decode(answer.body);
		expect(mdn).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed\r?\n/);
		expect(mdn).toContain(`Received-Content-MIC: ${received!.mic}`);
		expect({ inbound: await inboundCount(pair.b), events: await eventCount(pair.b) }).toEqual(before);
	});
});

describe("transport failures", () => {
	it("partner down, then up: retried with the same Message-ID, then delivered", async () => {
		const down = `https://127.0.0.1:${await freePort()}/as2/receive`;
		await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { url: down });
		const id = await send();
		const retrying = await eventually(
			async () => {
				const m = await pair.a.server.store.messages.get(pair.a.tenantId, id);
				return m && m.attempts >= 2 && m.errorCode === "PARTNER_UNREACHABLE" ? m : null;
			},
			"two failed attempts",
			30_000,
		);
		expect(retrying.status).toBe("processing");
		await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { url: `${pair.b.baseUrl}/as2/receive` });
		const delivered = await settled(pair.a, id);
		expect(delivered.status).toBe("delivered");
		expect(delivered.messageId).toBe(retrying.messageId);
		expect(delivered.attempts).toBeGreaterThanOrEqual(3);
		expect(await kinds(pair.a, id)).toEqual(["message.queued", "message.sent", "message.delivered"]);
	});

	it("a partner answering 500 is retried until the attempts run out, then PARTNER_UNREACHABLE", async () => {
		await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { url: await stub(500, "boom") });
		try {
			const failed = await settled(pair.a, await send());
			expect(failed).toMatchObject({ status: "failed", errorCode: "PARTNER_UNREACHABLE", attempts: 5 });
			expect(await kinds(pair.a, failed.id)).toEqual(["message.queued", "message.failed"]);
		} finally {
			await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { url: `${pair.b.baseUrl}/as2/receive` });
		}
	});

	it("a partner answering 403 is not retried: PARTNER_REJECTED after one attempt", async () => {
		await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { url: await stub(403, "forbidden") });
		try {
			const failed = await settled(pair.a, await send());
			expect(failed).toMatchObject({ status: "failed", errorCode: "PARTNER_REJECTED", attempts: 1 });
		} finally {
			await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { url: `${pair.b.baseUrl}/as2/receive` });
		}
	});

	it("a sync answer that is no MDN fails the message with INVALID_MDN", async () => {
		await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { url: await stub(200, "thanks") });
		try {
			const failed = await settled(pair.a, await send());
			expect(failed).toMatchObject({ status: "failed", errorCode: "INVALID_MDN", mdnStatus: "failed" });
		} finally {
			await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { url: `${pair.b.baseUrl}/as2/receive` });
		}
	});

	it("an async MDN that never comes: sent with mdn pending, then failed MDN_TIMEOUT", async () => {
		await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { url: await stub(200, "") });
		try {
			const id = await send({ mdn_mode: "async" });
			const waiting = await settled(pair.a, id, ["sent", "failed"]);
			expect(waiting).toMatchObject({ status: "sent", mdnStatus: "pending" });
			await new Promise((resolve) => setTimeout(resolve, 1100));
			await mdnTimeoutHandler(pair.a.server.service.deps)({} as never, jobContext());
			const timedOut = await settled(pair.a, id);
			expect(timedOut).toMatchObject({ status: "failed", errorCode: "MDN_TIMEOUT", mdnStatus: "timeout" });
			expect(await kinds(pair.a, id)).toEqual(["message.queued", "message.sent", "message.failed"]);
		} finally {
			await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { url: `${pair.b.baseUrl}/as2/receive` });
		}
	});
});
