import { DIGEST_ALGORITHMS, type DigestAlgorithm, parseMicalg } from "../algorithms.ts";
import { ByteReader, type Chunks, collect, toChunks } from "../bytes/index.ts";
import { decompress } from "../cms/compressed-data.ts";
import { peekCmsContentType } from "../cms/content-info.ts";
import { type DecryptIdentity, decrypt } from "../cms/enveloped-data.ts";
import { inspectSignedData, type SignatureInfo, verifyDetached } from "../cms/signed-data.ts";
import { createDigest, type Digest, digestBytes } from "../crypto/index.ts";
import { As2Error, isAs2Error } from "../errors/index.ts";
import {
	decodeTransferEncoding,
	MimeHeaders,
	parseContentType,
	parseHeaderParams,
	readHeaderBlock,
	readMultipart,
} from "../mime/index.ts";
import { parseAs2Id } from "./as2-id.ts";
import { type MdnRequest, readMdnRequest } from "./mdn-request.ts";
import { stripMessageId } from "./message-id.ts";
import { type Mic, micFromDigest } from "./mic.ts";

export type HeaderInput = MimeHeaders | Iterable<[string, string]> | Record<string, string>;

export interface UnpackOptions {
	/** The HTTP request headers. */
	headers: HeaderInput;
	body: ReadableStream<Uint8Array> | Chunks | Uint8Array;
	/** Our identities for decryption; several during a certificate rollover (first that works). */
	identities?: DecryptIdentity[];
	/** The partner's certificates a signature must come from. */
	partnerCertificates?: Uint8Array[];
	/** Judge certificate validity at this time (old captures); default now. */
	at?: Date;
	/** Partner policy: refuse messages without these layers (insufficient-message-security). */
	requireSigned?: boolean;
	requireEncrypted?: boolean;
	/** Zip-bomb guards for the compressed layer. */
	maxDecompressedBytes?: number;
	maxDecompressionRatio?: number;
	/** Largest MIME header block accepted in any layer (default 64 KiB). */
	maxHeaderBytes?: number;
	/** Largest opaque (application/pkcs7-mime signed-data) message, which is buffered (default 64 MiB). */
	maxOpaqueSignedBytes?: number;
}

export type Layer =
	| { kind: "encrypted"; container: "enveloped-data" | "auth-enveloped-data"; algorithm: string; keyEncryption: string }
	| { kind: "signed"; form: "multipart" | "opaque"; digest?: DigestAlgorithm; micalg?: string }
	| { kind: "compressed" };

export interface UnpackReport {
	/** Received-Content-MIC to return in the MDN (RFC 4130 §7.3.1). */
	mic: Mic;
	/** Which bytes the MIC covers: the signed entity, the decrypted entity, or the content. */
	micReading: "signed" | "encrypted" | "plain";
	signature?: SignatureInfo;
	layers: Layer[];
}

export interface UnpackedMessage {
	messageId: string;
	from: string;
	to: string;
	subject?: string;
	as2Version?: string;
	mdnRequest?: MdnRequest;
	/** Outermost first. Known before the payload is read; signatures are checked at its end. */
	layers: Layer[];
	signed: boolean;
	encrypted: boolean;
	compressed: boolean;
	contentType: string;
	filename?: string;
	payloadHeaders: MimeHeaders;
	/**
	 * The payload, streamed. Read it to the end: a bad signature, MIC or GCM tag surfaces as
	 * an error at the end of this stream, so store it provisionally until then.
	 */
	payload: Chunks;
	/** Resolves once `payload` has been read through; rejects with the same error it did. */
	complete(): Promise<UnpackReport>;
}

interface Context {
	options: UnpackOptions;
	layers: Layer[];
	requestedMic?: DigestAlgorithm;
	signedMic?: { digests: Map<DigestAlgorithm, Digest>; algorithm: DigestAlgorithm; value?: Uint8Array };
	encryptedMic?: Digest;
	plainMic?: Digest;
	signature?: SignatureInfo;
	depth: number;
	maxHeaderBytes: number;
}

const MAX_LAYERS = 8;
const MAX_SIGNATURE_BYTES = 1 << 20;

