import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { PassThrough } from "node:stream";
import { concatBytes } from "@as2kit/core";
import type { BlobInfo, BlobStore, WireCapture } from "@as2kit/core/store";
import { bytesBody } from "./submit.ts";

/** Where one side of an attempt's exchange is kept: by month, so that retention removes whole months' keys cheaply. */
export function wireKey(at: Date, messageId: string, attempt: number, side: "request" | "response" | "mdn"): string {
	return `wire/${at.toISOString().slice(0, 7)}/${messageId}-${attempt}-${side}-${randomUUID()}`;
}

/**
 * A body being captured as it is sent: a small one is held and stored at its end, a larger one
 * handed chunk by chunk to the blob store's stream with backpressure (never held whole).
 * Capture is best effort: a blob store that fails stops the capture, never the send.
 */
export interface WireSink {
	write(chunk: Uint8Array): Promise<void>;
	/** Ends the capture (what was sent so far, when the send stopped early); null when it failed. */
	end(): Promise<BlobInfo | null>;
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
	let streaming: WireSink | null = null;
	let ended: Promise<BlobInfo | null> | null = null;
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
		end() {
			ended ??= streaming ? streaming.end() : blobs.put(key, bytesBody(concatBytes(held))).catch(() => null);
			held = [];
			return ended;
		},
	};
}

function openStreamingSink(blobs: BlobStore, key: string): WireSink {
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
		void sink.end();
	}
}

/** A capture of a side whose body is already in memory (an answer, an MDN: a few kilobytes). */
export async function captureBytes(
	blobs: BlobStore,
	key: string,
	head: string,
	body: Uint8Array,
): Promise<WireCapture | null> {
	try {
		const blob = await blobs.put(key, bytesBody(body));
		return { head, blobKey: blob.key, bytes: blob.bytes };
	} catch {
		return null;
	}
}

/** A capture of a received request, its body in memory or in the blob the receiver stored (copied: that one is released). */
export async function captureReceived(
	blobs: BlobStore,
	key: string,
	headers: Iterable<[string, string]>,
	body: Uint8Array | { blobKey: string },
): Promise<WireCapture | null> {
	const head = `${[...headers].map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`;
	if (body instanceof Uint8Array) return captureBytes(blobs, key, head, body);
	const stream = await blobs.get(body.blobKey).catch(() => null);
	const blob = stream ? await blobs.put(key, stream).catch(() => null) : null;
	return blob ? { head, blobKey: blob.key, bytes: blob.bytes } : null;
}
