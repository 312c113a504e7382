import type { Chunks } from "./byte-source.ts";
import { concatBytes } from "./bytes.ts";

/**
 * A pull reader over a chunk stream with a small look-ahead buffer: the base of the
 * streaming BER and MIME parsers. It never holds more than what a caller asked to see
 * plus one upstream chunk.
 */
export class ByteReader {
	#iterator: AsyncIterator<Uint8Array>;
	#chunks: Uint8Array[] = [];
	#buffered = 0;
	#done = false;
	/** Bytes consumed so far (read, skipped or streamed out). */
	position = 0;

	constructor(source: Chunks) {
		this.#iterator = source[Symbol.asyncIterator]();
	}

	get buffered(): number {
		return this.#buffered;
	}

	/** Buffers until `n` bytes are available or the stream ends; returns what is available. */
	async fill(n: number): Promise<number> {
		while (this.#buffered < n && !this.#done) {
			const next = await this.#iterator.next();
			if (next.done) {
				this.#done = true;
				break;
			}
			if (next.value.byteLength === 0) continue;
			this.#chunks.push(next.value);
			this.#buffered += next.value.byteLength;
		}
		return Math.min(this.#buffered, n);
	}

	/** True when nothing is buffered and the upstream has ended. */
	async atEnd(): Promise<boolean> {
		return (await this.fill(1)) === 0;
	}

	/** The next `n` bytes without consuming them (fewer at end of stream). */
	async peek(n: number): Promise<Uint8Array> {
		const available = await this.fill(n);
		return this.#view(available, false);
	}

	/** Exactly `n` bytes; throws `onShort()` (or an Error) when the stream ends first. */
	async read(n: number, onShort?: () => Error): Promise<Uint8Array> {
		const available = await this.fill(n);
		if (available < n) throw onShort ? onShort() : new Error(`unexpected end of data: wanted ${n}, had ${available}`);
		return this.#view(n, true);
	}

	/** Up to `max` bytes, preferring what is already buffered; null at end of stream. */
	async readChunk(max = Number.POSITIVE_INFINITY): Promise<Uint8Array | null> {
		if (this.#buffered === 0 && (await this.fill(1)) === 0) return null;
		const first = this.#chunks[0]!;
		const n = Math.min(first.byteLength, max);
		return this.#view(n, true);
	}

	/** Streams exactly `n` bytes out in chunks. */
	async *take(n: number, onShort?: () => Error): Chunks {
		let left = n;
		while (left > 0) {
			const chunk = await this.readChunk(left);
			if (chunk === null) throw onShort ? onShort() : new Error(`unexpected end of data: ${left} bytes missing`);
			left -= chunk.byteLength;
			yield chunk;
		}
	}

	/** Streams everything that is left. */
	async *rest(): Chunks {
		for (;;) {
			const chunk = await this.readChunk();
			if (chunk === null) return;
			yield chunk;
		}
	}

	/** Puts bytes back in front (used by scanners that over-read). */
	unshift(bytes: Uint8Array): void {
		if (bytes.byteLength === 0) return;
		this.#chunks.unshift(bytes);
		this.#buffered += bytes.byteLength;
		this.position -= bytes.byteLength;
	}

	/** Finds `needle` in the look-ahead, buffering at most `limit` bytes; -1 if absent. */
	async indexOf(needle: Uint8Array, limit: number): Promise<number> {
		let want = Math.min(limit, Math.max(needle.byteLength, 4096));
		let from = 0;
		for (;;) {
			const available = await this.fill(want);
			const at = indexOfBytes(this.#view(available, false), needle, from);
			if (at >= 0) return at;
			if (available < want || available >= limit) return -1;
			from = Math.max(0, available - needle.byteLength + 1);
			want = Math.min(limit, available * 2);
		}
	}

	async return(): Promise<void> {
		await this.#iterator.return?.();
	}

	#view(n: number, consume: boolean): Uint8Array {
		if (n === 0) return new Uint8Array(0);
		const first = this.#chunks[0]!;
		let out: Uint8Array;
		if (first.byteLength >= n) {
			out = first.subarray(0, n);
		} else {
			const parts: Uint8Array[] = [];
			let left = n;
			for (const c of this.#chunks) {
				if (left === 0) break;
				const piece = c.byteLength <= left ? c : c.subarray(0, left);
				parts.push(piece);
				left -= piece.byteLength;
			}
			out = concatBytes(parts);
			if (!consume) {
				// Coalesce so repeated peeks do not copy again.
				const rest = this.#chunks.splice(0, parts.length);
				const tail = rest[rest.length - 1]!;
				const leftover = tail.subarray(parts[parts.length - 1]!.byteLength);
				this.#chunks.unshift(out);
				if (leftover.byteLength > 0) this.#chunks.splice(1, 0, leftover);
			}
		}
		if (consume) this.#consume(n);
		return out;
	}

	#consume(n: number): void {
		let left = n;
		while (left > 0) {
			const c = this.#chunks[0]!;
			if (c.byteLength <= left) {
				this.#chunks.shift();
				left -= c.byteLength;
			} else {
				this.#chunks[0] = c.subarray(left);
				left = 0;
			}
		}
		this.#buffered -= n;
		this.position += n;
	}
}

/** Index of `needle` in `haystack` from `from`, or -1. */
export function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
	return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).indexOf(needle, from);
}
