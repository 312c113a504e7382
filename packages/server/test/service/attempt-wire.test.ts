import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BlobStore } from "@as2kit/core/store";
import { afterAll, describe, expect, it } from "vitest";
import { createFsBlobStore } from "../../src/blobs/fs-blob-store.ts";
import { captureReceivedExchange, openWireSink, teeInto } from "../../src/service/messages/attempt-wire.ts";
import { failingStore } from "../helpers/failing-blobs.ts";

const root = mkdtempSync(join(tmpdir(), "as2kit-attempt-wire-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
// A file a blob (as before stop 33): these tests look at the files a capture makes, by the keys
// it asks for. Segment keys are segment-blobs.test.ts's, and callers keeping put's key
// blob-keys-chosen-by-store.test.ts's.
const blobs = createFsBlobStore(root, { segments: false });
let keys = 0;

/** Sends `chunks` through a capture as the outbound POST does; answers what was sent and what was stored. */
async function sendThrough(store: BlobStore, chunks: Uint8Array[]) {
	const key = `wire/test/${++keys}`;
	const sink = openWireSink(store, key);
	const sent: Uint8Array[] = [];
	async function* body() {
		yield* chunks;
	}
	for await (const chunk of teeInto(body(), sink)) sent.push(chunk);
	return { key, sent: Buffer.concat(sent), stored: await sink.end() };
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
/** Distinct bytes, so that a chunk out of place or lost shows. */
const filled = (size: number) => new Uint8Array(randomBytes(size));

describe("an outbound attempt's request capture", () => {
	it.each([
		["an empty body", []],
		["a small body in three chunks, as a 10 KB message is sent", [filled(416), filled(2736), filled(16)]],
		["a body just over the held size, streamed from then on", [filled(200_000), filled(70_000), filled(9)]],
		["a body of 1 MiB in 64 KiB chunks", Array.from({ length: 16 }, () => filled(64 * 1024))],
	])("stores exactly what was sent: %s", async (_, chunks) => {
		const { key, sent, stored } = await sendThrough(blobs, chunks);
		// Digests, not the bytes: a deep equality of a megabyte takes seconds.
		expect(sha256(sent)).toBe(sha256(Buffer.concat(chunks)));
		expect(stored).toEqual({ key, bytes: sent.byteLength, sha256: sha256(sent) });
		expect(sha256(readFileSync(join(root, key)))).toBe(sha256(sent));
	});

	it("gives the same capture to both ends of the send, stored once", async () => {
		const sink = openWireSink(blobs, "wire/test/twice");
		await sink.write(filled(100));
		const [first, second] = await Promise.all([sink.end(), sink.end()]);
		expect(second).toBe(first);
		expect(readdirSync(join(root, "wire/test")).filter((name) => name.startsWith("twice"))).toEqual(["twice"]);
	});

	it.each([
		["small", [filled(3000)]],
		["large", [filled(200_000), filled(200_000)]],
	])("lets a %s body through when the blob store fails, with no capture", async (_, chunks) => {
		const failing: BlobStore = failingStore(blobs);
		const { sent, stored } = await sendThrough(failing, chunks);
		expect(sha256(sent)).toBe(sha256(Buffer.concat(chunks)));
		expect(stored).toBeNull();
	});
});

describe("a received exchange's capture", () => {
	it("keeps the request's fields as they came and the answer's head as given, both bodies in one blob", async () => {
		const request = filled(3168);
		const answer = filled(3596);
		const head = "HTTP/1.1 200 OK\r\nAS2-Version: 1.0\r\nContent-Type: multipart/signed\r\n\r\n";
		const { request: sent, response } = await captureReceivedExchange(
			blobs,
			{ exchange: "wire/test/received", answer: "wire/test/received-answer" },
			{
				headers: [
					["as2-from", "ALPHA"],
					["content-type", 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"'],
					["message-id", "<1@alpha>"],
				],
				body: request,
			},
			{ head, body: answer },
		);
		expect(sent).toEqual({
			head: `as2-from: ALPHA\r\ncontent-type: application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"\r\nmessage-id: <1@alpha>\r\n\r\n`,
			blobKey: "wire/test/received",
			bytes: 3168,
			offset: 0,
		});
		expect(response).toEqual({ head, blobKey: "wire/test/received", bytes: 3596, offset: 3168 });
		const stored = readFileSync(join(root, "wire/test/received"));
		expect(sha256(stored)).toBe(sha256(Buffer.concat([request, answer])));
	});

	it("keeps no capture of either side when the blob store fails (best effort)", async () => {
		const failing: BlobStore = failingStore(blobs);
		const captured = await captureReceivedExchange(
			failing,
			{ exchange: "wire/test/failing", answer: "wire/test/failing-answer" },
			{ headers: [["as2-from", "ALPHA"]], body: filled(3168) },
			{ head: "HTTP/1.1 200 OK\r\n\r\n", body: filled(100) },
		);
		expect(captured).toEqual({ request: null, response: null });
	});
});
