import { encodeOid } from "./oid.ts";

/**
 * DER writing with lengths computed ahead (X.690 §10): a streaming writer knows every
 * length before the first byte leaves, so it writes headers up front and streams the content
 * (RFC 5652 §1.2 asks for DER where a signature or MAC covers the encoding; we use it
 * everywhere so our output is one canonical byte string).
 */

/** Identifier octets of the universal types we write (X.690 §8.1.2, class 0). */
export const TAG = {
	BOOLEAN: 0x01,
	INTEGER: 0x02,
	BIT_STRING: 0x03,
	OCTET_STRING: 0x04,
	NULL: 0x05,
	OID: 0x06,
	UTF8_STRING: 0x0c,
	SEQUENCE: 0x30,
	SET: 0x31,
} as const;

/** Context-specific `[n]` identifier octet (n < 31): 0xa0|n constructed, 0x80|n primitive. */
export function contextTag(n: number, constructed: boolean): number {
	if (!Number.isInteger(n) || n < 0 || n > 30) throw new RangeError(`context tag [${n}] out of range`);
	return (constructed ? 0xa0 : 0x80) | n;
}

/** Length octets (X.690 §10.1: definite form, minimum number of octets). */
export function derLength(n: number): Uint8Array {
	const out = new Uint8Array(lengthOctets(n));
	writeLength(out, 0, n);
	return out;
}

/** Identifier octet (class and constructed bits included) followed by the length octets. */
export function derHeader(tag: number, length: number): Uint8Array {
	const out = new Uint8Array(1 + lengthOctets(length));
	writeHeader(out, tag, length);
	return out;
}

/** Size of a whole TLV whose content is `contentLength` bytes (single identifier octet). */
export function tlvSize(contentLength: number): number {
	return 1 + lengthOctets(contentLength) + contentLength;
}

/** A TLV around the concatenated parts, written once into one array. */
export function derTlv(tag: number, ...parts: Uint8Array[]): Uint8Array {
	let size = 0;
	for (const part of parts) size += part.byteLength;
	const out = new Uint8Array(tlvSize(size));
	let offset = writeHeader(out, tag, size);
	for (const part of parts) {
		out.set(part, offset);
		offset += part.byteLength;
	}
	return out;
}

/** X.690 §8.1.3: one octet below 128, else one plus the octets of the length. */
function lengthOctets(n: number): number {
	if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`invalid DER length ${n}`);
	let octets = 1;
	if (n >= 0x80) for (let v = n; v > 0; v = Math.floor(v / 256)) octets++;
	return octets;
}

/** Writes the identifier and length octets at the start of `out`; returns where the content starts. */
function writeHeader(out: Uint8Array, tag: number, length: number): number {
	if (!Number.isInteger(tag) || tag < 0 || tag > 0xff || (tag & 0x1f) === 0x1f) {
		throw new RangeError(`tag 0x${tag.toString(16)} is not a single identifier octet`);
	}
	out[0] = tag;
	return writeLength(out, 1, length);
}

/** Writes the length octets of `n` at `at` (room for them is the caller's); returns the end. */
function writeLength(out: Uint8Array, at: number, n: number): number {
	const octets = lengthOctets(n);
	if (octets === 1) {
		out[at] = n;
		return at + 1;
	}
	out[at] = 0x80 | (octets - 1);
	for (let i = at + octets - 1, v = n; i > at; i--, v = Math.floor(v / 256)) out[i] = v % 256;
	return at + octets;
}

export function derSequence(...parts: Uint8Array[]): Uint8Array {
	return derTlv(TAG.SEQUENCE, ...parts);
}

/**
 * SET OF: X.690 §11.6 orders the elements by their encodings, compared as octet strings
 * with the shorter one padded with trailing zero octets.
 */
export function derSetOf(elements: ReadonlyArray<Uint8Array>): Uint8Array {
	const sorted = [...elements].sort(compareForSetOf);
	return derTlv(TAG.SET, ...sorted);
}

function compareForSetOf(a: Uint8Array, b: Uint8Array): number {
	const n = Math.max(a.byteLength, b.byteLength);
	for (let i = 0; i < n; i++) {
		const d = (a[i] ?? 0) - (b[i] ?? 0);
		if (d !== 0) return d;
	}
	return 0;
}

/** `[n] EXPLICIT`: a constructed context tag around the parts. */
export function derExplicit(n: number, ...parts: Uint8Array[]): Uint8Array {
	return derTlv(contextTag(n, true), ...parts);
}

export function derOctetString(bytes: Uint8Array): Uint8Array {
	return derTlv(TAG.OCTET_STRING, bytes);
}

const oids = new Map<string, Uint8Array>();

/** OBJECT IDENTIFIER TLV. Memoised (a few dozen OIDs are ever written): do not modify the result. */
export function derOid(oid: string): Uint8Array {
	let encoded = oids.get(oid);
	if (!encoded) {
		encoded = derTlv(TAG.OID, encodeOid(oid));
		if (oids.size < 1024) oids.set(oid, encoded);
	}
	return encoded;
}

export function derNull(): Uint8Array {
	return Uint8Array.of(TAG.NULL, 0);
}

/**
 * INTEGER (X.690 §8.3): a number, a bigint, or unsigned big-endian magnitude bytes (a
 * certificate serial number). Minimal two's-complement octets.
 */
export function derInteger(value: number | bigint | Uint8Array): Uint8Array {
	if (value instanceof Uint8Array) {
		let start = 0;
		while (start < value.byteLength - 1 && value[start] === 0) start++;
		const magnitude = value.subarray(start);
		const pad = magnitude.byteLength === 0 || (magnitude[0]! & 0x80) !== 0;
		return derTlv(TAG.INTEGER, pad ? Uint8Array.of(0) : new Uint8Array(0), magnitude);
	}
	// Versions and small parameters: one content octet.
	if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value < 0x80) {
		return Uint8Array.of(TAG.INTEGER, 1, value);
	}
	let v = BigInt(value);
	const bytes: number[] = [];
	// Two's complement, shortest form: stop when the remaining value is the sign extension.
	for (;;) {
		const byte = Number(v & 0xffn);
		bytes.unshift(byte);
		v >>= 8n;
		if ((v === 0n && (byte & 0x80) === 0) || (v === -1n && (byte & 0x80) !== 0)) break;
	}
	return derTlv(TAG.INTEGER, Uint8Array.from(bytes));
}

/** AlgorithmIdentifier (RFC 5280 §4.1.1.2); `parameters` is DER, absent when undefined. */
export function derAlgorithmIdentifier(oid: string, parameters?: Uint8Array): Uint8Array {
	return parameters === undefined ? derSequence(derOid(oid)) : derSequence(derOid(oid), parameters);
}
