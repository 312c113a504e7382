import type { BlobInfo, BlobStore } from "@as2kit/core/store";

/**
 * Stores bytes already in memory as one blob, `parts` one after the other: through the store's
 * `putBytes` when it has one (the fs store appends them to its segment at once), else through
 * `put` over the parts (the BlobStore port). A payload submitted, an exchange captured: two
 * blobs a message on each side, each of which went through an async generator (issue #20).
 */
export function putBytes(
	blobs: BlobStore,
	key: string,
	parts: readonly Uint8Array[],
	options?: { maxBytes?: number },
): Promise<BlobInfo> {
	return blobs.putBytes ? blobs.putBytes(key, parts, options) : blobs.put(key, chunksBody(parts), options);
}

/** Chunks already in memory as a blob body, none copied. */
export async function* chunksBody(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
	for (const chunk of chunks) if (chunk.byteLength > 0) yield chunk;
}
