import { collect, concatBytes } from "./bytes.ts";

/**
 * Streaming currency of as2-core. Internally layers pass `Chunks` (async iterables of bytes);
 * a `ByteSource` is a re-openable stream of known size, which lets a layer write DER with
 * lengths computed ahead (RFC 5652 §1.2) and still stream.
 */
export type Chunks = AsyncIterable<Uint8Array>;

export interface ByteSource {
	/** Exact number of bytes `open()` yields. */
	readonly size: number;
	/** A fresh pass over the bytes; may be called more than once. */
	open(): Chunks;
	/** The bytes themselves, when the source is an array in memory (see {@link bufferedBytes}). */
	readonly bytes?: Uint8Array;
}

/**
 * Bodies up to this size that are already in memory take the buffered path: each layer
 * (MIME, CMS, MIC) works on the whole array in one synchronous step instead of streaming
 * it. Larger ones stream, so memory stays bounded whatever the payload size.
 */
export const BUFFERED_MAX_BYTES = 64 * 1024;

export function sourceFromBytes(bytes: Uint8Array): ByteSource {
	return {
		size: bytes.byteLength,
		bytes,
		async *open() {
			if (bytes.byteLength > 0) yield bytes;
		},
	};
}

/** A source's bytes when it is in memory and small enough for the buffered path; else undefined. */
export function bufferedBytes(source: ByteSource): Uint8Array | undefined {
	return source.bytes !== undefined && source.size <= BUFFERED_MAX_BYTES ? source.bytes : undefined;
}

/**
 * Concatenation of byte arrays and sources; its size is the sum. When every part is in
 * memory and the whole is small, so is the result (one array).
 */
export function concatSources(parts: ReadonlyArray<Uint8Array | ByteSource>): ByteSource {
	const sources = parts.map((p) => (p instanceof Uint8Array ? sourceFromBytes(p) : p));
	const buffered = sources.map(bufferedBytes);
	if (buffered.every((b) => b !== undefined) && buffered.reduce((n, b) => n + b.byteLength, 0) <= BUFFERED_MAX_BYTES) {
		return sourceFromBytes(concatBytes(buffered));
	}
	return {
		size: sources.reduce((n, s) => n + s.size, 0),
		async *open() {
			for (const source of sources) yield* source.open();
		},
	};
}

/**
 * A small source read into memory (checked against its declared size), so that every layer
 * after it takes the buffered path: one synchronous step per layer instead of a chain of
 * async generators and a second signing pass. A source in memory or over
 * {@link BUFFERED_MAX_BYTES} is returned as it is: memory stays bounded.
 */
export async function inMemoryIfSmall(source: ByteSource): Promise<ByteSource> {
	if (source.bytes !== undefined || source.size > BUFFERED_MAX_BYTES) return source;
	return sourceFromBytes(await collect(checkedOpen(source)));
}

/** Checks that a source yields exactly its declared size, so DER lengths written ahead stay true. */
export async function* checkedOpen(source: ByteSource): Chunks {
	let seen = 0;
	for await (const chunk of source.open()) {
		seen += chunk.byteLength;
		if (seen > source.size) throw new Error(`source yielded more than its declared ${source.size} bytes`);
		yield chunk;
	}
	if (seen !== source.size) throw new Error(`source yielded ${seen} bytes, declared ${source.size}`);
}

export async function* chunksOf(bytes: Uint8Array, size = 64 * 1024): Chunks {
	for (let i = 0; i < bytes.byteLength; i += size) yield bytes.subarray(i, i + size);
}

export function toReadableStream(chunks: Chunks): ReadableStream<Uint8Array> {
	const iterator = chunks[Symbol.asyncIterator]();
	return new ReadableStream<Uint8Array>(
		{
			async pull(controller) {
				try {
					const next = await iterator.next();
					if (next.done) controller.close();
					else controller.enqueue(next.value);
				} catch (error) {
					controller.error(error);
				}
			},
			async cancel(reason) {
				await iterator.return?.(reason);
			},
		},
		{ highWaterMark: 0 },
	);
}

/** Web stream or async iterable → Chunks. Node's ReadableStream is async-iterable. */
export function toChunks(input: ReadableStream<Uint8Array> | Chunks | Uint8Array): Chunks {
	if (input instanceof Uint8Array) return chunksOf(input);
	return input as Chunks;
}
