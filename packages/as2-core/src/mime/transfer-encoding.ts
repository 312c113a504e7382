import { type Chunks, concatBytes } from "../bytes/index.ts";
import { As2Error } from "../errors/index.ts";

const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const EQUALS = 0x3d;
const EMPTY = new Uint8Array(0);
const CRLF = Uint8Array.of(CR, LF);

/**
 * Undoes a Content-Transfer-Encoding (RFC 2045 §6) as the body streams. `7bit`, `8bit`,
 * `binary` and an absent header pass the chunks through untouched; names are case-insensitive.
 * An unknown encoding is MALFORMED_MIME (thrown at once); broken base64 is MALFORMED_MIME
 * during the iteration.
 *
 * @example
 * const decoded = decodeTransferEncoding(headers.get("content-transfer-encoding"), reader.rest());
 */
export function decodeTransferEncoding(encoding: string | undefined, body: Chunks): Chunks {
	const name = (encoding ?? "").trim().toLowerCase();
	switch (name) {
		case "":
		case "7bit":
		case "8bit":
		case "binary":
			return body;
		case "base64":
			return decodeBase64(body);
		case "quoted-printable":
			return decodeQuotedPrintable(body);
		default:
			throw new As2Error("MALFORMED_MIME", `unknown Content-Transfer-Encoding ${JSON.stringify(encoding)}`);
	}
}

/**
 * {@link decodeTransferEncoding} of a body held in memory, in one step: the same decoders fed
 * the whole body as one chunk, so the same bytes and the same errors.
 */
export function decodeTransferEncodingBytes(encoding: string | undefined, body: Uint8Array): Uint8Array {
	const name = (encoding ?? "").trim().toLowerCase();
	let decoder: Base64Decoder | QuotedPrintableDecoder;
	switch (name) {
		case "":
		case "7bit":
		case "8bit":
		case "binary":
			return body;
		case "base64":
			decoder = new Base64Decoder();
			break;
		case "quoted-printable":
			decoder = new QuotedPrintableDecoder();
			break;
		default:
			throw new As2Error("MALFORMED_MIME", `unknown Content-Transfer-Encoding ${JSON.stringify(encoding)}`);
	}
	const parts = [...decoder.push(body), ...decoder.end()];
	return parts.length === 1 ? parts[0]! : concatBytes(parts);
}

/** Anything outside the base64 alphabet, padding and white space. */
const NOT_BASE64 = /[^A-Za-z0-9+/=\r\n\t \v\f]/;
const WHITE_SPACE = /[\r\n\t \v\f]+/g;

/**
 * Streaming base64 (RFC 2045 §6.8). Tolerant of what real senders write: CRLF or LF lines of any
 * length, stray spaces, missing padding, and several padded blocks run together. Characters
 * outside the alphabet (base64url's `-` and `_` included) are an error, not skipped as RFC 2045
 * allows, because skipping hands corrupted bytes to the signature check and reports the wrong
 * failure. Validation and decoding run in the engine's native string code.
 */
async function* decodeBase64(body: Chunks): Chunks {
	const decoder = new Base64Decoder();
	for await (const chunk of body) yield* decoder.push(chunk);
	yield* decoder.end();
}

/** The state of {@link decodeBase64} between chunks; `push` and `end` return the decoded bytes. */
class Base64Decoder {
	#pending = "";
	#offset = 0;

	push(chunk: Uint8Array): Uint8Array[] {
		const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("latin1");
		const bad = text.search(NOT_BASE64);
		if (bad >= 0) {
			const code = text.charCodeAt(bad).toString(16).padStart(2, "0");
			throw new As2Error("MALFORMED_MIME", `invalid base64 character 0x${code} at offset ${this.#offset + bad}`);
		}
		this.#offset += chunk.byteLength;
		const out: Uint8Array[] = [];
		this.#pending = decodeBase64Text(this.#pending + text.replace(WHITE_SPACE, ""), out, this.#offset);
		return out.filter((bytes) => bytes.byteLength > 0);
	}

	end(): Uint8Array[] {
		if (this.#pending.length === 1) {
			throw new As2Error("MALFORMED_MIME", `truncated base64 group at offset ${this.#offset}`);
		}
		return this.#pending.length > 0 ? [Buffer.from(this.#pending, "base64")] : [];
	}
}