/**
 * Reads an inbound AS2 message in whatever layer order the partner used (RFC 4130, RFC 5402),
 * streaming the payload out.
 *
 * @example
 * const message = await unpack({ headers, body, identities: [me], partnerCertificates: [theirs] });
 * await writeSomewhere(message.payload);          // errors here mean: reject the message
 * const { mic } = await message.complete();      // for the MDN
 */
export async function unpack(options: UnpackOptions): Promise<UnpackedMessage> {
	const headers = toHeaders(options.headers);
	const from = parseAs2Id(headers.get("as2-from"), "AS2-From");
	const to = parseAs2Id(headers.get("as2-to"), "AS2-To");
	const rawId = headers.get("message-id");
	if (!rawId || stripMessageId(rawId) === "") throw new As2Error("INVALID_AS2_HEADERS", "Message-ID is missing");
	const mdnRequest = readMdnRequest(headers);
	const context: Context = {
		options,
		layers: [],
		depth: 0,
		maxHeaderBytes: options.maxHeaderBytes ?? 64 * 1024,
		...(mdnRequest?.micAlgorithms[0] ? { requestedMic: mdnRequest.micAlgorithms[0] } : {}),
	};
	const top = new MimeHeaders();
	top.set("Content-Type", headers.get("content-type") ?? "application/octet-stream");
	const cte = headers.get("content-transfer-encoding");
	if (cte) top.set("Content-Transfer-Encoding", cte);
	const disposition = headers.get("content-disposition");
	if (disposition) top.set("Content-Disposition", disposition);

	const entity = await guard(() => peel(top, toChunks(options.body), context, true));
	const signed = context.layers.some((l) => l.kind === "signed");
	const encrypted = context.layers.some((l) => l.kind === "encrypted");
	if ((options.requireSigned && !signed) || (options.requireEncrypted && !encrypted)) {
		throw new As2Error(
			"INSUFFICIENT_MESSAGE_SECURITY",
			`the partner agreement requires ${[options.requireSigned && "signed", options.requireEncrypted && "encrypted"].filter(Boolean).join(" and ")} messages`,
		);
	}

	let settle: { resolve: (r: UnpackReport) => void; reject: (e: unknown) => void } | undefined;
	const completion = new Promise<UnpackReport>((resolve, reject) => {
		settle = { resolve, reject };
	});
	completion.catch(() => {});
	const payload = (async function* () {
		try {
			for await (const chunk of entity.payload) yield chunk;
			settle?.resolve(report(context));
		} catch (error) {
			const wrapped = asAs2Error(error);
			settle?.reject(wrapped);
			throw wrapped;
		}
	})();

	const contentType = entity.headers.get("content-type") ?? "application/octet-stream";
	const filename = filenameOf(entity.headers);
	return {
		messageId: stripMessageId(rawId),
		from,
		to,
		...optional("subject", headers.get("subject")),
		...optional("as2Version", headers.get("as2-version")),
		...(mdnRequest ? { mdnRequest } : {}),
		layers: context.layers,
		signed,
		encrypted,
		compressed: context.layers.some((l) => l.kind === "compressed"),
		contentType,
		...(filename ? { filename } : {}),
		payloadHeaders: entity.headers,
		payload,
		complete: () => completion,
	};
}

interface Peeled {
	headers: MimeHeaders;
	payload: Chunks;
}

async function peel(headers: MimeHeaders, body: Chunks, context: Context, top = false): Promise<Peeled> {
	if (++context.depth > MAX_LAYERS) throw new As2Error("MALFORMED_MIME", `more than ${MAX_LAYERS} nested layers`);
	const contentType = parseContentType(headers.get("content-type") ?? "text/plain");
	// OpenAs2App#299: a sender put Content-Transfer-Encoding: base64 on the HTTP request itself.
	const decoded = decodeTransferEncoding(headers.get("content-transfer-encoding"), body);
	const media = contentType.mediaType;
	if (media === "multipart/signed") return peelSigned(contentType.params, decoded, context);
	if (
		/^application\/(x-)?pkcs7-mime$/.test(media) ||
		(media === "application/octet-stream" && contentType.params["smime-type"])
	) {
		return peelCms(decoded, context, top);
	}
	if (top) context.plainMic = createDigest(context.requestedMic ?? "sha256");
	const plain = context.plainMic;
	return { headers, payload: top && plain ? tap(decoded, [plain]) : decoded };
}

