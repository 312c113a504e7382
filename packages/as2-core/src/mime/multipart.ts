import { ByteReader, type Chunks, concatBytes, toHex } from "../bytes/index.ts";
import { randomBytes } from "../crypto/index.ts";
import { As2Error } from "../errors/index.ts";

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const SPACE = 0x20;
const TAB = 0x09;
const EMPTY = new Uint8Array(0);

/** Longest run of transport padding accepted on a delimiter line (RFC 2046 §5.1.1). */
export const MAX_PADDING = 1024;
/** RFC 2046 §5.1.1 caps boundaries at 70 chars; some senders go beyond, so allow some slack. */
const MAX_BOUNDARY_LENGTH = 256;

export interface MultipartPart {
	/** 0-based position of the part in the body. */
	index: number;
	/**
	 * The exact bytes of the part: from after the line end of its delimiter line up to, not
	 * including, the line end before the next delimiter (RFC 2046 §5.1.1). These are the bytes
	 * a multipart/signed signature and the AS2 MIC cover (RFC 1847 §2.1, RFC 4130 §7.3.1).
	 * Can be iterated once, before the next part is requested.
	 */
	raw: Chunks;
}

export interface ReadMultipartOptions {
	/** More parts than this is MALFORMED_MIME (default 1000). */
	maxParts?: number;
	/** Longest preamble skipped before the first delimiter (default 1 MiB). */
	maxPreambleBytes?: number;
}

/**
 * Streams the parts of a multipart body (RFC 2046 §5.1). Each part must be read before the next
 * is requested; a part left unread is drained when the iteration moves on. Preamble and
 * epilogue are dropped. Tolerates a first delimiter at the very start of the body, transport
 * padding after a delimiter, LF-only line ends around delimiters and a non-empty epilogue. A
 * body without a delimiter, without parts, or ending before the close delimiter is
 * MALFORMED_MIME. Holds at most about one chunk plus the boundary length.
 *
 * @example
 * for await (const part of readMultipart(body, contentType.params.boundary!)) {
 *   const reader = new ByteReader(part.raw);
 *   const { headers } = await readHeaderBlock(reader);
 *   for await (const chunk of reader.rest()) consume(headers, chunk);
 * }
 */
export function readMultipart(
	body: Chunks,
	boundary: string,
	opts: ReadMultipartOptions = {},
): AsyncIterable<MultipartPart> {
	checkBoundary(boundary);
	return iterateParts(
		new DelimiterScanner(new ByteReader(body), boundary),
		opts.maxParts ?? 1000,
		opts.maxPreambleBytes ?? 1 << 20,
	);
}

/** MALFORMED_MIME unless `boundary` is one we can search for (RFC 2046 §5.1.1, with some slack). */
export function checkBoundary(boundary: string): void {
	if (boundary.length === 0 || boundary.length > MAX_BOUNDARY_LENGTH || /[^\x20-\x7e\x80-\xff]/.test(boundary)) {
		throw new As2Error("MALFORMED_MIME", `invalid multipart boundary ${JSON.stringify(boundary.slice(0, 80))}`);
	}
}

/**
 * A fresh boundary: 16 random bytes in hex behind `----=_as2kit_`. "=_" can occur neither in
 * base64 nor in quoted-printable text, so the boundary cannot collide with encoded content
 * (RFC 2045 §6.7 note, RFC 2046 §5.1.1).
 */
export function multipartBoundary(): string {
	return `----=_as2kit_${toHex(randomBytes(16))}`;
}

async function* iterateParts(
	scanner: DelimiterScanner,
	maxParts: number,
	maxPreambleBytes: number,
): AsyncGenerator<MultipartPart> {
	try {
		let preamble = 0;
		for (let data = await scanner.next(); data !== null; data = await scanner.next()) {
			preamble += data.byteLength;
			if (preamble > maxPreambleBytes + 1) {
				throw new As2Error("MALFORMED_MIME", `no multipart delimiter within the first ${maxPreambleBytes} bytes`);
			}
		}
		// RFC 2046 §5.1.1: a multipart body has at least one body part.
		if (scanner.closed()) throw new As2Error("MALFORMED_MIME", "multipart body has no parts");
		for (let index = 0; ; index++) {
			if (index >= maxParts) throw new As2Error("MALFORMED_MIME", `multipart body has more than ${maxParts} parts`);
			scanner.beginPart();
			const part = new PartStream(scanner);
			yield { index, raw: part.chunks() };
			await part.drain();
			if (scanner.closed()) break;
		}
		await scanner.drainEpilogue();
	} finally {
		await scanner.close();
	}
}

/** One part's bytes, readable once; drained by the iteration if the consumer stops early. */
class PartStream {
	#scanner: DelimiterScanner;
	#done = false;

	constructor(scanner: DelimiterScanner) {
		this.#scanner = scanner;
	}

	async *chunks(): AsyncGenerator<Uint8Array> {
		while (!this.#done) {
			const data = await this.#scanner.next();
			if (data === null) {
				this.#done = true;
				return;
			}
			yield data;
		}
	}

	async drain(): Promise<void> {
		while (!this.#done) if ((await this.#scanner.next()) === null) this.#done = true;
	}
}

/**
 * Finds delimiters (`CRLF--boundary`, or `LF--boundary`) in a chunk stream without copying the
 * chunks: data before a delimiter comes out as views of the input. Only a short tail that
 * could start a delimiter split across chunks is held back.
 */
class DelimiterScanner {
	readonly #reader: ByteReader;
	/** `LF--boundary`: the CR before the LF is optional (bare-LF senders). */
	readonly #needle: Uint8Array;
	readonly #boundary: string;
	/** Held-back tail of earlier input that may begin a delimiter. */
	#carry: Uint8Array;
	#queue: Uint8Array[] = [];
	#inPreamble = true;
	/** What ended the current run of data. */
	#found: "none" | "delimiter" | "close" = "none";

