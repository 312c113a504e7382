import { As2Error } from "@as2kit/core";
import type { BlobStore } from "@as2kit/core/store";

export interface RawBody {
	chunks: AsyncIterable<Uint8Array>;
	/** Lets go of the blob's file, however far the chunks were read. Never rejects. */
	release(): Promise<void>;
}

/**
 * A stored raw message as chunks, for a reader that may stop anywhere: unpack gives up at the
 * first thing wrong with hostile input without cancelling its input, and a file stream left so
 * kept its descriptor — and the disk space of the blob, deleted right after — until the process
 * ended (issue #16: ten garbage messages of 2 MB held ten descriptors and 20 MB).
 */
export async function openRawBody(blobs: BlobStore, key: string): Promise<RawBody> {
	const stream = await blobs.get(key);
	if (!stream) throw new As2Error("INTERNAL_ERROR", "the raw message is missing");
	const reader = stream.getReader();
	const release = () => reader.cancel().catch(() => {});
	const iterator: AsyncIterator<Uint8Array> = {
		next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
		return: async () => {
			await release();
			return { done: true, value: undefined };
		},
	};
	return { chunks: { [Symbol.asyncIterator]: () => iterator }, release };
}
