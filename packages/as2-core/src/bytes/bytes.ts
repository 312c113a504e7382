import { As2Error } from "../errors/index.ts";
import type { Chunks } from "./byte-source.ts";

const encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

export function concatBytes(parts: ReadonlyArray<Uint8Array>): Uint8Array {
	let size = 0;
	for (const p of parts) size += p.byteLength;
	const out = new Uint8Array(size);
	let offset = 0;
	for (const p of parts) {
		out.set(p, offset);
		offset += p.byteLength;
	}
	return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
	if (a.byteLength !== b.byteLength) return false;
	for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
	return true;
}

export const utf8 = (text: string): Uint8Array => encoder.encode(text);
export const fromUtf8 = (bytes: Uint8Array): string => utf8Decoder.decode(bytes);

/** Header bytes are octets: latin1 keeps every byte as one char and back (RFC 5322 §2.2). */
export function latin1(text: string): Uint8Array {
	const out = new Uint8Array(text.length);
	if (text.length > 128) {
		// Node's encoder, into our own array (no pooled Buffer): twice as fast on long text.
		Buffer.from(out.buffer, out.byteOffset, out.byteLength).write(text, 0, "latin1");
		return out;
	}
	for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
	return out;
}

/**
 * Concatenates strings, written as latin1 octets (see {@link latin1}), and byte arrays into one
 * new array: the MIME framing around a body is made without an array per piece.
 */
export function joinLatin1(parts: ReadonlyArray<string | Uint8Array>): Uint8Array {
	let size = 0;
	for (const part of parts) size += typeof part === "string" ? part.length : part.byteLength;
	const out = new Uint8Array(size);
	let offset = 0;
	for (const part of parts) {
		if (typeof part !== "string") {
			out.set(part, offset);
			offset += part.byteLength;
		} else if (part.length > 128) {
			offset += Buffer.from(out.buffer, out.byteOffset, out.byteLength).write(part, offset, "latin1");
		} else {
			for (let i = 0; i < part.length; i++) out[offset++] = part.charCodeAt(i) & 0xff;
		}
	}
	return out;
}

export function fromLatin1(bytes: Uint8Array): string {
	let s = "";
	if (bytes.byteLength <= 32) {
		// Short input (OIDs as cache keys): a loop costs less than a subarray and `apply`.
		for (let i = 0; i < bytes.byteLength; i++) s += String.fromCharCode(bytes[i]!);
		return s;
	}
	for (let i = 0; i < bytes.byteLength; i += 8192) {
		// `apply` takes the typed array as it is; a spread would first copy it into an array.
		s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as number[]);
	}
	return s;
}

export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
export const fromHex = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, "hex"));
export const toBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64");
/** Tolerant: ignores white space and missing padding, as Node's decoder does. */
export const fromBase64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "base64"));

/**
 * Reads a whole stream into memory, failing with MESSAGE_TOO_LARGE past `limit`: the only
 * way buffered reads happen in core, so every buffer has a cap.
 */
export async function collect(chunks: Chunks, limit = Number.POSITIVE_INFINITY, what = "input"): Promise<Uint8Array> {
	const parts: Uint8Array[] = [];
	let size = 0;
	for await (const chunk of chunks) {
		size += chunk.byteLength;
		if (size > limit) throw new As2Error("MESSAGE_TOO_LARGE", `${what} is larger than ${limit} bytes`);
		parts.push(chunk);
	}
	return parts.length === 1 ? parts[0]! : concatBytes(parts);
}

/**
 * The same bytes as a plain Uint8Array view. Parsers that copy with `.slice()` must call this
 * first: on a Node Buffer `.slice()` is a view, and a later in-place edit would corrupt the
 * caller's bytes.
 */
export function plainBytes(bytes: Uint8Array): Uint8Array {
	return Buffer.isBuffer(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes;
}
