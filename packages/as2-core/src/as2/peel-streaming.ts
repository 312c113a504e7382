import { ByteReader, type Chunks, collect } from "../bytes/index.ts";
import { decompress } from "../cms/compressed-data.ts";
import { peekCmsContentType } from "../cms/content-info.ts";
import { decrypt } from "../cms/enveloped-data.ts";
import type { Digest } from "../crypto/index.ts";
import { As2Error } from "../errors/index.ts";
import {
	decodeTransferEncoding,
	isTextMediaType,
	type MimeHeaders,
	parseContentType,
	readHeaderBlock,
	readMultipart,
} from "../mime/index.ts";
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
 * The streaming reader of {@link unpack}: peels the layers of a message as its body streams,
 * holding no more than a chunk and the header blocks. The payload comes out as a stream;
 * signatures, MICs, paddings and GCM tags are checked at its end.
 */
export async function peelStreaming(
	headers: MimeHeaders,
	body: Chunks,
	context: Context,
	top = false,
): Promise<Peeled<Chunks>> {
	enterLayer(context);
	const contentType = parseContentType(headers.get("content-type") ?? "text/plain");
	// OpenAs2App#299: a sender put Content-Transfer-Encoding: base64 on the HTTP request itself.
	const decoded = decodeTransferEncoding(headers.get("content-transfer-encoding"), body);
	switch (layerKindOf(contentType)) {
		case "multipart-signed":
			return peelSigned(contentType.params, decoded, context);
		case "cms":
			return peelCms(decoded, context, top);
		default:
			return { headers, payload: top ? tap(decoded, [startPlainMic(context)]) : decoded };
	}
}

async function peelCms(body: Chunks, context: Context, top: boolean): Promise<Peeled<Chunks>> {
	let reader = new ByteReader(body);
	let kind = await peekCmsContentType(reader);
	if (kind === undefined && (await looksLikeBase64(reader))) {
		// Tolerated: a base64 body sent without saying so.
		reader = new ByteReader(decodeTransferEncoding("base64", reader.rest()));
		kind = await peekCmsContentType(reader);
	}
	switch (kind) {
		case "enveloped-data":
		case "auth-enveloped-data": {
			const result = await decrypt(reader.rest(), { identities: requireIdentities(context) });
			const mic = recordEncrypted(context, result);
			return peelDecrypted(mic ? tap(result.content, [mic]) : result.content, context);
		}
		case "compressed-data": {
			context.layers.push({ kind: "compressed" });
			const source = top ? tap(reader.rest(), [startPlainMic(context)]) : reader.rest();
			return peelInner(await decompress(source, decompressOptions(context)), context);
		}
		case "signed-data": {
			const limit = context.options.maxOpaqueSignedBytes ?? MAX_OPAQUE_SIGNED_BYTES;
			const der = await collect(reader.rest(), limit, "signed-data message");
			const content = openOpaqueSigned(der, context);
			return peelInner(
				(async function* () {
					yield content;
				})(),
				context,
			);
		}
		default:
			throw new As2Error("MALFORMED_CMS", "the body is not a CMS structure this receiver can read");
	}
}

/**
 * The entity inside an encrypted layer. A key that did not unwrap decrypts to random bytes
 * (RFC 3218 §2.3.2), and the parsers reading them often give up before the padding or tag
 * is checked at the end: about one message in 25 encrypted to a key we do not hold came out
 * MALFORMED_MIME instead of DECRYPTION_FAILED. So when reading the inner entity fails, the
 * rest of the ciphertext is decrypted first and its verdict wins; the error is the same,
 * at the same point, whatever the garbage looked like.
 */
async function peelDecrypted(content: Chunks, context: Context): Promise<Peeled<Chunks>> {
	const source = content[Symbol.asyncIterator]();
	// The parsers may stop reading (and would close the decryption with it): they get a view
	// that cannot close it, so the rest can still be decrypted.
	const view: Chunks = { [Symbol.asyncIterator]: () => ({ next: () => source.next() }) };
	let inner: Peeled<Chunks>;
	try {
		inner = await peelInner(view, context);
	} catch (error) {
		return decryptionVerdict(source, error);
	}
	return {
		headers: inner.headers,
		payload: (async function* () {
			try {
				yield* inner.payload;
			} catch (error) {
				await decryptionVerdict(source, error);
			}
		})(),
	};
}

/** Decrypts what is left of `source`: its own failure if it fails, else `error`. */
async function decryptionVerdict(source: AsyncIterator<Uint8Array>, error: unknown): Promise<never> {
	for (;;) {
		const next = await source.next();
		if (next.done) throw error;
	}
}

/** The content of a layer: a MIME entity, peeled on, or the raw payload (raw-content.ts). */
async function peelInner(content: Chunks, context: Context): Promise<Peeled<Chunks>> {
	const reader = new ByteReader(content);
	if (!startsMimeEntity(await reader.peek(FIRST_LINE_BYTES)))
		return { headers: rawContentHeaders(), payload: reader.rest() };
	const { headers } = await readHeaderBlock(reader, { maxBytes: context.maxHeaderBytes });
	const inner = await peelStreaming(headers, reader.rest(), context);
	return {
		headers: inner.headers,
		payload: (async function* () {
			yield* inner.payload;
			// Trailing bytes after a nested structure still belong to the hashed entity.
			for await (const _ of reader.rest());
		})(),
	};
}

/** multipart/signed (RFC 1847, RFC 5751 §3.5.3): the first part is hashed byte-exact. */
async function peelSigned(params: Record<string, string>, body: Chunks, context: Context): Promise<Peeled<Chunks>> {
	const signed = startSignedLayer(params, context);
	const parts = readMultipart(body, signed.boundary)[Symbol.asyncIterator]();
	const first = await parts.next();
	if (first.done) throw new As2Error("MALFORMED_MIME", "multipart/signed has no parts");
	const reader = new ByteReader(tap(first.value.raw, [signed.digests]));
	const { headers } = await readHeaderBlock(reader, { maxBytes: context.maxHeaderBytes });
	signed.digests.setText(isTextMediaType(headers.get("content-type") ?? "text/plain"));
	const inner = await peelStreaming(headers, reader.rest(), context);
	return {
		headers: inner.headers,
		payload: (async function* () {
			yield* inner.payload;
			for await (const _ of reader.rest());
			const second = await parts.next();
			if (second.done) throw new As2Error("MALFORMED_MIME", "multipart/signed has no signature part");
			const signatureReader = new ByteReader(second.value.raw);
			const signatureHeaders = (await readHeaderBlock(signatureReader, { maxBytes: context.maxHeaderBytes })).headers;
			const decoded = await collect(
				decodeTransferEncoding(signatureHeaders.get("content-transfer-encoding"), signatureReader.rest()),
				MAX_SIGNATURE_BYTES,
				"signature part",
			);
			for (;;) {
				const extra = await parts.next();
				if (extra.done) break;
				for await (const _ of extra.value.raw);
			}
			finishSignedLayer(signed, signatureDer(decoded), context);
		})(),
	};
}

async function* tap(chunks: Chunks, digests: ReadonlyArray<Pick<Digest, "update">>): Chunks {
	for await (const chunk of chunks) {
		for (const d of digests) d.update(chunk);
		yield chunk;
	}
}

async function looksLikeBase64(reader: ByteReader): Promise<boolean> {
	return looksLikeBase64Bytes(await reader.peek(64));
}
