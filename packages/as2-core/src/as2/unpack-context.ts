import { DIGEST_ALGORITHMS, type DigestAlgorithm, parseMicalg } from "../algorithms.ts";
import { fromLatin1 } from "../bytes/index.ts";
import { inspectSignedData, type SignatureInfo, verifyDetached } from "../cms/signed-data.ts";
import { createDigest, type Digest, digestBytes } from "../crypto/index.ts";
import { As2Error, isAs2Error } from "../errors/index.ts";
import type { ContentType, MimeHeaders } from "../mime/index.ts";
import { LineEndingDigests, type SignatureVariant } from "./line-ending-variants.ts";
import { micFromDigest } from "./mic.ts";
import type { Layer, UnpackOptions, UnpackReport } from "./unpack.ts";

/**
 * What both readers of {@link unpack} (streaming and buffered) share: the state of one
 * message's layers, how each layer is recognised and recorded, and the report. Keeping it
 * in one place is what makes the two readers give the same result for the same message.
 */
export interface Context {
	options: UnpackOptions;
	layers: Layer[];
	requestedMic?: DigestAlgorithm;
	signedMic?: { digests: Map<DigestAlgorithm, Digest>; algorithm: DigestAlgorithm; value?: Uint8Array };
	encryptedMic?: Digest;
	plainMic?: Digest;
	signature?: SignatureInfo;
	signatureVariant?: SignatureVariant;
	depth: number;
	maxHeaderBytes: number;
}

/** A peeled message: the payload entity's headers and its content. */
export interface Peeled<Payload> {
	headers: MimeHeaders;
	payload: Payload;
}

const MAX_LAYERS = 8;
/** Largest signature part (base64 or DER) read. */
export const MAX_SIGNATURE_BYTES = 1 << 20;
/** Largest opaque signed-data message, which is buffered (default). */
export const MAX_OPAQUE_SIGNED_BYTES = 64 << 20;

export function createContext(options: UnpackOptions, requestedMic: DigestAlgorithm | undefined): Context {
	return {
		options,
		layers: [],
		depth: 0,
		maxHeaderBytes: options.maxHeaderBytes ?? 64 * 1024,
		...(requestedMic ? { requestedMic } : {}),
	};
}

/** Counts a layer; a message nested deeper than any real one is MALFORMED_MIME. */
export function enterLayer(context: Context): void {
	if (++context.depth > MAX_LAYERS) throw new As2Error("MALFORMED_MIME", `more than ${MAX_LAYERS} nested layers`);
}

/** How an entity is read: multipart/signed, a CMS structure (pkcs7-mime), or the payload. */
export function layerKindOf(contentType: ContentType): "multipart-signed" | "cms" | "plain" {
	const media = contentType.mediaType;
	if (media === "multipart/signed") return "multipart-signed";
	if (
		/^application\/(x-)?pkcs7-mime$/.test(media) ||
		(media === "application/octet-stream" && contentType.params["smime-type"])
	) {
		return "cms";
	}
	return "plain";
}

/** Tolerated: a CMS body that is not DER but base64 text sent without saying so (first 64 bytes looked at). */
export function looksLikeBase64Bytes(body: Uint8Array): boolean {
	const head = body.subarray(0, 64);
	return head.byteLength > 0 && /^[A-Za-z0-9+/=\r\n]+$/.test(Buffer.from(head).toString("latin1"));
}

/** RFC 4130 §7.3.1: unsigned, unencrypted → MIC over the content (the body as received, decoded). */
export function startPlainMic(context: Context): Digest {
	context.plainMic = createDigest(context.requestedMic ?? "sha256");
	return context.plainMic;
}

/**
 * Records an encrypted layer. RFC 4130 §7.3.1: unsigned-encrypted → MIC over the decrypted
 * entity with its headers; returns the digest to feed it when this layer sets that MIC
 * (provisional until the entity turns out to hold a signature, which then wins).
 */
export function recordEncrypted(
	context: Context,
	result: { kind: "enveloped-data" | "auth-enveloped-data"; algorithm: string; keyEncryption: string },
	makeDigest: (algorithm: DigestAlgorithm) => Digest = createDigest,
): Digest | undefined {
	context.layers.push({
		kind: "encrypted",
		container: result.kind,
		algorithm: result.algorithm,
		keyEncryption: result.keyEncryption,
	});
	if (context.signedMic || context.encryptedMic) return undefined;
	context.encryptedMic = makeDigest(context.requestedMic ?? "sha256");
	return context.encryptedMic;
}

export function requireIdentities(context: Context) {
	const identities = context.options.identities ?? [];
	if (identities.length === 0) {
		throw new As2Error("DECRYPTION_FAILED", "the message is encrypted but no decryption key is configured");
	}
	return identities;
}

/** The zip-bomb guards of unpack's options, for the compressed layer. */
export function decompressOptions(context: Context) {
	return {
		...(context.options.maxDecompressedBytes ? { maxOutputBytes: context.options.maxDecompressedBytes } : {}),
		...(context.options.maxDecompressionRatio ? { maxRatio: context.options.maxDecompressionRatio } : {}),
	};
}

/**
 * A multipart/signed layer (RFC 1847, RFC 5751 §3.5.3) being read: the first part is hashed
 * byte-exact, and in the line-ending forms a gateway may have turned it from.
 */
export interface SignedLayer {
	boundary: string;
	layer: Layer & { kind: "signed" };
	digests: LineEndingDigests;
	outermost: boolean;
}

/**
 * `makeDigest`: the buffered reader, which holds the part in memory, passes
 * `createBufferedDigest`: each digest is then one call over the part, made only if asked for
 * (a missing micalg starts all four algorithms; the signature needs one).
 */
