import { As2Error } from "../errors/index.ts";
import { type BerHeader, decodeHeader } from "./ber-header.ts";
import { TAG } from "./der.ts";
import { decodeOid } from "./oid.ts";

/** One definite-length element held in memory (the output of {@link toDefiniteLength}). */
export interface Tlv {
	readonly header: BerHeader;
	/** The content octets. */
	readonly content: Uint8Array;
	/** The whole element, header included. */
	readonly encoded: Uint8Array;
}

const malformed = (message: string) => new As2Error("MALFORMED_CMS", message);

/** The element at `offset`; definite lengths only. */
export function readTlv(bytes: Uint8Array, offset = 0): Tlv {
	const header = decodeHeader(bytes, offset);
	if (!header) throw malformed("truncated element");
	if (header.length === undefined) throw malformed("unexpected indefinite length");
	const start = offset + header.headerLength;
	const end = start + header.length;
	if (end > bytes.byteLength) throw malformed("element runs past its container");
	return { header, content: bytes.subarray(start, end), encoded: bytes.subarray(offset, end) };
}

/** Exactly one element filling `bytes`. */
export function parseTlv(bytes: Uint8Array): Tlv {
	const tlv = readTlv(bytes);
	if (tlv.encoded.byteLength !== bytes.byteLength) throw malformed("trailing bytes after element");
	return tlv;
}

/** The elements inside a constructed element's content. */
export function childrenOf(tlv: Tlv): Tlv[] {
	if (!tlv.header.constructed) throw malformed("expected a constructed element");
	const out: Tlv[] = [];
	for (let offset = 0; offset < tlv.content.byteLength; ) {
		const child = readTlv(tlv.content, offset);
		out.push(child);
		offset += child.encoded.byteLength;
	}
	return out;
}

/** Checks a tag and returns the element, or MALFORMED_CMS naming `what`. */
export function expectTag(tlv: Tlv | undefined, tag: number, what: string): Tlv {
	if (!tlv || tlv.header.tag !== tag) throw malformed(`expected ${what}`);
	return tlv;
}

export function tlvOid(tlv: Tlv | undefined, what: string): string {
	return decodeOid(expectTag(tlv, TAG.OID, what).content);
}

/** A small non-negative INTEGER (versions, ICV lengths, RC2 parameter versions). */
export function tlvSmallInteger(tlv: Tlv | undefined, what: string): number {
	const { content } = expectTag(tlv, TAG.INTEGER, what);
	if (content.byteLength === 0 || content.byteLength > 6 || (content[0]! & 0x80) !== 0) {
		throw malformed(`${what} is not a small non-negative INTEGER`);
	}
	let v = 0;
	for (const b of content) v = v * 256 + b;
	return v;
}
