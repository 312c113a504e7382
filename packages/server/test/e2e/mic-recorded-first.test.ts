import { readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { MessagePatch } from "@as2kit/core/store";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addPartner, sendMessage, settled, startPair } from "../helpers/peers.ts";

/**
 * Regression (several-instances CI run, stop 13): on PostgreSQL, recording an attempt's MIC
 * took longer than the partner took to answer with its sync MDN, and the sender compared the
 * MDN with a MIC it had not recorded yet: MIC_MISMATCH for a message the partner had
 * received intact. The sender now records the MIC before the partner has the last byte, and
 * acts on the answer only once the body's producer is done.
 */
let pair: Awaited<ReturnType<typeof startPair>>;
let relay: Server;
/** For each AS2 POST, the MIC the sender had on record when the relay held the whole body. */
const micWhenReceived: Array<string | null> = [];
let partnerOnA: string;
/** The MIC updates made apart from the move to `processing` (a streamed body's, once read through). */
let micUpdates = 0;

beforeAll(async () => {
	pair = await startPair();
	const { a, b, pki } = pair;
	// A relay in front of b that reads the sender's record once it holds the whole body.
	relay = createServer({ cert: readFileSync(pki.certPath), key: readFileSync(pki.keyPath) }, (req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", async () => {
			const messageId = String(req.headers["message-id"]).replace(/^<(.*)>$/, "$1");
			const sent = await a.server.store.messages.findByMessageId(a.tenantId, messageId, { direction: "outbound" });
			micWhenReceived.push(sent?.mic ?? null);
			const upstream = request(
				new URL("/as2/receive", b.baseUrl),
				{ method: "POST", headers: req.headers, ca: pki.caPem },
				(answer) => {
					res.writeHead(answer.statusCode ?? 502, answer.headers);
					answer.pipe(res);
				},
			);
			upstream.end(Buffer.concat(chunks));
		});
	});
	await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
	partnerOnA = await addPartner(a, b, pki, {
		mdn_mode: "sync",
		url: `https://127.0.0.1:${(relay.address() as AddressInfo).port}/as2/receive`,
	});
	await addPartner(b, a, pki);
	// Recording the MIC is slow on the sender, as a remote database under load can be.
	const messages = a.server.store.messages;
	const update = messages.update.bind(messages);
	messages.update = async (id: string, patch: Omit<MessagePatch, "status">) => {
		if (patch.mic) {
			micUpdates++;
			await new Promise((resolve) => setTimeout(resolve, 300));
		}
		return update(id, patch);
	};
});

afterAll(async () => {
	relay?.closeAllConnections();
	await new Promise((resolve) => relay?.close(resolve));
	await pair?.close();
});

it("delivers with a matching MIC when recording it is slower than the partner's sync MDN", async () => {
	const id = await sendMessage(pair.a, partnerOnA, { compress: true, payload: { content: largePayload() } });
	const message = await settled(pair.a, id);
	expect(message.errorCode).toBeNull();
	expect(message.status).toBe("delivered");
	expect(message.mdnData?.micMatches).toBe(true);
	// A streamed body: its MIC is recorded once it has been read through, in a write of its own.
	expect(micUpdates).toBe(1);
	// The partner never held the whole message before its MIC was on record.
	expect(micWhenReceived).toEqual([message.mic]);
});

it("records a small message's MIC in its move to processing, before the POST starts (issue #20)", async () => {
	micWhenReceived.length = 0;
	micUpdates = 0;
	const id = await sendMessage(pair.a, partnerOnA, { compress: true });
	const message = await settled(pair.a, id);
	expect(message.status).toBe("delivered");
	expect(message.mdnData?.micMatches).toBe(true);
	// Built whole before the POST: no separate MIC write (one commit less per message).
	expect(micUpdates).toBe(0);
	expect(micWhenReceived).toEqual([message.mic]);
});

/** Larger than pack()'s buffered path takes (64 KiB), so the body streams. */
function largePayload(): string {
	return "ISA*00*0123456789~".repeat(6000);
}
