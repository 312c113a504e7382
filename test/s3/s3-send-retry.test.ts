/**
 * Issue #18, section 5: an outbound message whose payload cannot be read from S3 at the moment
 * (S3 refusing, a timeout) is tried again later, like a partner that cannot be reached, rather
 * than failed for good: S3's blips are transient.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addPartner, type Peer, sendMessage, settled, startPeer } from "../../packages/server/test/helpers/peers.ts";
import { createTestPki, type TestPki } from "../../packages/server/test/helpers/tls.ts";
import { type S3TestServer, s3Env, startS3Server } from "./s3-server.ts";

let s3: S3TestServer;
let pki: TestPki;
let sender: Peer;
let receiver: Peer;

beforeAll(async () => {
	s3 = await startS3Server();
	pki = createTestPki();
	sender = await startPeer("Sender", pki, { ...s3Env(s3, "sender"), AS2_SEND_RETRY_DELAYS: "0,1,1,1" });
	receiver = await startPeer("Receiver", pki);
});
afterAll(async () => {
	await sender?.server.close();
	await receiver?.server.close();
	await s3?.stop();
	if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

describe("a payload S3 cannot serve for a moment", () => {
	it("is sent again after the retry delay, and delivered", async () => {
		const partnerId = await addPartner(sender, receiver, pki, { mdn_mode: "sync" });
		await addPartner(receiver, sender, pki);
		// Every attempt (the SDK's three) of the first read of the payload is refused; the upload
		// itself (PUT) goes through.
		let refused = 0;
		s3.fault = (method) => (method === "HEAD" && refused++ < 3 ? { kind: "error" } : null);
		// Scheduled a moment ahead, so its send job reads the payload from S3: the first run of a
		// message sent at once takes the bytes its submission held in memory (held-payloads.ts).
		const id = await sendMessage(sender, partnerId, { scheduled_at: new Date(Date.now() + 500).toISOString() });
		const message = await settled(sender, id);
		expect(refused).toBeGreaterThanOrEqual(3);
		expect(message.status).toBe("delivered");
		expect(message.attempts).toBeGreaterThanOrEqual(2);
	});
});
