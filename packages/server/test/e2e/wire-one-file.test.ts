import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesBody } from "../../src/service/messages/submit.ts";
import { addPartner, type Peer, sendMessage, settled, startPair } from "../helpers/peers.ts";

/**
 * Issue #20: an exchange's request and answer are captured in one blob (one file per attempt,
 * not two), each side a part of it; the downloads serve each side's exact bytes, and captures
 * stored before (a whole blob each, no offset) are served as they were.
 */
let pair: Awaited<ReturnType<typeof startPair>>;
let sent: string;
let received: string;

beforeAll(async () => {
	pair = await startPair();
	const partnerOnA = await addPartner(pair.a, pair.b, pair.pki, { mdn_mode: "sync" });
	await addPartner(pair.b, pair.a, pair.pki);
	sent = await sendMessage(pair.a, partnerOnA);
	expect((await settled(pair.a, sent)).status).toBe("delivered");
	const inbound = await pair.b.call("GET", "/v1/messages?direction=inbound");
	received = inbound.json.data[0].id;
}, 60_000);
afterAll(async () => {
	await pair?.close();
});

/** The body of one side of an attempt, as `GET …/{side}?part=body` serves it, with its declared length. */
async function bodyOf(peer: Peer, messageId: string, number: number, side: string) {
	const response = await peer.server.app.request(`/v1/messages/${messageId}/attempts/${number}/${side}?part=body`, {
		headers: { authorization: `Bearer ${peer.key}` },
	});
	expect(response.status).toBe(200);
	const bytes = Buffer.from(await response.arrayBuffer());
	expect(Number(response.headers.get("content-length"))).toBe(bytes.byteLength);
	return bytes;
}

const attemptOf = async (peer: Peer, messageId: string) =>
	(await peer.server.store.messageAttempts.get(peer.tenantId, messageId, 1))!;

describe("an exchange captured in one blob", () => {
	it.each([
		["the sender's attempt", () => [pair.a, sent] as const],
		["the receiver's receipt", () => [pair.b, received] as const],
	])("%s keeps request and answer in one blob, the answer after the request", async (_, which) => {
		const [peer, messageId] = which();
		const { request, response } = await attemptOf(peer, messageId);
		expect(request?.blobKey).toBeTruthy();
		expect(response?.blobKey).toBe(request?.blobKey);
		expect(request?.offset).toBe(0);
		expect(response?.offset).toBe(request?.bytes);
		const blob = await peer.server.service.deps.blobs.stat(request!.blobKey);
		expect(blob?.bytes).toBe(request!.bytes + response!.bytes);
	});

	it("serves each side's exact bytes: what one side sent is what the other captured as received", async () => {
		const [sentRequest, receivedRequest] = await Promise.all([
			bodyOf(pair.a, sent, 1, "request"),
			bodyOf(pair.b, received, 1, "request"),
		]);
		expect(sentRequest.byteLength).toBeGreaterThan(0);
		expect(sentRequest.equals(receivedRequest)).toBe(true);
		const [answerReceived, answerSent] = await Promise.all([
			bodyOf(pair.a, sent, 1, "response"),
			bodyOf(pair.b, received, 1, "response"),
		]);
		expect(answerReceived.byteLength).toBeGreaterThan(0);
		expect(answerReceived.equals(answerSent)).toBe(true);
	});

	it("answers 404, not a part of another body, when the shared blob is shorter than the part", async () => {
		const { tenantId } = pair.a;
		const { request, response } = await attemptOf(pair.a, sent);
		const blobs = pair.a.server.service.deps.blobs;
		const short = await blobs.put(`wire/test/short-${Date.now()}`, bytesBody(new Uint8Array(request!.bytes)));
		await pair.a.server.store.messageAttempts.update(sent, 1, { response: { ...response!, blobKey: short.key } });
		try {
			const download = await pair.a.server.app.request(`/v1/messages/${sent}/attempts/1/response`, {
				headers: { authorization: `Bearer ${pair.a.key}` },
			});
			expect(download.status).toBe(404);
		} finally {
			await pair.a.server.store.messageAttempts.update(sent, 1, { response });
			expect((await pair.a.server.store.messageAttempts.get(tenantId, sent, 1))?.response).toEqual(response);
		}
	});
});

describe("captures stored before one blob per exchange", () => {
	it("are served whole, each side from a blob of its own", async () => {
		const { request, response } = await attemptOf(pair.a, sent);
		const [requestBody, responseBody] = await Promise.all([
			bodyOf(pair.a, sent, 1, "request"),
			bodyOf(pair.a, sent, 1, "response"),
		]);
		const blobs = pair.a.server.service.deps.blobs;
		const requestBlob = await blobs.put(`wire/test/legacy-request-${Date.now()}`, bytesBody(requestBody));
		const responseBlob = await blobs.put(`wire/test/legacy-response-${Date.now()}`, bytesBody(responseBody));
		// As a capture was stored before: no offset, the whole blob its body.
		await pair.a.server.store.messageAttempts.update(sent, 1, {
			request: { head: request!.head, blobKey: requestBlob.key, bytes: requestBlob.bytes },
			response: { head: response!.head, blobKey: responseBlob.key, bytes: responseBlob.bytes },
		});
		try {
			expect((await bodyOf(pair.a, sent, 1, "request")).equals(requestBody)).toBe(true);
			expect((await bodyOf(pair.a, sent, 1, "response")).equals(responseBody)).toBe(true);
			const whole = await pair.a.server.app.request(`/v1/messages/${sent}/attempts/1/response`, {
				headers: { authorization: `Bearer ${pair.a.key}` },
			});
			const text = Buffer.from(await whole.arrayBuffer());
			expect(text.subarray(0, response!.head.length).toString("latin1")).toBe(response!.head);
			expect(text.subarray(response!.head.length).equals(responseBody)).toBe(true);
		} finally {
			await pair.a.server.store.messageAttempts.update(sent, 1, { request, response });
		}
	});
});
