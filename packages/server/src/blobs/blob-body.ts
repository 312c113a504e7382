import { As2Error } from "@as2kit/core";

/**
 * The chunks of a `BlobStore.put` body — a web stream (through its reader) or an async
 * iterable — with a way to give up early (`cancel`) and to let go of the source once done
 * (`release`). Every adapter reads its body through this, so each lets go of it the same way.
 */
export function chunksOf(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>) {
	if ("getReader" in body) {
		const reader = body.getReader();
		return {
			next: () => reader.read(),
			cancel: () => reader.cancel().catch(() => {}),
			release: () => reader.releaseLock(),
		};
	}
	const iterator = body[Symbol.asyncIterator]();
	return {
		next: () => iterator.next(),
		cancel: async () => {
			await iterator.return?.().catch(() => {});
		},
		release: () => {},
	};
}

/** The `maxBytes` refusal of `BlobStore.put`, the same from every adapter. */
export function payloadTooLarge(maxBytes: number): As2Error {
	return new As2Error("PAYLOAD_TOO_LARGE", `the payload exceeds ${maxBytes} bytes`, {
		details: { max_bytes: maxBytes },
	});
}

/** Parts in memory as a `put` body, none copied (`putBytes` past what it writes at once). */
export async function* partsBody(parts: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
	for (const part of parts) if (part.byteLength > 0) yield part;
}
