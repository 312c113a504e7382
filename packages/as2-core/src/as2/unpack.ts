import type { DigestAlgorithm } from "../algorithms.ts";
import { BUFFERED_MAX_BYTES, type Chunks, toChunks } from "../bytes/index.ts";
import type { DecryptIdentity } from "../cms/enveloped-data.ts";
import type { SignatureInfo } from "../cms/signed-data.ts";
import { As2Error } from "../errors/index.ts";
import {
	decodeHeaderText,
	MimeHeaders,
	parseContentType,
	parseHeaderParams,
	suggestedFilename,
} from "../mime/index.ts";
import { parseAs2Id } from "./as2-id.ts";
import type { SignatureVariant } from "./line-ending-variants.ts";
import { type MdnRequest, readMdnRequest } from "./mdn-request.ts";
import { stripMessageId } from "./message-id.ts";
import type { Mic } from "./mic.ts";
import { peelBuffered } from "./peel-buffered.ts";
import { peelStreaming } from "./peel-streaming.ts";
import { asAs2Error, type Context, createContext, type Peeled, report } from "./unpack-context.ts";

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
	/**
	 * The bytes the (outermost multipart/signed) signature verified over: as received, or
	 * repaired to CRLF or LF line ends for a partner whose gateway changed them.
	 */
	signatureVariant?: SignatureVariant;
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

/**
 * Reads an inbound AS2 message in whatever layer order the partner used (RFC 4130, RFC 5402),
 * streaming the payload out. A body given as bytes of up to {@link BUFFERED_MAX_BYTES}
 * takes the buffered path: every layer is read in one step each, with the same checks and
 * results; a message that fails there, or needs streaming, is read again by the streaming
 * reader, so errors surface exactly as documented here.
 *
 * @example
 * const message = await unpack({ headers, body, identities: [me], partnerCertificates: [theirs] });
 * await writeSomewhere(message.payload);          // errors here mean: reject the message
 * const { mic } = await message.complete();      // for the MDN
 */
export async function unpack(options: UnpackOptions): Promise<UnpackedMessage> {
	return (await readMessage(options, "auto"))!;
}

/**
 * The buffered reader alone, for tests: undefined when it cannot read the message (which
 * {@link unpack} then reads streaming). Not part of the package's API.
 */
export async function unpackBuffered(options: UnpackOptions): Promise<UnpackedMessage | undefined> {
	return readMessage(options, "buffered-only");
}

async function readMessage(
	options: UnpackOptions,
	mode: "auto" | "buffered-only",
): Promise<UnpackedMessage | undefined> {
	const headers = toHeaders(options.headers);
	const from = parseAs2Id(headers.get("as2-from"), "AS2-From");
	const to = parseAs2Id(headers.get("as2-to"), "AS2-To");
	const rawId = headers.get("message-id");
	if (!rawId || stripMessageId(rawId) === "") throw new As2Error("INVALID_AS2_HEADERS", "Message-ID is missing");
	const mdnRequest = readMdnRequest(headers);
	const top = new MimeHeaders();
	top.set("Content-Type", headers.get("content-type") ?? "application/octet-stream");
	const cte = headers.get("content-transfer-encoding");
	if (cte) top.set("Content-Transfer-Encoding", cte);
	const disposition = headers.get("content-disposition");
	if (disposition) top.set("Content-Disposition", disposition);

	const requestedMic = mdnRequest?.micAlgorithms[0];
	const read =
		readBuffered(top, options, requestedMic) ??
		(mode === "auto" ? await readStreaming(top, options, requestedMic) : undefined);
	if (!read) return undefined;
	const { context, entity } = read;
	const signed = context.layers.some((l) => l.kind === "signed");
	const encrypted = context.layers.some((l) => l.kind === "encrypted");
	if ((options.requireSigned && !signed) || (options.requireEncrypted && !encrypted)) {
		// A key that did not unwrap decrypts to random bytes (RFC 3218 §2.3.2); about one time in
		// 256 they start with a line feed and read as an entity without headers, that is an
		// unsigned payload. Its padding is checked only at the end, so the entity is decrypted
		// to the end first and a decryption failure wins, as in peelDecrypted.
		if (encrypted) for await (const _ of entity.payload);
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
		...optional("subject", subjectOf(headers)),
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

/** The buffered reader, for a small body in memory; undefined when it does not apply or gives up. */
function readBuffered(
	top: MimeHeaders,
	options: UnpackOptions,
	requestedMic: DigestAlgorithm | undefined,
): { context: Context; entity: Peeled<Chunks> } | undefined {
	const body = options.body;
	if (!(body instanceof Uint8Array) || body.byteLength > BUFFERED_MAX_BYTES) return undefined;
	const context = createContext(options, requestedMic);
	try {
		const entity = peelBuffered(top, body, context, true);
		return { context, entity: { headers: entity.headers, payload: chunksOfPayload(entity.payload) } };
	} catch {
		// The streaming reader reads it again and reports the failure where the API says.
		return undefined;
	}
}

async function readStreaming(
	top: MimeHeaders,
	options: UnpackOptions,
	requestedMic: DigestAlgorithm | undefined,
): Promise<{ context: Context; entity: Peeled<Chunks> }> {
	const context = createContext(options, requestedMic);
	try {
		return { context, entity: await peelStreaming(top, toChunks(options.body), context, true) };
	} catch (error) {
		throw asAs2Error(error);
	}
}

async function* chunksOfPayload(payload: Uint8Array): Chunks {
	if (payload.byteLength > 0) yield payload;
}

function filenameOf(headers: MimeHeaders): string | undefined {
	const disposition = headers.get("content-disposition");
	const fromDisposition = suggestedFilename(disposition ? parseHeaderParams(disposition).params.filename : undefined);
	if (fromDisposition) return fromDisposition;
	const type = headers.get("content-type");
	return suggestedFilename(type ? parseContentType(type).params.name : undefined);
}

/** RFC 2047 words, raw UTF-8 or Latin-1, as partners send it: the text it means. */
function subjectOf(headers: MimeHeaders): string | undefined {
	const subject = headers.get("subject");
	return subject === undefined ? undefined : decodeHeaderText(subject);
}

function toHeaders(input: HeaderInput): MimeHeaders {
	if (input instanceof MimeHeaders) return input;
	if (Symbol.iterator in input) return new MimeHeaders(input as Iterable<[string, string]>);
	return new MimeHeaders(Object.entries(input));
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
	return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
