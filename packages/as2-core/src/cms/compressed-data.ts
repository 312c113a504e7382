import {
	BerReader,
	childrenOf,
	derAlgorithmIdentifier,
	derHeader,
	derInteger,
	derOid,
	expectTag,
	isTag,
	parseTlv,
	TAG,
	tlvOid,
	tlvSize,
	toDefiniteLength,
} from "../asn1/index.ts";
import {
	ByteReader,
	type ByteSource,
	bufferedBytes,
	type Chunks,
	checkedOpen,
	collect,
	concatBytes,
	sourceFromBytes,
} from "../bytes/index.ts";
import { deflateBytes, deflateChunks, inflateChunks } from "../crypto/index.ts";
import { As2Error, isAs2Error } from "../errors/index.ts";
import {
	contentInfoPrefix,
	id_alg_zlibCompress,
	id_ct_compressedData,
	id_data,
	readContentInfoEnd,
	readContentInfoStart,
} from "./content-info.ts";

/**
 * CompressedData (RFC 3274 §1.1), which `@peculiar/asn1-cms` does not define:
 *
 * ```asn1
 * CompressedData ::= SEQUENCE {
 *   version CMSVersion,                         -- Always set to 0
 *   compressionAlgorithm CompressionAlgorithmIdentifier,
 *   encapContentInfo EncapsulatedContentInfo }
 *
 * EncapsulatedContentInfo ::= SEQUENCE {           -- RFC 5652 §5.2
 *   eContentType ContentType,
 *   eContent [0] EXPLICIT OCTET STRING OPTIONAL }
 *
 * id-alg-zlibCompress OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549)
 *   pkcs(1) pkcs-9(9) smime(16) alg(3) 8 }          -- parameters absent (RFC 3274 §2)
 * ```
 */

/** Contents up to this size are compressed in memory once (see compress()). */
const SMALL_CONTENT_BYTES = 1 << 20;

export interface CompressOptions {
	/** zlib level 0–9; default 6 (zlib's own default, a good speed/size balance). */
	level?: number;
}

/**
 * Compresses `content` into a DER ContentInfo of CompressedData (RFC 3274, zlib).
 *
 * DER needs the compressed size before the first byte, and the size of a deflate stream is
 * only known by making it. So this runs a counting pass now (compress everything, keep only
 * the count) and compresses again on each `open()`: twice the CPU of the compression layer,
 * in exchange for bounded memory and no temporary storage (core does no I/O). Deflate at
 * level 6 runs at tens of MB/s per core, far below AES, so callers on a hot path may prefer a
 * lower `level`. The source must yield the same bytes on every `open()`.
 *
 * @example
 * const compressed = await compress(sourceFromBytes(mime), { level: 6 });
 */
export async function compress(content: ByteSource, opts: CompressOptions = {}): Promise<ByteSource> {
	const level = opts.level ?? 6;
	if (!Number.isInteger(level) || level < 0 || level > 9) {
		throw new As2Error("VALIDATION_FAILED", `compression level must be 0 to 9, got ${level}`);
	}
	// Small contents (most EDI) compress once, synchronously, and the result is kept: no
	// second pass and no zlib stream round trips. Bounded by SMALL_CONTENT_BYTES.
	const buffered = bufferedBytes(content);
	const small = buffered
		? deflateBytes(buffered, { level })
		: content.size <= SMALL_CONTENT_BYTES
			? deflateBytes(await collect(checkedOpen(content)), { level })
			: undefined;
	let compressedSize = small?.byteLength ?? 0;
	if (!small)
		for await (const chunk of deflateChunks(checkedOpen(content), { level })) compressedSize += chunk.byteLength;

	const eContent = derHeader(TAG.OCTET_STRING, compressedSize);
	const encapSize = derOid(id_data).byteLength + tlvSize(eContent.byteLength + compressedSize);
	const head = concatBytes([derInteger(0), derAlgorithmIdentifier(id_alg_zlibCompress)]);
	const bodySize = head.byteLength + tlvSize(encapSize);
	const prefix = concatBytes([
		contentInfoPrefix(id_ct_compressedData, tlvSize(bodySize)),
		derHeader(TAG.SEQUENCE, bodySize),
		head,
		derHeader(TAG.SEQUENCE, encapSize),
		derOid(id_data),
		derHeader(0xa0, eContent.byteLength + compressedSize),
		eContent,
	]);
	// Buffered path: the whole CompressedData as one array, for the next layer to take in one step.
	if (buffered && small) return sourceFromBytes(concatBytes([prefix, small]));
	return {
		size: prefix.byteLength + compressedSize,
		async *open() {
			yield prefix;
			if (small) {
				yield small;
				return;
			}
			let produced = 0;
			for await (const chunk of deflateChunks(checkedOpen(content), { level })) {
				produced += chunk.byteLength;
				if (produced > compressedSize) break;
				yield chunk;
			}
			if (produced !== compressedSize) {
				throw new As2Error("INTERNAL_ERROR", "the content compressed differently on a second pass: it changed");
			}
		},
	};
}