async function peelCms(body: Chunks, context: Context, top: boolean): Promise<Peeled> {
	let reader = new ByteReader(body);
	let kind = await peekCmsContentType(reader);
	if (kind === undefined && (await looksLikeBase64(reader))) {
		// Tolerated: a base64 body sent without saying so.
		reader = new ByteReader(decodeTransferEncoding("base64", reader.rest()));
		kind = await peekCmsContentType(reader);
	}
	switch (kind) {
		case "enveloped-data":
		case "auth-enveloped-data":
			return peelEncrypted(reader, context);
		case "compressed-data": {
			context.layers.push({ kind: "compressed" });
			let source = reader.rest();
			if (top) {
				context.plainMic = createDigest(context.requestedMic ?? "sha256");
				source = tap(source, [context.plainMic]);
			}
			const inflated = await decompress(source, {
				...(context.options.maxDecompressedBytes ? { maxOutputBytes: context.options.maxDecompressedBytes } : {}),
				...(context.options.maxDecompressionRatio ? { maxRatio: context.options.maxDecompressionRatio } : {}),
			});
			return peelInner(inflated, context);
		}
		case "signed-data":
			return peelOpaqueSigned(reader, context);
		default:
			throw new As2Error("MALFORMED_CMS", "the body is not a CMS structure this receiver can read");
	}
}

async function peelEncrypted(reader: ByteReader, context: Context): Promise<Peeled> {
	const identities = context.options.identities ?? [];
	if (identities.length === 0)
		throw new As2Error("DECRYPTION_FAILED", "the message is encrypted but no decryption key is configured");
	const result = await decrypt(reader.rest(), { identities });
	context.layers.push({
		kind: "encrypted",
		container: result.kind,
		algorithm: result.algorithm,
		keyEncryption: result.keyEncryption,
	});
	let content = result.content;
	if (!context.signedMic && !context.encryptedMic) {
		// RFC 4130 §7.3.1: unsigned-encrypted → MIC over the decrypted entity with its headers.
		// Provisional until the entity turns out to hold a signature, which then wins.
		context.encryptedMic = createDigest(context.requestedMic ?? "sha256");
		content = tap(content, [context.encryptedMic]);
	}
	return peelInner(content, context);
}

