/**
 * A minimal DER writer (X.690 §10) for hot paths. A tree of `DerPart`s is sized first and
 * written once into one buffer, so an enclosing length can be known before the contents
 * exist (placeholders of the right size) and no level copies its children again.
 */
export type DerPart = Uint8Array | DerNode;

export interface DerNode {
	/** Identifier octet(s), e.g. `0x30` for SEQUENCE, `0xa0` for `[0]` constructed. */
	readonly tag: number;
	readonly parts: readonly DerPart[];
	/** Memoised contents length. */
	contentLength?: number;
}

/** A constructed or primitive element whose contents are the concatenation of `parts`. */
export function der(tag: number, ...parts: DerPart[]): DerNode {
	return { tag, parts };
}

export function lengthOfLength(length: number): number {
	if (length < 0x80) return 1;
	let n = 1;
	for (let l = length; l > 0; l = Math.floor(l / 256)) n++;
	return n;
}

function contentLength(node: DerNode): number {
	if (node.contentLength === undefined) {
		let n = 0;
		for (const part of node.parts) n += sizeOf(part);
		node.contentLength = n;
	}
	return node.contentLength;
}

/** Encoded size of a part in bytes. */
export function sizeOf(part: DerPart): number {
	if (part instanceof Uint8Array) return part.byteLength;
	const length = contentLength(part);
	return 1 + lengthOfLength(length) + length;
}

/** Size of a TLV whose contents are `length` bytes long (single identifier octet). */
export function tlvSize(length: number): number {
	return 1 + lengthOfLength(length) + length;
}

export function writeLength(out: Uint8Array, at: number, length: number): number {
	if (length < 0x80) {
		out[at] = length;
		return at + 1;
	}
	const count = lengthOfLength(length) - 1;
	out[at] = 0x80 | count;
	for (let i = count, l = length; i >= 1; i--, l = Math.floor(l / 256)) out[at + i] = l & 0xff;
	return at + 1 + count;
}

function write(out: Uint8Array, at: number, part: DerPart): number {
	if (part instanceof Uint8Array) {
		out.set(part, at);
		return at + part.byteLength;
	}
	out[at] = part.tag;
	let p = writeLength(out, at + 1, contentLength(part));
	for (const child of part.parts) p = write(out, p, child);
	return p;
}

export function encodeDer(part: DerPart): Uint8Array {
	if (part instanceof Uint8Array) return part;
	const out = new Uint8Array(sizeOf(part));
	write(out, 0, part);
	return out;
}

/** A header for `length` contents bytes, for writers that stream the contents after it. */
export function derHeader(tag: number, length: number): Uint8Array {
	const out = new Uint8Array(1 + lengthOfLength(length));
	out[0] = tag;
	writeLength(out, 1, length);
	return out;
}

const oidCache = new Map<string, Uint8Array>();

/** OBJECT IDENTIFIER TLV (X.690 §8.19). Memoised: callers must not modify the result. */
export function derOid(oid: string): Uint8Array {
	const cached = oidCache.get(oid);
	if (cached) return cached;
	const arcs = oid.split(".").map(Number);
	const first = arcs[0] ?? 0;
	const values = [first * 40 + (arcs[1] ?? 0), ...arcs.slice(2)];
	const body: number[] = [];
	for (const value of values) {
		const groups: number[] = [];
		let v = value;
		do {
			groups.unshift(v % 128);
			v = Math.floor(v / 128);
		} while (v > 0);
		for (let i = 0; i < groups.length; i++) body.push(i < groups.length - 1 ? groups[i]! | 0x80 : groups[i]!);
	}
	const encoded = encodeDer(der(0x06, Uint8Array.from(body)));
	if (oidCache.size < 1024) oidCache.set(oid, encoded);
	return encoded;
}

export const DER_NULL: Uint8Array = Uint8Array.of(0x05, 0x00);

/** Non-negative INTEGER from a number. */
export function derSmallInteger(value: number): Uint8Array {
	const bytes: number[] = [];
	let v = value;
	do {
		bytes.unshift(v & 0xff);
		v = Math.floor(v / 256);
	} while (v > 0);
	if ((bytes[0]! & 0x80) !== 0) bytes.unshift(0);
	return encodeDer(der(0x02, Uint8Array.from(bytes)));
}

export function derOctetString(value: Uint8Array): DerNode {
	return der(0x04, value);
}

/**
 * RFC 5652 §11.3 / RFC 5280 §4.1.2.5: UTCTime for 1950-2049, GeneralizedTime otherwise;
 * both in their fixed-length DER forms, so a signer can size its output ahead.
 */
export function derTime(date: Date): Uint8Array {
	const year = date.getUTCFullYear();
	const pad = (n: number, width = 2) => String(n).padStart(width, "0");
	const rest = `${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
	const utc = year >= 1950 && year < 2050;
	const text = utc ? `${pad(year % 100)}${rest}` : `${pad(year, 4)}${rest}`;
	const body = new Uint8Array(text.length);
	for (let i = 0; i < text.length; i++) body[i] = text.charCodeAt(i);
	return encodeDer(der(utc ? 0x17 : 0x18, body));
}

/** Byte order of DER SET OF components (X.690 §11.6). */
export function compareDer(a: Uint8Array, b: Uint8Array): number {
	const n = Math.min(a.byteLength, b.byteLength);
	for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
	return a.byteLength - b.byteLength;
}
