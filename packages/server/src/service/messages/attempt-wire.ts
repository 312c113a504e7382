import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { PassThrough } from "node:stream";
import type { BlobInfo, BlobStore, WireCapture } from "@as2kit/core/store";
import { bytesBody } from "./submit.ts";

/** Where one side of an attempt's exchange is kept: by month, so that retention removes whole months' keys cheaply. */
export function wireKey(at: Date, messageId: string, attempt: number, side: "request" | "response" | "mdn"): string {
	return `wire/${at.toISOString().slice(0, 7)}/${messageId}-${attempt}-${side}-${randomUUID()}`;
}

/**
 * A body being captured as it is sent: each chunk is handed to the blob store's stream with
 * backpressure (never held whole). Capture is best effort: a blob store that fails stops the
 * capture, never the send.
 */
export interface WireSink {
	write(chunk: Uint8Array): Promise<void>;
	/** Ends the capture (what was sent so far, when the send stopped early); null when it failed. */
	end(): Promise<BlobInfo | null>;
}

export function openWireSink(blobs: BlobStore, key: string): WireSink {
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