export function startSignedLayer(
	params: Record<string, string>,
	context: Context,
	makeDigest: (algorithm: DigestAlgorithm) => Digest = createDigest,
): SignedLayer {
	const boundary = params.boundary;
	if (!boundary) throw new As2Error("MALFORMED_MIME", "multipart/signed without a boundary");
	const headerAlgorithm = parseMicalg(params.micalg);
	const layer: Layer & { kind: "signed" } = {
		kind: "signed",
		form: "multipart",
		...(params.micalg ? { micalg: params.micalg } : {}),
	};
	context.layers.push(layer);
	// A missing or unknown micalg (as2-anchors §D6) costs hashing with every algorithm.
	const algorithms = new Set<DigestAlgorithm>(headerAlgorithm ? [headerAlgorithm] : DIGEST_ALGORITHMS);
	const outermost = !context.signedMic;
	const micAlgorithm = context.requestedMic ?? headerAlgorithm ?? "sha256";
	if (outermost) algorithms.add(micAlgorithm);
	const digests = new Map([...algorithms].map((a) => [a, makeDigest(a)] as const));
	if (outermost) context.signedMic = { digests, algorithm: micAlgorithm };
	return { boundary, layer, digests: new LineEndingDigests(digests), outermost };
}

/** The signature part's content, transfer-decoded: DER, or base64 sent as binary (tolerated). */
export function signatureDer(decoded: Uint8Array): Uint8Array {
	if (decoded[0] !== 0x30 && /^[A-Za-z0-9+/=\s]+$/.test(fromLatin1(decoded))) {
		return new Uint8Array(Buffer.from(fromLatin1(decoded), "base64"));
	}
	return decoded;
}

/**
 * Verifies a multipart/signed layer once its first part has been hashed (RFC 5652 §5.6). When
 * the content does not match the signature, the line-ending forms are tried (issue #17:
 * partners that sign one form and deliver the other); only a form that verifies is accepted,
 * and the MIC follows it (RFC 4130 §7.3.1: the MIC is over what was signed). Nothing
 * verifying, the failure is the one of the bytes as received.
 */
export function finishSignedLayer(signed: SignedLayer, der: Uint8Array, context: Context): void {
	const options = context.options;
	signed.digests.end();
	const verifyOver = (digests: Map<DigestAlgorithm, Digest>) => {
		// Each digest finished when first asked for: the signature's, then the MIC's.
		const finished = new Map<DigestAlgorithm, Uint8Array>();
		const computed = (algorithm: DigestAlgorithm) => {
			let value = finished.get(algorithm);
			if (!value) {
				value = digests.get(algorithm)?.digest();
				if (value) finished.set(algorithm, value);
			}
			return value;
		};
		const info = verifyDetached(der, computed, {
			...(options.partnerCertificates ? { trustedCertificates: options.partnerCertificates } : {}),
			...(options.at ? { at: options.at } : {}),
		});
		return { computed, info };
	};
	let variant: SignatureVariant = "as_received";
	let verified: ReturnType<typeof verifyOver>;
	try {
		verified = verifyOver(signed.digests.asReceived);
	} catch (error) {
		if (!isAs2Error(error) || error.code !== "INTEGRITY_CHECK_FAILED") throw error;
		const repaired = signed.digests.repairs().flatMap((repair) => {
			try {
				return [{ variant: repair.variant, ...verifyOver(repair.digests) }];
			} catch {
				return [];
			}
		})[0];
		if (!repaired) throw error;
		variant = repaired.variant;
		verified = repaired;
	}
	signed.layer.digest = verified.info.digest;
	if (signed.outermost && context.signedMic) {
		context.signedMic.value = verified.computed(context.signedMic.algorithm);
		context.signature = verified.info;
		context.signatureVariant = variant;
	}
}

/** application/pkcs7-mime; smime-type=signed-data: verifies it and returns the content it carries. */
export function openOpaqueSigned(der: Uint8Array, context: Context): Uint8Array {
	const info = inspectSignedData(der);
	const content = info.encapsulatedContent;
	if (!content) throw new As2Error("MALFORMED_CMS", "signed-data without content");
	context.layers.push({ kind: "signed", form: "opaque", digest: info.digest });
	const verified = verifyDetached(der, (a) => digestBytes(a, content), {
		...(context.options.partnerCertificates ? { trustedCertificates: context.options.partnerCertificates } : {}),
		...(context.options.at ? { at: context.options.at } : {}),
	});
	if (!context.signedMic) {
		const algorithm = context.requestedMic ?? info.digest;
		context.signedMic = { digests: new Map(), algorithm, value: digestBytes(algorithm, content) };
		context.signature = verified;
	}
	return content;
}

export function report(context: Context): UnpackReport {
	const base = {
		layers: context.layers,
		...(context.signature ? { signature: context.signature } : {}),
		...(context.signatureVariant ? { signatureVariant: context.signatureVariant } : {}),
	};
	if (context.signedMic?.value) {
		return { ...base, mic: micFromDigest(context.signedMic.value, context.signedMic.algorithm), micReading: "signed" };
	}
	const digest = context.encryptedMic ?? context.plainMic;
	if (!digest) throw new As2Error("INTERNAL_ERROR", "no MIC was computed");
	return {
		...base,
		mic: micFromDigest(digest.digest(), digest.algorithm),
		micReading: context.encryptedMic ? "encrypted" : "plain",
	};
}

export function asAs2Error(error: unknown): As2Error {
	if (isAs2Error(error)) return error;
	return new As2Error("MALFORMED_MIME", `cannot read the message: ${(error as Error)?.message ?? error}`, {
		cause: error,
	});
}