/**
 * Decodes the complete 4-char groups of `text` into `out`, returns the incomplete rest. A `=`
 * ends a group early; what follows it starts a new group.
 */
function decodeBase64Text(text: string, out: Uint8Array[], offset: number): string {
	let rest = text;
	for (let eq = rest.indexOf("="); eq >= 0; eq = rest.indexOf("=")) {
		if (eq % 4 === 1) throw new As2Error("MALFORMED_MIME", `truncated base64 group before offset ${offset}`);
		out.push(Buffer.from(rest.slice(0, eq), "base64"));
		let next = eq;
		while (rest.charCodeAt(next) === 0x3d) next++;
		rest = rest.slice(next);
	}
	const whole = rest.length - (rest.length % 4);
	out.push(Buffer.from(rest.slice(0, whole), "base64"));
	return rest.slice(whole);
}

const HEX_VALUES = (() => {
	const table = new Int8Array(256).fill(-1);
	for (let i = 0; i < 16; i++) {
		table["0123456789ABCDEF".charCodeAt(i)] = i;
		table["0123456789abcdef".charCodeAt(i)] = i;
	}
	return table;
})();

/**
 * Longest run of white space treated as transport padding. Longer runs are data whatever the
 * chunking, so that a decoder never holds back more than this.
 */
const MAX_QP_WHITESPACE = 1024;

/**
 * Streaming quoted-printable (RFC 2045 §6.7): `=XX` in either case, soft line breaks `=CRLF`
 * and `=LF` (white space before the line end allowed), trailing white space on a line deleted
 * (rule 3). A malformed `=` sequence is kept literally, as §6.7 note (2) recommends.
 */
async function* decodeQuotedPrintable(body: Chunks): Chunks {
	const decoder = new QuotedPrintableDecoder();
	for await (const chunk of body) yield* decoder.push(chunk);
	yield* decoder.end();
}

/** The state of {@link decodeQuotedPrintable} between chunks: an undecidable tail. */
class QuotedPrintableDecoder {
	#carry: Uint8Array = EMPTY;