	constructor(reader: ByteReader, boundary: string) {
		this.#reader = reader;
		this.#boundary = boundary;
		this.#needle = new Uint8Array(Buffer.from(`\n--${boundary}`, "latin1"));
		// The body may open with the delimiter itself: start as if after a line end.
		this.#carry = Uint8Array.of(LF);
	}

	/** True once the close delimiter has been read. */
	closed(): boolean {
		return this.#found === "close";
	}

	beginPart(): void {
		this.#found = "none";
		this.#inPreamble = false;
		this.#carry = EMPTY;
	}

	/** Next data before the delimiter; null once the delimiter line has been consumed. */
	async next(): Promise<Uint8Array | null> {
		for (;;) {
			const queued = this.#queue.shift();
			if (queued) return queued;
			if (this.#found !== "none") return null;
			await this.#step();
		}
	}

	async drainEpilogue(): Promise<void> {
		this.#carry = EMPTY;
		for await (const _ of this.#reader.rest());
	}

	async close(): Promise<void> {
		await this.#reader.return();
	}

	async #step(): Promise<void> {
		const chunk = await this.#reader.readChunk();
		if (chunk === null) {
			throw new As2Error(
				"MALFORMED_MIME",
				this.#inPreamble
					? `multipart body does not contain the boundary ${JSON.stringify(this.#boundary)}`
					: `multipart body ends without the close delimiter --${this.#boundary}--`,
			);
		}
		const carry = this.#carry;
		const c = carry.byteLength;
		const needle = this.#needle;
		const at = (x: number): number => (x < c ? carry[x]! : chunk[x - c]!);
		let match = -1;
		if (c > 0) {
			// A delimiter that starts in the held-back tail and ends in this chunk.
			const window = concatBytes([carry, chunk.subarray(0, needle.byteLength - 1)]);
			const hit = view(window).indexOf(needle);
			if (hit >= 0 && hit < c) match = hit;
		}
		if (match < 0) {
			const hit = view(chunk).indexOf(needle);
			if (hit >= 0) match = c + hit;
		}
		const total = c + chunk.byteLength;
		if (match < 0) {
			let hold = total;
			for (let p = Math.max(0, total - needle.byteLength + 1); p < total; p++) {
				if (at(p) === LF && isPrefix(p)) {
					hold = p;
					break;
				}
			}
			if (hold > 0 && at(hold - 1) === CR) hold--;
			this.#emit(carry, chunk, 0, hold);
			this.#carry = hold >= c ? chunk.subarray(hold - c) : concatBytes([carry.subarray(hold), chunk]);
			return;
		}
		// RFC 2046 §5.1.1: the CRLF before `--boundary` belongs to the delimiter, not the part.
		const end = match > 0 && at(match - 1) === CR ? match - 1 : match;
		this.#emit(carry, chunk, 0, end);
		this.#carry = EMPTY;
		const after = match + needle.byteLength - c;
		this.#reader.unshift(chunk.subarray(after));
		const kind = await this.#readDelimiterTail();
		if (kind) this.#found = kind;
		// `--boundaryX…` is not a delimiter (RFC 2046 §5.1.1 needs padding and a line end): data.
		else this.#emit(carry, chunk, end, match + needle.byteLength);

		function isPrefix(p: number): boolean {
			for (let k = 1; p + k < total; k++) if (at(p + k) !== needle[k]) return false;
			return true;
		}
	}

	/** Queues bytes [from, to) of carry ++ chunk as views. */
	#emit(carry: Uint8Array, chunk: Uint8Array, from: number, to: number): void {
		const c = carry.byteLength;
		if (from < c && to > from) this.#queue.push(carry.subarray(from, Math.min(to, c)));
		if (to > c && to > from) this.#queue.push(chunk.subarray(Math.max(from, c) - c, to - c));
	}

	/**
	 * After `--boundary`: `--` closes the body; otherwise transport padding (spaces, tabs) then
	 * CRLF or LF makes a delimiter line, consumed here. Anything else: not a delimiter (null).
	 */
	async #readDelimiterTail(): Promise<"delimiter" | "close" | null> {
		const reader = this.#reader;
		// Look only as far as needed, so that a delimiter at the end of what has arrived is
		// recognised without waiting for (or pulling) more of the stream.
		if ((await reader.peek(1))[0] === DASH) {
			if ((await reader.peek(2))[1] !== DASH) return null;
			await reader.read(2);
			return "close";
		}
		let want = Math.min(Math.max(reader.buffered, 1), MAX_PADDING + 2);
		for (;;) {
			const bytes = await reader.peek(want);
			const length = bytes.byteLength;
			let k = 0;
			while (k < length && (bytes[k] === SPACE || bytes[k] === TAB)) k++;
			if (k < length && bytes[k] === LF) {
				await reader.read(k + 1);
				return "delimiter";
			}
			if (k + 1 < length && bytes[k] === CR && bytes[k + 1] === LF) {
				await reader.read(k + 2);
				return "delimiter";
			}
			const undecided = k === length || (k === length - 1 && bytes[k] === CR);
			if (!undecided || length < want) return null;
			if (k > MAX_PADDING) {
				throw new As2Error("MALFORMED_MIME", `multipart delimiter line padded with over ${MAX_PADDING} bytes`);
			}
			want = Math.min(Math.max(k + 2, reader.buffered), MAX_PADDING + 2);
		}
	}
}

function view(bytes: Uint8Array): Buffer {
	return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
