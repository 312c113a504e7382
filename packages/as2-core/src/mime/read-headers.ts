import { type ByteReader, concatBytes } from "../bytes/index.ts";
import { As2Error } from "../errors/index.ts";
import { type MimeHeaders, parseHeaderBlock } from "./header.ts";

const CR = 0x0d;
const LF = 0x0a;

/** 64 KiB: far above any real AS2 header block, low enough that hostile input fails fast. */
export const DEFAULT_MAX_HEADER_BYTES = 64 * 1024;

export interface ReadHeaderBlockOptions {
	/** Largest header block accepted, blank line included (default 64 KiB). */
	maxBytes?: number;
}

/**
 * Reads a header block from `reader`, up to and including the blank line that ends it
 * (CRLF CRLF, or LF LF and mixes of both, which some AS2 products write), and leaves the body
 * in the reader. `raw` holds exactly the bytes consumed, so a caller hashing the entity can
 * feed them on. A body part with no fields starts with the blank line (empty headers); an
 * empty input, or one that ends right after a complete header line, is a part without a body
 * (RFC 2046 §5.1.1: `body-part := MIME-part-headers [CRLF *OCTET]`). A block longer than
 * `maxBytes` or cut inside a line is MALFORMED_MIME. Holds at most `maxBytes` plus the
 * reader's one chunk.
 *
 * @example
 * const reader = new ByteReader(body);
 * const { headers } = await readHeaderBlock(reader);
 * for await (const chunk of reader.rest()) consume(chunk);
 */
export async function readHeaderBlock(
	reader: ByteReader,
	opts: ReadHeaderBlockOptions = {},
): Promise<{ headers: MimeHeaders; raw: Uint8Array }> {
	const maxBytes = opts.maxBytes ?? DEFAULT_MAX_HEADER_BYTES;
	const scanner = new HeaderEndScanner();
	const parts: Uint8Array[] = [];
	let total = 0;
	for (;;) {
		if (total >= maxBytes) {
			throw new As2Error("MALFORMED_MIME", `MIME header block is longer than ${maxBytes} bytes`);
		}
		const chunk = await reader.readChunk(maxBytes - total);
		if (chunk === null) {
			if (total > 0 && !scanner.atLineStart) {
				throw new As2Error("MALFORMED_MIME", "MIME header block is cut off inside a header line");
			}
			break;
		}
		const end = scanner.push(chunk);
		if (end >= 0) {
			reader.unshift(chunk.subarray(end));
			parts.push(chunk.subarray(0, end));
			break;
		}
		parts.push(chunk);
		total += chunk.byteLength;
	}
	const raw = parts.length === 1 ? parts[0]! : concatBytes(parts);
	return { headers: parseHeaderBlock(raw), raw };
}

/**
 * Incremental search for the blank line ending a header block: bytes may arrive in any
 * split, including between the CR and the LF of a line end.
 */
export class HeaderEndScanner {
	/** Length of the line seen so far (across pushes). */
	#lineLength = 0;
	/** The line so far is a lone CR. */
	#lineIsCr = false;

	/** True when the bytes pushed so far end with a line end (or nothing was pushed). */
	get atLineStart(): boolean {
		return this.#lineLength === 0;
	}

	/** Offset in `bytes` just past the blank line, or -1 when it has not come yet. */
	push(bytes: Uint8Array): number {
		const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
		let lineStart = 0;
		for (let i = buf.indexOf(LF); i >= 0; i = buf.indexOf(LF, i + 1)) {
			const here = i - lineStart;
			const length = this.#lineLength + here;
			if (length === 0 || (length === 1 && (here === 1 ? buf[i - 1] === CR : this.#lineIsCr))) return i + 1;
			lineStart = i + 1;
			this.#lineLength = 0;
			this.#lineIsCr = false;
		}
		const tail = buf.byteLength - lineStart;
		if (tail > 0) {
			this.#lineIsCr = this.#lineLength + tail === 1 && buf[buf.byteLength - 1] === CR;
			this.#lineLength += tail;
		}
		return -1;
	}
}
