/**
 * Payload bytes live outside the database, streamed in and out, never whole in memory
 * (DESIGN.md, Streaming). The filesystem implementation is the default; an S3-compatible
 * store fits the same port.
 */
export interface BlobStore {
	/**
	 * Streams `body` into a new blob, visible only once complete, and returns its `BlobInfo`,
	 * whose `key` is the key to read, stat and delete the blob by from then on. The `key` asked
	 * for is a name hint: a store may keep it (the S3 store does) or choose another (the
	 * filesystem store keys a small blob by where it appended it). Callers keep and use the
	 * returned key, never the one they asked for. With `maxBytes`,
	 * fails with As2Error("PAYLOAD_TOO_LARGE") as soon as the limit is crossed, keeping nothing.
	 * `body` is a web stream or any async iterable of chunks (a Node readable, a generator).
	 */
	put(
		key: string,
		body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
		options?: { maxBytes?: number },
	): Promise<BlobInfo>;
	/**
	 * The same as `put` of `parts` one after the other, for bytes already in memory (a
	 * submission's payload, a captured exchange). Optional: a store without it is written through
	 * `put`. A body of chunks in memory passed through an async generator and the store's awaited
	 * reads, a handful of promises a blob and two blobs a message on each side (issue #20).
	 */
	putBytes?(key: string, parts: readonly Uint8Array[], options?: { maxBytes?: number }): Promise<BlobInfo>;
	/** The blob's bytes, or null when there is none. */
	get(key: string): Promise<ReadableStream<Uint8Array> | null>;
	/**
	 * The same bytes as `get`, as chunks without a web stream, or null when there is none.
	 * Optional: a store without it is read through `get`. A web stream per read cost the
	 * sender some 4 KB of heap a message, and releasing its reader a stack trace (issue #20).
	 */
	chunks?(key: string): Promise<AsyncIterable<Uint8Array> | null>;
	stat(key: string): Promise<BlobInfo | null>;
	delete(key: string): Promise<void>;
}

export interface BlobInfo {
	/** The key to read, stat and delete the blob by: `put`'s choice, not necessarily the key it was asked for. */
	key: string;
	bytes: number;
	/** Hex SHA-256 of the bytes. */
	sha256: string;
}
