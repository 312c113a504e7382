import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BlobStore } from "@as2kit/core/store";
import { afterAll, describe, expect, it } from "vitest";
import { createFsBlobStore } from "../../src/blobs/fs-blob-store.ts";
import { openWireSink, partOf, teeInto } from "../../src/service/messages/attempt-wire.ts";
import { failingStore } from "../helpers/failing-blobs.ts";

const root = mkdtempSync(join(tmpdir(), "as2kit-attempt-exchange-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
// A file a blob (as before stop 33): these tests look at the files a capture makes, by the keys
// it asks for. Segment keys are segment-blobs.test.ts's, and callers keeping put's key
// blob-keys-chosen-by-store.test.ts's.
const blobs = createFsBlobStore(root, { segments: false });
const filled = (size: number) => new Uint8Array(randomBytes(size));
let keys = 0;

/** Sends `chunks` through a capture as the outbound POST does, then ends it with `answer`. */
async function exchange(store: BlobStore, chunks: Uint8Array[], answer: Uint8Array) {
	const n = ++keys;
	const sink = openWireSink(store, `wire/exchange/${n}-request`);
	async function* body() {
		yield* chunks;
	}
	for await (const _ of teeInto(body(), sink));
	return sink.endWith(answer, `wire/exchange/${n}-response`);
}

const streamOf = (chunks: Uint8Array[]) =>
	new ReadableStream<Uint8Array>({
		start(controller) {
			for (const chunk of chunks) controller.enqueue(chunk);
			controller.close();
		},
	});
const read = async (stream: ReadableStream<Uint8Array>) => {
	const parts: Uint8Array[] = [];
	const reader = stream.getReader();
	for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
	return Buffer.concat(parts);
};

describe("an exchange's capture", () => {
	it("keeps a held request and the answer in one blob, the answer after the request", async () => {
		const chunks = [filled(416), filled(2736), filled(16)];
		const answer = filled(3596);
		const { sent, answer: kept } = await exchange(blobs, chunks, answer);
		expect(sent).toEqual({ blobKey: sent?.blobKey, bytes: 3168, offset: 0 });
		expect(kept).toEqual({ blobKey: sent?.blobKey, bytes: 3596, offset: 3168 });
		expect(readFileSync(join(root, sent!.blobKey)).equals(Buffer.concat([...chunks, answer]))).toBe(true);
		expect(readdirSync(join(root, "wire/exchange")).filter((name) => name.startsWith(`${keys}-`))).toHaveLength(1);
	});

	it("keeps a streamed request and the answer in a blob each, whole", async () => {
		const chunks = [filled(200_000), filled(70_000)];
		const answer = filled(500);
		const { sent, answer: kept } = await exchange(blobs, chunks, answer);
		expect(sent).toEqual({ blobKey: `wire/exchange/${keys}-request`, bytes: 270_000 });
		expect(kept).toEqual({ blobKey: `wire/exchange/${keys}-response`, bytes: 500 });
		expect(readFileSync(join(root, kept!.blobKey)).equals(Buffer.from(answer))).toBe(true);
	});

	it("keeps nothing, and fails nothing, when the blob store fails", async () => {
		const failing: BlobStore = failingStore(blobs);
		expect(await exchange(failing, [filled(100)], filled(100))).toEqual({ sent: null, answer: null });
	});
});

describe("a part of a blob", () => {
	const chunks = [filled(10), filled(7), filled(1), filled(20)];
	const whole = Buffer.concat(chunks);
	it.each([
		[0, 38],
		[0, 10],
		[10, 8],
		[12, 3],
		[17, 21],
		[5, 0],
		[38, 0],
	])("from %i, %i bytes, across the chunks as they come", async (offset, length) => {
		expect((await read(partOf(streamOf(chunks), offset, length))).equals(whole.subarray(offset, offset + length))).toBe(
			true,
		);
	});

	it("ends early, with what there is, when the blob is shorter than the part", async () => {
		expect((await read(partOf(streamOf(chunks), 30, 20))).equals(whole.subarray(30))).toBe(true);
	});
});
