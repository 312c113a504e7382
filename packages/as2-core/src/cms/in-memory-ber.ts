import { decodeOid, TAG } from "../asn1/index.ts";
import { concatBytes } from "../bytes/index.ts";
import { BerError, childrenOf, readTlv, type Tlv } from "../certs/ber-reader.ts";
import { As2Error, isAs2Error } from "../errors/index.ts";
import { type CmsContentKind, oidToContentKind } from "./content-info.ts";

/**
 * The streaming `BerReader`'s checks, applied to elements of a small CMS structure held in
 * memory (`certs/ber-reader` Tlvs): the buffered readers of unpack's fast path use them so
 * they accept exactly what the streaming readers accept. Tags are compared as the streaming
 * reader does, by their identifier octet.
 */

const malformed = (message: string) => new As2Error("MALFORMED_CMS", message);

/** The identifier octet of an element. */
export function tagOf(bytes: Uint8Array, tlv: Tlv | undefined): number | undefined {
	return tlv === undefined ? undefined : bytes[tlv.start];
}

/** `BerReader.expect`: the element, when its identifier octet is `tag`. */
export function expectElement(bytes: Uint8Array, tlv: Tlv | undefined, tag: number, what: string): Tlv {
	if (!tlv) throw malformed(`expected ${what}, found the end of its container`);
	if (tagOf(bytes, tlv) !== tag) {
		throw malformed(`expected ${what} (tag 0x${tag.toString(16)}), found tag 0x${tagOf(bytes, tlv)!.toString(16)}`);
	}
	return tlv;
}

/** `BerReader.readPrimitive`: the content octets of a primitive element of at most `maxBytes`. */
export function primitiveContent(bytes: Uint8Array, tlv: Tlv, maxBytes: number, what: string): Uint8Array {
	if (tlv.constructed) throw malformed(`${what} must be primitive`);
	if (tlv.contentEnd - tlv.contentStart > maxBytes) {
		throw new As2Error("MESSAGE_TOO_LARGE", `${what} is larger than the ${maxBytes} bytes allowed`);
	}
	return bytes.subarray(tlv.contentStart, tlv.contentEnd);
}

/** `BerReader.readElement`'s cap: the whole encoding of an element of at most `maxBytes`. */
export function elementEncoding(bytes: Uint8Array, tlv: Tlv, maxBytes: number, what: string): Uint8Array {
	if (tlv.end - tlv.start > maxBytes) {
		throw new As2Error("MESSAGE_TOO_LARGE", `${what} is larger than the ${maxBytes} bytes allowed`);
	}
	return bytes.subarray(tlv.start, tlv.end);
}

/**
 * `BerReader.octetString`: the content of an OCTET STRING or an IMPLICIT-tagged one,
 * primitive or constructed from segments (X.690 §8.7.3) that are OCTET STRINGs or repeat
 * the outer tag, themselves possibly constructed.
 */
export function octetStringContent(bytes: Uint8Array, tlv: Tlv): Uint8Array {
	if (!tlv.constructed) return bytes.subarray(tlv.contentStart, tlv.contentEnd);
	const parts: Uint8Array[] = [];
	collectSegments(bytes, tlv, parts);
	return parts.length === 1 ? parts[0]! : concatBytes(parts);
}

function collectSegments(bytes: Uint8Array, tlv: Tlv, parts: Uint8Array[]): void {
	for (const segment of childrenOf(bytes, tlv)) {
		const universal = segment.cls === 0 && segment.number === TAG.OCTET_STRING;
		const repeated = segment.cls === tlv.cls && segment.number === tlv.number;
		if (!universal && !repeated) throw malformed("constructed OCTET STRING segment is not an OCTET STRING");
		if (segment.constructed) collectSegments(bytes, segment, parts);
		else parts.push(bytes.subarray(segment.contentStart, segment.contentEnd));
	}
}

/**
 * `readContentInfoStart`: ContentInfo ::= SEQUENCE { contentType, content [0] EXPLICIT ANY }
 * (RFC 5652 §3); returns the type and the first element inside `[0]`. Bytes after the
 * ContentInfo are ignored, as the streaming reader ignores them.
 */
export function readContentInfoBytes(bytes: Uint8Array): {
	oid: string;
	kind: CmsContentKind | undefined;
	content: Tlv | undefined;
} {
	const root = expectElement(bytes, readTlv(bytes, 0), TAG.SEQUENCE, "ContentInfo");
	const [typeTlv, explicit] = childrenOf(bytes, root);
	const oid = decodeOid(
		primitiveContent(bytes, expectElement(bytes, typeTlv, TAG.OID, "ContentInfo contentType"), 256, "contentType"),
	);
	if (!explicit) throw malformed("ContentInfo without content");
	const content = childrenOf(bytes, expectElement(bytes, explicit, 0xa0, "ContentInfo content [0]"))[0];
	return { oid, kind: oidToContentKind(oid), content };
}

/** Runs a buffered reader, translating the in-memory reader's errors as the streaming reader reports them. */
export function readingBer<T>(what: string, read: () => T): T {
	try {
		return read();
	} catch (error) {
		if (isAs2Error(error)) throw error;
		if (error instanceof BerError) throw malformed(`${what}: ${error.message}`);
		throw new As2Error("MALFORMED_CMS", `cannot read the ${what}`, { cause: error });
	}
}
