import { expect } from "vitest";
import { type UnpackedMessage, type UnpackOptions, unpack, unpackBuffered } from "../../src/as2/unpack.ts";
import { type ByteSource, type Chunks, chunksOf, collect } from "../../src/bytes/index.ts";
import { isAs2Error } from "../../src/errors/index.ts";

/**
 * pack() and unpack() each have two readers: a buffered one for small bodies held in memory
 * and a streaming one for everything else. These helpers run a message through both and
 * check they agree.
 */

/** The same bytes as a source that is not in memory (pack() reads one of up to BUFFERED_MAX_BYTES first). */
export function streamingSource(bytes: Uint8Array, chunkSize = 4096): ByteSource {
	return { size: bytes.byteLength, open: () => chunksOf(bytes, chunkSize) };
}

/** Everything unpack() says about a message, read through, in a comparable form. */
export type Outcome =
	| {
			ok: true;
			payload: string;
			payloadHeaders: Array<[string, string]>;
			contentType: string;
			filename?: string;
			layers: unknown;
			report: unknown;
	  }
	| { ok: false; code: string; message: string; at: "unpack" | "payload" };

export async function outcomeOf(read: () => Promise<UnpackedMessage>): Promise<Outcome> {
	let message: UnpackedMessage;
	try {
		message = await read();
	} catch (error) {
		return failure(error, "unpack");
	}
	try {
		const payload = await collect(message.payload);
		const report = await message.complete();
		return {
			ok: true,
			payload: Buffer.from(payload).toString("hex"),
			payloadHeaders: message.payloadHeaders.entries(),
			contentType: message.contentType,
			...(message.filename ? { filename: message.filename } : {}),
			layers: message.layers,
			report,
		};
	} catch (error) {
		return failure(error, "payload");
	}
}

function failure(error: unknown, at: "unpack" | "payload"): Outcome {
	if (!isAs2Error(error)) throw error;
	return { ok: false, code: error.code, message: error.message, at };
}

/** A body as a stream in chunks of `size` bytes: unpack() reads it with the streaming reader. */
export function streamed(body: Uint8Array, size = 64 * 1024): Chunks {
	return chunksOf(body, size);
}

/**
 * Unpacks `body` with the streaming reader (in odd-sized chunks, and in one 64 KiB-cut stream
 * as unpack's own fallback does) and with the buffered entry point, and expects the same
 * outcome, errors included. With `buffered: "required"` the buffered reader alone must read
 * the message, so a silent fallback cannot hide a gap in it. Returns the outcome.
 */
export async function unpackBothWays(
	options: Omit<UnpackOptions, "body">,
	body: Uint8Array,
	{ buffered = "required" }: { buffered?: "required" | "may-fall-back" } = {},
): Promise<Outcome> {
	const streamedOutcome = await outcomeOf(() => unpack({ ...options, body: streamed(body) }));
	const oddChunks = await outcomeOf(() => unpack({ ...options, body: streamed(body, 997) }));
	const bufferedOutcome = await outcomeOf(() => unpack({ ...options, body }));
	expect(bufferedOutcome).toEqual(streamedOutcome);
	if (streamedOutcome.ok) expect(oddChunks).toEqual(streamedOutcome);
	else expect(oddChunks).toMatchObject({ ok: false, code: streamedOutcome.code });
	if (buffered === "required") {
		const direct = await outcomeOf(async () => {
			const message = await unpackBuffered({ ...options, body });
			if (!message) throw new Error("the buffered reader gave up on this message");
			return message;
		});
		expect(direct).toEqual(streamedOutcome);
	}
	return streamedOutcome;
}
