import { type BerReader, decodeHeader, decodeOid, derHeader, derOid, TAG, tlvSize } from "../asn1/index.ts";
import type { ByteReader } from "../bytes/index.ts";
import { concatBytes } from "../bytes/index.ts";
import { As2Error } from "../errors/index.ts";

/** RFC 5652 §4: id-data. */
export const id_data = "1.2.840.113549.1.7.1";
/** RFC 5652 §5.1: id-signedData. */
export const id_signedData = "1.2.840.113549.1.7.2";
/** RFC 5652 §6.1: id-envelopedData. */
export const id_envelopedData = "1.2.840.113549.1.7.3";
/** RFC 5083 §1.1: id-ct-authEnvelopedData. */
export const id_ct_authEnvelopedData = "1.2.840.113549.1.9.16.1.23";
/** RFC 3274 §1.1: id-ct-compressedData. */
export const id_ct_compressedData = "1.2.840.113549.1.9.16.1.9";
/** RFC 3274 §2: id-alg-zlibCompress. */
export const id_alg_zlibCompress = "1.2.840.113549.1.9.16.3.8";

/** The CMS content types an AS2 message carries. */
export type CmsContentKind = "data" | "signed-data" | "enveloped-data" | "auth-enveloped-data" | "compressed-data";

const KIND_OIDS: Readonly<Record<CmsContentKind, string>> = {
	data: id_data,
	"signed-data": id_signedData,
	"enveloped-data": id_envelopedData,
	"auth-enveloped-data": id_ct_authEnvelopedData,
	"compressed-data": id_ct_compressedData,
};

const KIND_OF_OID = new Map(Object.entries(KIND_OIDS).map(([kind, oid]) => [oid, kind as CmsContentKind]));

export function oidToContentKind(oid: string): CmsContentKind | undefined {
	return KIND_OF_OID.get(oid);
}

export function contentKindToOid(kind: CmsContentKind): string {
	return KIND_OIDS[kind];
}

/** Enough for a ContentInfo SEQUENCE header plus a contentType OID. */
const PEEK_BYTES = 64;

/**
 * The content type of a CMS ContentInfo (RFC 5652 §3) at the front of `reader`, without
 * consuming anything; `undefined` when the bytes are not a ContentInfo of a known type.
 * Used to tell an S/MIME body's layer when the MIME type is missing or wrong (a common
 * vendor quirk: `application/octet-stream` for everything).
 *
 * @example
 * const kind = await peekCmsContentType(reader); // "enveloped-data"
 */
export async function peekCmsContentType(reader: ByteReader): Promise<CmsContentKind | undefined> {
	return cmsContentKindOf(await reader.peek(PEEK_BYTES));
}

/** {@link peekCmsContentType} of bytes held in memory (only the first 64 are looked at). */
export function cmsContentKindOf(body: Uint8Array): CmsContentKind | undefined {
	const bytes = body.subarray(0, PEEK_BYTES);
	try {
		const outer = decodeHeader(bytes);
		if (!outer || outer.tag !== TAG.SEQUENCE) return undefined;
		const oid = decodeHeader(bytes, outer.headerLength);
		if (!oid || oid.tag !== TAG.OID || oid.length === undefined) return undefined;
		const start = outer.headerLength + oid.headerLength;
		if (start + oid.length > bytes.byteLength) return undefined;
		return oidToContentKind(decodeOid(bytes.subarray(start, start + oid.length)));
	} catch {
		return undefined;
	}
}

/**
 * Reads `ContentInfo ::= SEQUENCE { contentType, content [0] EXPLICIT ANY }` (RFC 5652 §3)
 * up to the start of `content`, leaving both the SEQUENCE and the [0] entered.
 */
export async function readContentInfoStart(ber: BerReader): Promise<{ oid: string; kind: CmsContentKind | undefined }> {
	ber.enter(await ber.expect(TAG.SEQUENCE, "ContentInfo"));
	const oidHeader = await ber.expect(TAG.OID, "ContentInfo contentType");
	const oid = decodeOid(await ber.readPrimitive(oidHeader, 256, "contentType"));
	if (!(await ber.hasMore())) throw new As2Error("MALFORMED_CMS", "ContentInfo without content");
	await ber.enterExplicit(0, "ContentInfo content [0]");
	return { oid, kind: oidToContentKind(oid) };
}

/** Leaves the [0] and the SEQUENCE entered by {@link readContentInfoStart}. */
export async function readContentInfoEnd(ber: BerReader): Promise<void> {
	await ber.leave();
	await ber.leave();
}

/**
 * DER bytes of a ContentInfo up to its content, for a content of `contentSize` bytes (a
 * whole TLV) that the caller streams after them.
 */
export function contentInfoPrefix(oid: string, contentSize: number): Uint8Array {
	const type = derOid(oid);
	const explicitSize = tlvSize(contentSize);
	return concatBytes([derHeader(TAG.SEQUENCE, type.byteLength + explicitSize), type, derHeader(0xa0, contentSize)]);
}

/** Total DER size of a ContentInfo whose content TLV is `contentSize` bytes. */
export function contentInfoSize(oid: string, contentSize: number): number {
	return tlvSize(derOid(oid).byteLength + tlvSize(contentSize));
}
