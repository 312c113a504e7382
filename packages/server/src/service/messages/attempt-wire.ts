import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { PassThrough } from "node:stream";
import type { BlobInfo, BlobStore, WireCapture } from "@as2kit/core/store";
import { putBytes } from "../blob-bytes.ts";

/** Where one side of an attempt's exchange is kept: by month, so that retention removes whole months' keys cheaply. */
export function wireKey(at: Date, messageId: string, attempt: number, side: "request" | "response" | "mdn"): string {
	return `wire/${at.toISOString().slice(0, 7)}/${messageId}-${attempt}-${side}-${randomUUID()}`;
}

/** Where a captured body is kept: a whole blob, or a part of one (`offset`). */
export type CapturedBody = Omit<WireCapture, "head">;

/**
 * A body being captured as it is sent: a small one is held and stored at its end, a larger one
 * handed chunk by chunk to the blob store's stream with backpressure (never held whole).
 * Capture is best effort: a blob store that fails stops the capture, never the send.
 */
export interface WireSink {
	write(chunk: Uint8Array): Promise<void>;
	/** The body is over (sent, or the send stopped early): a streamed capture is completed now, a held one waits for `end`. */
	close(): void;
	/** Stores the capture (what was sent so far, when the send stopped early); null when it failed. */
	end(): Promise<BlobInfo | null>;
	/**
	 * Stores the capture and the exchange's answer, if any: a held body and the answer in one
	 * blob, the answer after the body (one file per exchange, not two: issue #20); a streamed
	 * body is completed and the answer stored on its own at `answerKey`.
	 */
	endWith(
		answer: Uint8Array | undefined,
		answerKey: string,
	): Promise<{ sent: CapturedBody | null; answer: CapturedBody | null }>;
}

/**
 * A body up to this size is held and stored in one call once it has been sent (an EDI message
 * is kilobytes); a larger one streams to the blob store as it is sent, never held whole.
 */
const HELD_CAPTURE_BYTES = 256 * 1024;

/**
 * Held, then stored in one `put` at the end, while the body stays under HELD_CAPTURE_BYTES;
 * streamed from the chunk that passes it on. A stream into the store for every capture cost
 * 6–12 µs more per message than one call (a PassThrough and its async iteration; issue #20).
 */
export function openWireSink(blobs: BlobStore, key: string): WireSink {
	let held: Uint8Array[] = [];
	let heldBytes = 0;
	let streaming: StreamingSink | null = null;
	let ended: Promise<BlobInfo | null> | null = null;
	/** Stores what was sent, with `after` behind it in the same blob when the body was held. */
	const end = (after?: Uint8Array) => {
		ended ??= streaming ? streaming.end() : putBytes(blobs, key, after ? [...held, after] : held).catch(() => null);
		held = [];
		return ended;
	};
	return {
		async write(chunk) {
			if (streaming) return streaming.write(chunk);
			held.push(chunk);
			heldBytes += chunk.byteLength;
			if (heldBytes <= HELD_CAPTURE_BYTES) return;
			streaming = openStreamingSink(blobs, key);
			const earlier = held;
			held = [];
			for (const piece of earlier) await streaming.write(piece);
		},
		close() {
			if (streaming) void end();
		},
		end: () => end(),
		async endWith(answer, answerKey) {
			if (!answer || ended || streaming) {
				const sent = await end();
				return {
					sent: sent && { blobKey: sent.key, bytes: sent.bytes },
					answer: answer ? await storeBody(blobs, answerKey, answer) : null,
				};
			}
			const sentBytes = heldBytes;
			return sharedBlob(await end(answer), sentBytes, answer.byteLength);
		},
	};
}

/** A sent body and the answer behind it in one blob (`both`; null when it could not be stored). */
function sharedBlob(
	both: BlobInfo | null,
	sentBytes: number,
	answerBytes: number,
): { sent: CapturedBody | null; answer: CapturedBody | null } {
	if (!both) return { sent: null, answer: null };
	return {
		sent: { blobKey: both.key, bytes: sentBytes, offset: 0 },
		answer: { blobKey: both.key, bytes: answerBytes, offset: sentBytes },
	};
}

type StreamingSink = Pick<WireSink, "write" | "end">;

function openStreamingSink(blobs: BlobStore, key: string): StreamingSink {
	const pass = new PassThrough();
	let failed = false;
	const stored = blobs.put(key, pass).catch(() => {
		failed = true;
		pass.destroy();
		return null;
	});
	return {
		async write(chunk) {
			if (failed || pass.destroyed) return;
			if (!pass.write(chunk)) await Promise.race([once(pass, "drain").catch(() => {}), stored]);
		},
		end() {
			if (!failed && !pass.writableEnded) pass.end();
			return stored;
		},
	};
}

/**
 * The chunks of `body`, each also written to `sink` before it is passed on; the capture ends
 * with the body, read through or abandoned (the connection failed, the lease was lost).
 */
