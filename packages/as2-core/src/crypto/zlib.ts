import { pipeline, Readable } from "node:stream";
import { createDeflate, createInflate, deflateSync, inflateSync } from "node:zlib";
import type { Chunks } from "../bytes/index.ts";

/**
 * Streaming zlib (RFC 1950/1951) on node:zlib, several times faster than pako. zlib is not
 * cryptography, but node built-ins live under `src/crypto/` so another runtime can swap them.
 */

const ZLIB_CHUNK_SIZE = 64 * 1024;

/**
 * Deflates chunks into a zlib stream. The input is re-cut into fixed 64 KiB pieces so that
 * the output depends only on the bytes and the level, not on how the source chunks them
 * (a caller may compress twice and rely on identical output).
 */
export function deflateChunks(input: Chunks, options: { level?: number } = {}): Chunks {
	const deflate = createDeflate({ level: options.level ?? 6, chunkSize: ZLIB_CHUNK_SIZE });
	pipeline(Readable.from(fixedChunks(input, ZLIB_CHUNK_SIZE), { objectMode: false }), deflate, () => {});
	return deflate;
}

/** An inflating stream that reports how much compressed input zlib has consumed. */
export interface Inflation {
	readonly output: Chunks;
	/** Compressed bytes consumed by zlib so far (for output/input ratio checks). */
	readonly bytesIn: number;
}

export function inflateChunks(input: Chunks): Inflation {
	let bytesIn = 0;
	let stream: ReturnType<typeof createInflate> | undefined;
	async function* output(): Chunks {
		// Small messages (the common case) inflate in one synchronous call: a zlib stream
		// costs thread-pool round trips that dominate a 10 KB message. The output is capped,
		// so a bomb hidden in a small input still falls through to the guarded stream.
		const iterator = input[Symbol.asyncIterator]();
		const head: Uint8Array[] = [];
		let size = 0;
		let ended = false;
		while (size <= SMALL_INPUT_BYTES) {
			const next = await iterator.next();
			if (next.done) {
				ended = true;
				break;
			}
			head.push(next.value);
			size += next.value.byteLength;
		}
		if (ended) {
			const out = inflateSmall(head.length === 1 ? head[0]! : Buffer.concat(head));
			if (out) {
				bytesIn = size;
				if (out.byteLength > 0) yield out;
				return;
			}
		}
		const rest = async function* () {
			yield* head;
			if (!ended) for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
		};
		stream = createInflate({ chunkSize: ZLIB_CHUNK_SIZE });
		pipeline(Readable.from(rest(), { objectMode: false }), stream, () => {});
		yield* stream as AsyncIterable<Uint8Array>;
	}
	return {
		output: output(),
		get bytesIn() {
			return stream ? stream.bytesWritten : bytesIn;
		},
	};
}

const SMALL_INPUT_BYTES = 256 * 1024;
const SMALL_OUTPUT_BYTES = 8 * 1024 * 1024;

/**
 * One-shot inflate of a small zlib stream (what {@link inflateChunks} does with small
 * inputs), or undefined when the output would pass 8 MiB: then stream it with the guards.
 */
export function inflateSmall(input: Uint8Array): Uint8Array | undefined {
	try {
		const out = inflateSync(input, { maxOutputLength: SMALL_OUTPUT_BYTES });
		return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
	} catch (error) {
		if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") return undefined;
		throw error;
	}
}

/** One-shot deflate for small contents; same bytes as {@link deflateChunks} at the same level. */
export function deflateBytes(input: Uint8Array, options: { level?: number } = {}): Uint8Array {
	const level = options.level ?? 6;
	// The compressed stream does not depend on the size of zlib's output buffer, except when
	// storing (level 0): a small input gets a small buffer instead of 64 KiB per message.
	const chunkSize = level > 0 && input.byteLength <= ZLIB_CHUNK_SIZE ? SMALL_CHUNK_SIZE : ZLIB_CHUNK_SIZE;
	const out = deflateSync(input, { level, chunkSize });
	return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

const SMALL_CHUNK_SIZE = 16 * 1024;

async function* fixedChunks(input: Chunks, size: number): Chunks {
	let pending = new Uint8Array(size);
	let filled = 0;
	for await (const chunk of input) {
		let offset = 0;
		while (offset < chunk.byteLength) {
			const n = Math.min(size - filled, chunk.byteLength - offset);
			pending.set(chunk.subarray(offset, offset + n), filled);
			filled += n;
			offset += n;
			if (filled === size) {
				yield pending;
				// A fresh buffer: the consumer may still hold the one just yielded.
				pending = new Uint8Array(size);
				filled = 0;
			}
		}
	}
	if (filled > 0) yield pending.subarray(0, filled);
}