export interface DecompressOptions {
	/** Fail past this many output bytes. Default: no limit. */
	maxOutputBytes?: number;
	/** Fail when output/input exceeds this once the output passes 1 MiB. Default 1000. */
	maxRatio?: number;
	/** Cap on buffered header elements. Default 64 KiB. */
	maxHeaderBytes?: number;
}

export const DEFAULT_MAX_RATIO = 1000;
export const DEFAULT_MAX_HEADER_BYTES = 64 * 1024;

/** Output below which the ratio is not checked: small, very regular texts compress well. */
const RATIO_GRACE_BYTES = 1 << 20;

/**
 * Decompresses a CMS CompressedData (BER or DER), streaming. A corrupt zlib stream, output
 * beyond `maxOutputBytes`, or an output/input ratio beyond `maxRatio` after the first MiB
 * (a "zip bomb") is DECOMPRESSION_FAILED, detected while streaming, so memory stays bounded
 * whatever the input claims. Structure errors are MALFORMED_CMS; an algorithm other than
 * zlib is UNSUPPORTED_ALGORITHM. Resolves when the header is read.
 *
 * @example
 * for await (const chunk of await decompress(body, { maxOutputBytes: 2 ** 31 })) write(chunk);
 */
export async function decompress(der: Chunks, opts: DecompressOptions = {}): Promise<Chunks> {
	const maxOutput = opts.maxOutputBytes ?? Number.POSITIVE_INFINITY;
	const maxRatio = opts.maxRatio ?? DEFAULT_MAX_RATIO;
	const maxHeaderBytes = opts.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
	const input = new ByteReader(der);
	const ber = new BerReader(input);
	try {
		const { kind, oid } = await readContentInfoStart(ber);
		if (kind !== "compressed-data")
			throw new As2Error("MALFORMED_CMS", `expected CompressedData, found ${kind ?? oid}`);
		ber.enter(await ber.expect(TAG.SEQUENCE, "CompressedData"));
		await ber.readPrimitive(await ber.expect(TAG.INTEGER, "version"), 8, "version");
		const algorithm = parseTlv(toDefiniteLength(await ber.readElement(maxHeaderBytes, "compressionAlgorithm")));
		const algorithmOid = tlvOid(
			childrenOf(expectTag(algorithm, TAG.SEQUENCE, "compressionAlgorithm"))[0],
			"compressionAlgorithm",
		);
		if (algorithmOid !== id_alg_zlibCompress) {
			throw new As2Error("UNSUPPORTED_ALGORITHM", `unsupported compression algorithm ${algorithmOid}`);
		}
		ber.enter(await ber.expect(TAG.SEQUENCE, "EncapsulatedContentInfo"));
		await ber.readPrimitive(await ber.expect(TAG.OID, "eContentType"), 256, "eContentType");
		if (!(await ber.hasMore())) throw new As2Error("MALFORMED_CMS", "CompressedData without eContent");
		await ber.enterExplicit(0, "eContent [0]");
		const octets = await ber.readHeader();
		if (!isTag(octets, TAG.OCTET_STRING)) throw new As2Error("MALFORMED_CMS", "eContent is not an OCTET STRING");
		return inflateContent(ber, octets, maxOutput, maxRatio);
	} catch (error) {
		await input.return();
		throw isAs2Error(error) ? error : new As2Error("MALFORMED_CMS", "cannot read CompressedData", { cause: error });
	}
}

/** The zip-bomb guards, after `produced` bytes of output from `bytesIn` of input. */
export function guardInflation(produced: number, bytesIn: number, maxOutput: number, maxRatio: number): void {
	if (produced > maxOutput) {
		throw new As2Error("DECOMPRESSION_FAILED", `decompressed content exceeds ${maxOutput} bytes`);
	}
	if (produced > RATIO_GRACE_BYTES && produced / Math.max(1, bytesIn) > maxRatio) {
		throw new As2Error("DECOMPRESSION_FAILED", `decompression ratio above ${maxRatio}:1 (zip bomb?)`);
	}
}

async function* inflateContent(
	ber: BerReader,
	octets: Awaited<ReturnType<BerReader["readHeader"]>>,
	maxOutput: number,
	maxRatio: number,
): Chunks {
	const fail = (message: string, cause?: unknown) => new As2Error("DECOMPRESSION_FAILED", message, { cause });
	async function* compressed(): Chunks {
		yield* ber.octetString(octets);
		// A broken structure after eContent fails the output stream too.
		await ber.leave(); // [0]
		await ber.leave(); // EncapsulatedContentInfo
		await ber.leave(); // CompressedData
		await readContentInfoEnd(ber);
	}
	const inflation = inflateChunks(compressed());
	let produced = 0;
	try {
		for await (const chunk of inflation.output) {
			produced += chunk.byteLength;
			guardInflation(produced, inflation.bytesIn, maxOutput, maxRatio);
			yield chunk as Uint8Array;
		}
	} catch (error) {
		if (isAs2Error(error)) throw error;
		throw fail(`corrupt zlib data: ${(error as Error).message}`, error);
	} finally {
		await ber.input.return();
	}
}
