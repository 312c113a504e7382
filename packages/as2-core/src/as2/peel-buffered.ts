import { cmsContentKindOf } from "../cms/content-info.ts";
import { decompressBytes } from "../cms/decompress-bytes.ts";
import { decryptBytes } from "../cms/decrypt-bytes.ts";
import { createBufferedDigest } from "../crypto/index.ts";
import { As2Error } from "../errors/index.ts";
import {
	decodeTransferEncodingBytes,
	isTextMediaType,
	type MimeHeaders,
	parseContentType,
	parseHeaderBlock,
	splitMultipart,
} from "../mime/index.ts";
import { HeaderEndScanner } from "../mime/read-headers.ts";
import { FIRST_LINE_BYTES, rawContentHeaders, startsMimeEntity } from "./raw-content.ts";
import {
	type Context,
	decompressOptions,
	enterLayer,
	finishSignedLayer,
	layerKindOf,
	looksLikeBase64Bytes,
	MAX_OPAQUE_SIGNED_BYTES,
	MAX_SIGNATURE_BYTES,
	openOpaqueSigned,
	type Peeled,
	recordEncrypted,
	requireIdentities,
	signatureDer,
	startPlainMic,
	startSignedLayer,
} from "./unpack-context.ts";

/**
 * Thrown when a small message needs something only the streaming reader does (a
 * decompressed payload past 8 MiB, a header block without its blank line): {@link unpack}
 * then reads the message with it.
 */
export class StreamingNeeded extends Error {
	override readonly name = "StreamingNeeded";
}

/**
 * The buffered reader of {@link unpack}: the same layers as `peelStreaming`, step for step
 * and through the same shared steps (`unpack-context.ts`), for a small body already in
 * memory, with each layer done in one synchronous call on the whole array. It checks
 * everything before it returns, so it throws what the streaming reader would report at
 * the end of the payload; unpack then lets the streaming reader report it, where and as
 * the API documents.
 */
export function peelBuffered(
	headers: MimeHeaders,
	body: Uint8Array,
	context: Context,
	top = false,
): Peeled<Uint8Array> {
	enterLayer(context);
	const contentType = parseContentType(headers.get("content-type") ?? "text/plain");
	const decoded = decodeTransferEncodingBytes(headers.get("content-transfer-encoding"), body);
	switch (layerKindOf(contentType)) {
		case "multipart-signed":
			return peelSigned(contentType.params, decoded, context);
		case "cms":
			return peelCms(decoded, context, top);
		default:
			if (top) startPlainMic(context).update(decoded);
			return { headers, payload: decoded };
	}
}

function peelCms(body: Uint8Array, context: Context, top: boolean): Peeled<Uint8Array> {
	let der = body;
	let kind = cmsContentKindOf(der);
	if (kind === undefined && looksLikeBase64Bytes(der)) {
		// Tolerated: a base64 body sent without saying so.
		der = decodeTransferEncodingBytes("base64", der);
		kind = cmsContentKindOf(der);
	}
	switch (kind) {
		case "enveloped-data":
		case "auth-enveloped-data": {
			const result = decryptBytes(der, { identities: requireIdentities(context) });
			// The decrypted content is ours and stays as it is: hashed only if its MIC is the one used.
			const mic = recordEncrypted(context, result, createBufferedDigest);
			const inner = peelInner(result.content, context);
			// RFC 4130 §7.3.1: the decrypted entity's MIC counts only when no signature is inside
			// (the signed content's wins), so it is hashed only then.
			if (!context.signedMic) mic?.update(result.content);
			return inner;
		}
		case "compressed-data": {
			context.layers.push({ kind: "compressed" });
			if (top) startPlainMic(context).update(der);
			const inflated = decompressBytes(der, decompressOptions(context));
			if (!inflated) throw new StreamingNeeded("the decompressed content is large");
			return peelInner(inflated, context);
		}
		case "signed-data": {
			const limit = context.options.maxOpaqueSignedBytes ?? MAX_OPAQUE_SIGNED_BYTES;
			if (der.byteLength > limit)
				throw new As2Error("MESSAGE_TOO_LARGE", `signed-data message is larger than ${limit} bytes`);
			return peelInner(openOpaqueSigned(der, context), context);
		}
		default:
			throw new As2Error("MALFORMED_CMS", "the body is not a CMS structure this receiver can read");
	}
}

/** The content of a layer: a MIME entity (its header block, then the next layer) or the raw payload (raw-content.ts). */
function peelInner(content: Uint8Array, context: Context): Peeled<Uint8Array> {
	if (!startsMimeEntity(content.subarray(0, FIRST_LINE_BYTES)))
		return { headers: rawContentHeaders(), payload: content };
	const { headers, body } = splitEntity(content, context.maxHeaderBytes);
	const inner = peelBuffered(headers, body, context);
	return { headers: inner.headers, payload: inner.payload };
}

/** multipart/signed (RFC 1847, RFC 5751 §3.5.3): the first part is hashed byte-exact. */
function peelSigned(params: Record<string, string>, body: Uint8Array, context: Context): Peeled<Uint8Array> {
	const signed = startSignedLayer(params, context, createBufferedDigest);
	const [first, second] = splitMultipart(body, signed.boundary);
	if (!first) throw new As2Error("MALFORMED_MIME", "multipart/signed has no parts");
	signed.digests.updateWhole(first);
	const content = splitEntity(first, context.maxHeaderBytes);
	signed.digests.setText(isTextMediaType(content.headers.get("content-type") ?? "text/plain"));
	const inner = peelBuffered(content.headers, content.body, context);
	if (!second) throw new As2Error("MALFORMED_MIME", "multipart/signed has no signature part");
	const signature = splitEntity(second, context.maxHeaderBytes);
	const decoded = decodeTransferEncodingBytes(signature.headers.get("content-transfer-encoding"), signature.body);
	if (decoded.byteLength > MAX_SIGNATURE_BYTES) {
		throw new As2Error("MESSAGE_TOO_LARGE", `signature part is larger than ${MAX_SIGNATURE_BYTES} bytes`);
	}
	finishSignedLayer(signed, signatureDer(decoded), context);
	return inner;
}

/**
 * `readHeaderBlock` on an entity held in memory: the header block up to its blank line, and
 * the body after it. An entity without the blank line (headers only) is left to the
 * streaming reader, whose rules for it depend on the size limit.
 */
function splitEntity(entity: Uint8Array, maxBytes: number): { headers: MimeHeaders; body: Uint8Array } {
	const end = new HeaderEndScanner().push(entity.subarray(0, maxBytes));
	if (end < 0) throw new StreamingNeeded("a header block without its blank line");
	return { headers: parseHeaderBlock(entity.subarray(0, end)), body: entity.subarray(end) };
}