async function peelInner(content: Chunks, context: Context): Promise<Peeled> {
	const reader = new ByteReader(content);
	const { headers } = await readHeaderBlock(reader, { maxBytes: context.maxHeaderBytes });
	const inner = await peel(headers, reader.rest(), context);
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
async function peelSigned(params: Record<string, string>, body: Chunks, context: Context): Promise<Peeled> {
	const boundary = params.boundary;
	if (!boundary) throw new As2Error("MALFORMED_MIME", "multipart/signed without a boundary");
	const headerAlgorithm = parseMicalg(params.micalg);
	const layer: Layer = { kind: "signed", form: "multipart", ...(params.micalg ? { micalg: params.micalg } : {}) };
	context.layers.push(layer);
	// A missing or unknown micalg (as2-anchors §D6) costs hashing with every algorithm.
	const algorithms = new Set<DigestAlgorithm>(headerAlgorithm ? [headerAlgorithm] : DIGEST_ALGORITHMS);
	const outermost = !context.signedMic;
	const micAlgorithm = context.requestedMic ?? headerAlgorithm ?? "sha256";
	if (outermost) algorithms.add(micAlgorithm);
	const digests = new Map([...algorithms].map((a) => [a, createDigest(a)] as const));
	if (outermost) context.signedMic = { digests, algorithm: micAlgorithm };

	const parts = readMultipart(body, boundary)[Symbol.asyncIterator]();
	const first = await parts.next();
	if (first.done) throw new As2Error("MALFORMED_MIME", "multipart/signed has no parts");
	const reader = new ByteReader(tap(first.value.raw, [...digests.values()]));
	const { headers } = await readHeaderBlock(reader, { maxBytes: context.maxHeaderBytes });
	const inner = await peel(headers, reader.rest(), context);
	const options = context.options;
	return {
		headers: inner.headers,
		payload: (async function* () {
			yield* inner.payload;
			for await (const _ of reader.rest());
			const second = await parts.next();
			if (second.done) throw new As2Error("MALFORMED_MIME", "multipart/signed has no signature part");
			const signatureReader = new ByteReader(second.value.raw);
			const signatureHeaders = (await readHeaderBlock(signatureReader, { maxBytes: context.maxHeaderBytes })).headers;
			let der = await collect(
				decodeTransferEncoding(signatureHeaders.get("content-transfer-encoding"), signatureReader.rest()),
				MAX_SIGNATURE_BYTES,
				"signature part",
			);
			if (der[0] !== 0x30 && /^[A-Za-z0-9+/=\s]+$/.test(Buffer.from(der).toString("latin1"))) {
				der = new Uint8Array(Buffer.from(Buffer.from(der).toString("latin1"), "base64"));
			}
			for (;;) {
				const extra = await parts.next();
				if (extra.done) break;
				for await (const _ of extra.value.raw);
			}
			const computed = new Map([...digests].map(([a, d]) => [a, d.digest()] as const));
			const info = verifyDetached(der, (a) => computed.get(a), {
				...(options.partnerCertificates ? { trustedCertificates: options.partnerCertificates } : {}),
				...(options.at ? { at: options.at } : {}),
			});
			if (layer.kind === "signed") layer.digest = info.digest;
			if (outermost && context.signedMic) {
				context.signedMic.value = computed.get(context.signedMic.algorithm);
				context.signature = info;
			}
		})(),
	};
}

/** application/pkcs7-mime; smime-type=signed-data: the content travels inside the CMS. */
async function peelOpaqueSigned(reader: ByteReader, context: Context): Promise<Peeled> {
	const der = await collect(reader.rest(), context.options.maxOpaqueSignedBytes ?? 64 << 20, "signed-data message");
	const info = inspectSignedData(der);
	const content = info.encapsulatedContent;
	if (!content) throw new As2Error("MALFORMED_CMS", "signed-data without content");
	const layer: Layer = { kind: "signed", form: "opaque", digest: info.digest };
	context.layers.push(layer);
	const verified = verifyDetached(der, (a) => digestBytes(a, content), {
		...(context.options.partnerCertificates ? { trustedCertificates: context.options.partnerCertificates } : {}),
		...(context.options.at ? { at: context.options.at } : {}),
	});
	if (!context.signedMic) {
		const algorithm = context.requestedMic ?? info.digest;
		context.signedMic = { digests: new Map(), algorithm, value: digestBytes(algorithm, content) };
		context.signature = verified;
	}
	return peelInner(
		(async function* () {
			yield content;
		})(),
		context,
	);
}

function report(context: Context): UnpackReport {
	const base = { layers: context.layers, ...(context.signature ? { signature: context.signature } : {}) };
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

async function* tap(chunks: Chunks, digests: Digest[]): Chunks {
	for await (const chunk of chunks) {
		for (const d of digests) d.update(chunk);
		yield chunk;
	}
}

async function looksLikeBase64(reader: ByteReader): Promise<boolean> {
	const head = await reader.peek(64);
	return head.byteLength > 0 && /^[A-Za-z0-9+/=\r\n]+$/.test(Buffer.from(head).toString("latin1"));
}

function filenameOf(headers: MimeHeaders): string | undefined {
	const disposition = headers.get("content-disposition");
	const fromDisposition = disposition ? parseHeaderParams(disposition).params.filename : undefined;
	if (fromDisposition) return fromDisposition;
	const type = headers.get("content-type");
	return type ? parseContentType(type).params.name : undefined;
}

function toHeaders(input: HeaderInput): MimeHeaders {
	if (input instanceof MimeHeaders) return input;
	if (Symbol.iterator in input) return new MimeHeaders(input as Iterable<[string, string]>);
	return new MimeHeaders(Object.entries(input));
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
	return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

function asAs2Error(error: unknown): As2Error {
	if (isAs2Error(error)) return error;
	return new As2Error("MALFORMED_MIME", `cannot read the message: ${(error as Error)?.message ?? error}`, {
		cause: error,
	});
}

async function guard<T>(fn: () => Promise<T>): Promise<T> {
	try {
		return await fn();
	} catch (error) {
		throw asAs2Error(error);
	}
}
