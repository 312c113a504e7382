import type { BlobStore } from "@as2kit/core/store";

/** `blobs` whose every write fails as a full disk would: `put`, and `putBytes` for bytes in memory. */
export function failingStore(blobs: BlobStore): BlobStore {
	const full = async () => Promise.reject(new Error("disk full"));
	return { ...blobs, put: full, putBytes: full };
}