export async function* teeInto(body: AsyncIterable<Uint8Array>, sink: WireSink): AsyncGenerator<Uint8Array> {
	try {
		for await (const chunk of body) {
			await sink.write(chunk);
			yield chunk;
		}
	} finally {
		sink.close();
	}
}

/** A body in memory as a blob of its own; null when the blob store failed. */
export async function storeBody(blobs: BlobStore, key: string, body: Uint8Array): Promise<CapturedBody | null> {
	const blob = await putBytes(blobs, key, [body]).catch(() => null);
	return blob && { blobKey: blob.key, bytes: blob.bytes };
}

/** A capture of a side whose body is already in memory (an answer, an MDN: a few kilobytes). */
export async function captureBytes(
	blobs: BlobStore,
	key: string,
	head: string,
	body: Uint8Array,
): Promise<WireCapture | null> {
	const stored = await storeBody(blobs, key, body);
	return stored && { head, ...stored };
}

/**
 * The head of a received request: its header fields as they came, and the empty line. Appended
 * field by field, not spread, mapped and joined (three arrays of a dozen fields; issue #20).
 */
function receivedHead(headers: Iterable<[string, string]>): string {
	let head = "";
	for (const [name, value] of headers) head += `${name}: ${value}\r\n`;
	return `${head}\r\n`;
}

/** A capture of a received request, its body in memory or in the blob the receiver stored (copied: that one is released). */
export async function captureReceived(
	blobs: BlobStore,
	key: string,
	headers: Iterable<[string, string]>,
	body: Uint8Array | { blobKey: string },
): Promise<WireCapture | null> {
	const head = receivedHead(headers);
	if (body instanceof Uint8Array) return captureBytes(blobs, key, head, body);
	const stream = await blobs.get(body.blobKey).catch(() => null);
	const blob = stream ? await blobs.put(key, stream).catch(() => null) : null;
	return blob ? { head, blobKey: blob.key, bytes: blob.bytes } : null;
}

/**
 * A received request and our answer to it: when the request's body is in memory, both bodies in
 * one blob, the answer's after the request's (one file per exchange, not two: issue #20);
 * otherwise the stored request copied (see captureReceived) and the answer on its own.
 */
export async function captureReceivedExchange(
	blobs: BlobStore,
	keys: { exchange: string; answer: string },
	request: { headers: Iterable<[string, string]>; body: Uint8Array | { blobKey: string } },
	answer: { head: string; body: Uint8Array },
): Promise<{ request: WireCapture | null; response: WireCapture | null }> {
	if (!(request.body instanceof Uint8Array)) {
		return {
			request: await captureReceived(blobs, keys.exchange, request.headers, request.body),
			response: await captureBytes(blobs, keys.answer, answer.head, answer.body),
		};
	}
	let stored: { sent: CapturedBody | null; answer: CapturedBody | null };
	if (request.body.byteLength > HELD_CAPTURE_BYTES) {
		const sink = openWireSink(blobs, keys.exchange);
		await sink.write(request.body);
		stored = await sink.endWith(answer.body, keys.answer);
	} else {
		// What a sink holding the request stores (one `put`, the answer after the request),
		// without the sink: its closures and two async steps per message (issue #20, stop 34).
		const both = await putBytes(blobs, keys.exchange, [request.body, answer.body]).catch(() => null);
		stored = sharedBlob(both, request.body.byteLength, answer.body.byteLength);
	}
	return {
		request: stored.sent && { head: receivedHead(request.headers), ...stored.sent },
		response: stored.answer && { head: answer.head, ...stored.answer },
	};
}

/** The blobs that keep `captures`, each once (a request and its answer may share one). */
export function capturedBlobs(captures: readonly (CapturedBody | null)[]): Set<string> {
	return new Set(captures.flatMap((capture) => (capture ? [capture.blobKey] : [])));
}

/**
 * `length` bytes of `stream` from `offset`: a part of a blob that holds more than one body (a
 * wire capture's request and its answer share one blob). Reads no further than the part's end
 * and lets go of the rest; a blob shorter than the part ends the part early.
 */
export function partOf(stream: ReadableStream<Uint8Array>, offset: number, length: number): ReadableStream<Uint8Array> {
	const reader = stream.getReader();
	let skip = offset;
	let left = length;
	return new ReadableStream<Uint8Array>({
		async pull(controller) {
			while (left > 0) {
				const { done, value } = await reader.read();
				if (done) break;
				const from = Math.min(skip, value.byteLength);
				skip -= from;
				if (from === value.byteLength) continue;
				const part = value.subarray(from, from + Math.min(left, value.byteLength - from));
				left -= part.byteLength;
				controller.enqueue(part);
				return;
			}
			controller.close();
			await reader.cancel().catch(() => {});
		},
		cancel: (reason) => reader.cancel(reason).catch(() => {}),
	});
}
