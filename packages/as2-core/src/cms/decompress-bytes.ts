import { childrenOf, expectTag, parseTlv, TAG, tlvOid, toDefiniteLength } from "../asn1/index.ts";
import { plainBytes } from "../bytes/index.ts";
import { childrenOf as berChildren } from "../certs/ber-reader.ts";
import { inflateSmall } from "../crypto/index.ts";
import { As2Error } from "../errors/index.ts";
import {
	DEFAULT_MAX_HEADER_BYTES,
	DEFAULT_MAX_RATIO,
	type DecompressOptions,
	guardInflation,
} from "./compressed-data.ts";
import { id_alg_zlibCompress } from "./content-info.ts";
import {
	elementEncoding,
	expectElement,
	octetStringContent,
	primitiveContent,
	readContentInfoBytes,
	readingBer,
	tagOf,
} from "./in-memory-ber.ts";

/**
 * {@link decompress} of a small CompressedData (RFC 3274) held in memory, in one synchronous
 * step (unpack's buffered path): the same structure checks, zip-bomb guards and errors, BER
 * or DER. Undefined when the output would pass 8 MiB: that one must stream.
 *
 * @example
 * const content = decompressBytes(der, { maxOutputBytes: 1 << 20 });
 */
export function decompressBytes(der: Uint8Array, opts: DecompressOptions = {}): Uint8Array | undefined {
	const bytes = plainBytes(der);
	const compressed = readingBer("CompressedData", () => {
		const { kind, oid, content } = readContentInfoBytes(bytes);
		if (kind !== "compressed-data")
			throw new As2Error("MALFORMED_CMS", `expected CompressedData, found ${kind ?? oid}`);
		// CompressedData ::= SEQUENCE { version, compressionAlgorithm, encapContentInfo }
		const items = berChildren(bytes, expectElement(bytes, content, TAG.SEQUENCE, "CompressedData"));
		primitiveContent(bytes, expectElement(bytes, items[0], TAG.INTEGER, "version"), 8, "version");
		if (!items[1]) throw new As2Error("MALFORMED_CMS", "CompressedData without compressionAlgorithm");
		const maxHeaderBytes = opts.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
		const algorithm = parseTlv(
			toDefiniteLength(elementEncoding(bytes, items[1], maxHeaderBytes, "compressionAlgorithm")),
		);
		const algorithmOid = tlvOid(
			childrenOf(expectTag(algorithm, TAG.SEQUENCE, "compressionAlgorithm"))[0],
			"compressionAlgorithm",
		);
		if (algorithmOid !== id_alg_zlibCompress) {
			throw new As2Error("UNSUPPORTED_ALGORITHM", `unsupported compression algorithm ${algorithmOid}`);
		}
		// EncapsulatedContentInfo ::= SEQUENCE { eContentType, eContent [0] EXPLICIT OCTET STRING OPTIONAL }
		const encap = berChildren(bytes, expectElement(bytes, items[2], TAG.SEQUENCE, "EncapsulatedContentInfo"));
		primitiveContent(bytes, expectElement(bytes, encap[0], TAG.OID, "eContentType"), 256, "eContentType");
		if (!encap[1]) throw new As2Error("MALFORMED_CMS", "CompressedData without eContent");
		const octets = berChildren(bytes, expectElement(bytes, encap[1], 0xa0, "eContent [0]"))[0];
		if (!octets || (tagOf(bytes, octets)! | 0x20) !== (TAG.OCTET_STRING | 0x20)) {
			throw new As2Error("MALFORMED_CMS", "eContent is not an OCTET STRING");
		}
		return octetStringContent(bytes, octets);
	});
	let inflated: Uint8Array | undefined;
	try {
		inflated = inflateSmall(compressed);
	} catch (error) {
		throw new As2Error("DECOMPRESSION_FAILED", `corrupt zlib data: ${(error as Error).message}`, { cause: error });
	}
	if (inflated && inflated.byteLength > 0) {
		guardInflation(
			inflated.byteLength,
			compressed.byteLength,
			opts.maxOutputBytes ?? Number.POSITIVE_INFINITY,
			opts.maxRatio ?? DEFAULT_MAX_RATIO,
		);
	}
	return inflated;
}