	push(chunk: Uint8Array): Uint8Array[] {
		if (chunk.byteLength === 0) return [];
		let buf = chunk;
		if (this.#carry.byteLength > 0) {
			buf = new Uint8Array(this.#carry.byteLength + chunk.byteLength);
			buf.set(this.#carry);
			buf.set(chunk, this.#carry.byteLength);
		}
		const { out, consumed } = decodeQpRun(buf, false);
		this.#carry = buf.slice(consumed);
		return out.byteLength > 0 ? [out] : [];
	}

	end(): Uint8Array[] {
		if (this.#carry.byteLength === 0) return [];
		const { out } = decodeQpRun(this.#carry, true);
		return out.byteLength > 0 ? [out] : [];
	}
}

/** Decodes what can be decided in `buf`; `consumed` is where an undecidable tail starts. */
function decodeQpRun(buf: Uint8Array, final: boolean): { out: Uint8Array; consumed: number } {
	const n = buf.byteLength;
	const out = new Uint8Array(n);
	let o = 0;
	let i = 0;
	while (i < n) {
		const b = buf[i]!;
		if (b === EQUALS) {
			let j = i + 1;
			while (j < n && (buf[j] === SPACE || buf[j] === TAB) && j - i - 1 <= MAX_QP_WHITESPACE) j++;
			const padding = j - i - 1;
			if (padding <= MAX_QP_WHITESPACE) {
				if (j >= n) {
					if (!final) break;
					// `=` (and padding) at the very end: a soft break with nothing after it.
					i = n;
					continue;
				}
				if (buf[j] === LF) {
					i = j + 1;
					continue;
				}
				if (buf[j] === CR) {
					if (j + 1 >= n && !final) break;
					i = buf[j + 1] === LF ? j + 2 : j + 1;
					continue;
				}
				if (padding === 0) {
					if (i + 2 >= n && !final) break;
					const hi = i + 1 < n ? HEX_VALUES[buf[i + 1]!]! : -1;
					const lo = i + 2 < n ? HEX_VALUES[buf[i + 2]!]! : -1;
					if (hi >= 0 && lo >= 0) {
						out[o++] = (hi << 4) | lo;
						i += 3;
						continue;
					}
				}
			}
			out[o++] = EQUALS;
			i++;
			continue;
		}
		if (b === SPACE || b === TAB) {
			let j = i;
			while (j < n && (buf[j] === SPACE || buf[j] === TAB) && j - i <= MAX_QP_WHITESPACE) j++;
			const run = j - i;
			if (run <= MAX_QP_WHITESPACE) {
				if (j >= n && !final) break;
				// Rule (3): white space at the end of a line was added in transport; drop it.
				if (j >= n || buf[j] === CR || buf[j] === LF) {
					i = j;
					continue;
				}
			}
			out.set(buf.subarray(i, j), o);
			o += run;
			i = j;
			continue;
		}
		out[o++] = b;
		i++;
	}
	return { out: out.subarray(0, o), consumed: i };
}

/**
 * Base64 in CRLF-terminated lines of `lineLength` characters (RFC 2045 §6.8 caps lines at 76),
 * the last line ending with CRLF too; empty input gives no bytes. The byte count is exactly
 * {@link base64EncodedSize}.
 *
 * @example
 * const source = { size: base64EncodedSize(der.size), open: () => encodeBase64(der.open()) };
 */
export async function* encodeBase64(body: Chunks, lineLength = 76): Chunks {
	if (!Number.isInteger(lineLength) || lineLength < 1) throw new RangeError(`invalid base64 line length ${lineLength}`);
	const lines = new LineWriter(lineLength);
	let rest: Uint8Array = EMPTY;
	for await (const chunk of body) {
		let text = "";
		let from = 0;
		if (rest.byteLength > 0) {
			from = Math.min(3 - rest.byteLength, chunk.byteLength);
			const head = new Uint8Array(rest.byteLength + from);
			head.set(rest);
			head.set(chunk.subarray(0, from), rest.byteLength);
			if (head.byteLength < 3) {
				rest = head;
				continue;
			}
			text = toBase64(head);
		}
		const whole = from + Math.floor((chunk.byteLength - from) / 3) * 3;
		text += toBase64(chunk.subarray(from, whole));
		rest = chunk.slice(whole);
		if (text.length > 0) yield lines.write(text);
	}
	const last = lines.write(rest.byteLength > 0 ? toBase64(rest) : "", true);
	if (last.byteLength > 0) yield last;
}

/** {@link encodeBase64} of bytes held in memory, in one step (the same bytes). */
export function encodeBase64Bytes(bytes: Uint8Array, lineLength = 76): Uint8Array {
	if (!Number.isInteger(lineLength) || lineLength < 1) throw new RangeError(`invalid base64 line length ${lineLength}`);
	return new LineWriter(lineLength).write(toBase64(bytes), true);
}

/**
 * Exact byte count of `encodeBase64` for `n` input bytes, for lengths written ahead of the data
 * (RFC 5652 DER lengths, Content-Length).
 */
export function base64EncodedSize(n: number, lineLength = 76): number {
	const chars = Math.ceil(n / 3) * 4;
	return chars + 2 * Math.ceil(chars / lineLength);
}

/** Breaks a stream of base64 text into lines, remembering the column across calls. */
class LineWriter {
	readonly #lineLength: number;
	#column = 0;

	constructor(lineLength: number) {
		this.#lineLength = lineLength;
	}

	write(text: string, end = false): Uint8Array {
		const width = this.#lineLength;
		const chars = Buffer.from(text, "latin1");
		const breaks = Math.floor((this.#column + chars.byteLength) / width);
		const tail = end && (this.#column + chars.byteLength) % width !== 0 ? 1 : 0;
		const out = new Uint8Array(chars.byteLength + 2 * (breaks + tail));
		let o = 0;
		let i = 0;
		while (i < chars.byteLength) {
			const take = Math.min(width - this.#column, chars.byteLength - i);
			out.set(chars.subarray(i, i + take), o);
			o += take;
			i += take;
			this.#column += take;
			if (this.#column === width) {
				out.set(CRLF, o);
				o += 2;
				this.#column = 0;
			}
		}
		if (tail) {
			out.set(CRLF, o);
			this.#column = 0;
		}
		return out;
	}
}

function toBase64(bytes: Uint8Array): string {
	return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}
