import { DIGEST_ALGORITHMS, type DigestAlgorithm, parseMicalg } from "../algorithms.ts";
import { parseAs2Id } from "../as2/as2-id.ts";
import { stripMessageId } from "../as2/message-id.ts";
import { type Mic, micEquals, parseMic } from "../as2/mic.ts";
import type { HeaderInput } from "../as2/unpack.ts";
import { type Chunks, collect, fromBase64, fromLatin1, toChunks } from "../bytes/index.ts";
import { type SignatureInfo, verifyDetached } from "../cms/signed-data.ts";
import { digestBytes } from "../crypto/index.ts";
import { As2Error, isAs2Error } from "../errors/index.ts";
import {
	decodeTransferEncodingBytes,
	MimeHeaders,
	parseContentType,
	parseHeaderBlock,
	parseMimeEntity,
	splitMultipart,
} from "../mime/index.ts";
import { isPositiveDisposition, type ParsedDisposition, parseDisposition } from "./disposition.ts";

export interface ParseMdnOptions {
	headers: HeaderInput;
	body: Uint8Array | Chunks | ReadableStream<Uint8Array>;
	/** The partner's certificates; a signed MDN must be signed by one of them. */
	partnerCertificates?: Uint8Array[];
	at?: Date;
	/** Largest MDN accepted (default 1 MiB). */
	maxBytes?: number;
}

export interface ParsedMdn {
	/** The MDN's own Message-ID: optional in the wild (django-pyas2#60). */
	messageId?: string;
	from?: string;
	to?: string;
	originalMessageId: string;
	disposition: ParsedDisposition;
	/** processed, or processed with a warning. */
	positive: boolean;
	mic?: Mic;
	reportingUa?: string;
	originalRecipient?: string;
	finalRecipient?: string;
	signed: boolean;
	/** undefined when unsigned; false with `signatureError` when the signature does not verify. */
	signatureValid?: boolean;
	signatureError?: As2Error;
	signature?: SignatureInfo;
	/** The human-readable part, if any. */
	text?: string;
}

const MAX_MDN_BYTES = 1 << 20;

/**
 * Reads an MDN (RFC 3798, RFC 4130 §7.4), signed or not, tolerantly (as2-anchors §C6, §D7):
 * missing Message-ID or Original-Recipient, folded fields, white-space variants, a missing
 * report-type. A bad signature is reported (`signatureValid: false`), not thrown, so the
 * caller decides; unreadable MDNs throw INVALID_MDN.
 */
export async function parseMdn(options: ParseMdnOptions): Promise<ParsedMdn> {
	const headers =
		options.headers instanceof MimeHeaders
			? options.headers
			: new MimeHeaders(
					Symbol.iterator in options.headers
						? (options.headers as Iterable<[string, string]>)
						: Object.entries(options.headers as Record<string, string>),
				);
	const maxBytes = options.maxBytes ?? MAX_MDN_BYTES;
	const body =
		options.body instanceof Uint8Array
			? limited(options.body, maxBytes, "MDN")
			: await collect(toChunks(options.body), maxBytes, "MDN");
	try {
		return readMdn(headers, body, options);
	} catch (error) {
		if (isAs2Error(error) && error.code === "INVALID_MDN") throw error;
		throw new As2Error("INVALID_MDN", `cannot read the MDN: ${(error as Error).message}`, { cause: error });
	}
}

/** An MDN is small and read in memory, in one step per MIME layer (RFC 3798, RFC 1847). */
function readMdn(headers: MimeHeaders, body: Uint8Array, options: ParseMdnOptions): ParsedMdn {
	const contentType = parseContentType(headers.get("content-type") ?? "");
	let reportType = contentType;
	let reportBody = decoded(headers.get("content-transfer-encoding"), body);
	let signed = false;
	let signatureValid: boolean | undefined;
	let signatureError: As2Error | undefined;
	let signature: SignatureInfo | undefined;

	if (contentType.mediaType === "multipart/signed") {
		signed = true;
		const parts = partsOf(reportBody, contentType.params.boundary);
		const [content, signaturePart] = parts;
		if (!content || !signaturePart) throw new As2Error("INVALID_MDN", "signed MDN without two parts");
		const entity = parseMimeEntity(content);
		reportType = parseContentType(entity.headers.get("content-type") ?? "");
		reportBody = decoded(entity.headers.get("content-transfer-encoding"), entity.body);
		const sig = parseMimeEntity(signaturePart);
		let der = decoded(sig.headers.get("content-transfer-encoding"), sig.body);
		if (der[0] !== 0x30) der = fromBase64(fromLatin1(der));
		const header = parseMicalg(contentType.params.micalg);
		const algorithms: DigestAlgorithm[] = header ? [header] : DIGEST_ALGORITHMS;
		const digests = new Map(algorithms.map((a) => [a, digestBytes(a, content)] as const));
		try {
			signature = verifyDetached(der, (a) => digests.get(a) ?? digestBytes(a, content), {
				...(options.partnerCertificates ? { trustedCertificates: options.partnerCertificates } : {}),
				...(options.at ? { at: options.at } : {}),
			});
			signatureValid = true;
		} catch (error) {
			if (!isAs2Error(error)) throw error;
			signatureValid = false;
			signatureError = error;
		}
	}

	if (!reportType.mediaType.startsWith("multipart/")) {
		throw new As2Error("INVALID_MDN", `expected multipart/report, got ${reportType.mediaType || "nothing"}`);
	}
	const parts = partsOf(reportBody, reportType.params.boundary);
	let fields: MimeHeaders | undefined;
	let text: string | undefined;
	for (const part of parts) {
		const entity = parseMimeEntity(part);
		const type = parseContentType(entity.headers.get("content-type") ?? "text/plain").mediaType;
		const content = decoded(entity.headers.get("content-transfer-encoding"), entity.body);
		if (type === "message/disposition-notification") fields = parseHeaderBlock(trimLeadingBlankLines(content));
		else if (type.startsWith("text/") && text === undefined) text = fromLatin1(content).trim();
	}
	if (!fields) throw new As2Error("INVALID_MDN", "no message/disposition-notification part");
	const originalMessageId = fields.get("original-message-id");
	const disposition = fields.get("disposition");
	if (!originalMessageId || !disposition)
		throw new As2Error("INVALID_MDN", "Original-Message-ID or Disposition missing");
	const parsedDisposition = parseDisposition(disposition);
	const mic = parseMic(fields.get("received-content-mic"));
	const messageId = headers.get("message-id");
	// Built field by field, in this order: optional fields are absent, not undefined.
	const mdn: ParsedMdn = {} as ParsedMdn;
	if (messageId) mdn.messageId = stripMessageId(messageId);
	const from = safeId(headers.get("as2-from"));
	if (from !== undefined) mdn.from = from;
	const to = safeId(headers.get("as2-to"));
	if (to !== undefined) mdn.to = to;
	mdn.originalMessageId = stripMessageId(originalMessageId);
	mdn.disposition = parsedDisposition;
	mdn.positive = isPositiveDisposition(parsedDisposition);
	if (mic) mdn.mic = mic;
	const reportingUa = fields.get("reporting-ua");
	if (reportingUa !== undefined) mdn.reportingUa = reportingUa;
	const originalRecipient = recipient(fields.get("original-recipient"));
	if (originalRecipient !== undefined) mdn.originalRecipient = originalRecipient;
	const finalRecipient = recipient(fields.get("final-recipient"));
	if (finalRecipient !== undefined) mdn.finalRecipient = finalRecipient;
	mdn.signed = signed;
	if (signatureValid !== undefined) mdn.signatureValid = signatureValid;
	if (signatureError) mdn.signatureError = signatureError;
	if (signature) mdn.signature = signature;
	if (text) mdn.text = text;
	return mdn;
}

export interface MdnMatch {
	/** The MDN answers this message. */
	messageIdMatches: boolean;
	/** Received-Content-MIC equals the MIC we computed when sending. */
	micMatches: boolean;
	/** Positive disposition, matching id and MIC, and a valid signature when signed. */
	delivered: boolean;
}

/** Matches an MDN to the original by Original-Message-ID and compares the MIC (pyas2-lib#19). */
export function matchMdn(mdn: ParsedMdn, original: { messageId: string; mic?: Mic }): MdnMatch {
	const messageIdMatches = mdn.originalMessageId === stripMessageId(original.messageId);
	const micMatches = original.mic ? micEquals(mdn.mic, original.mic) : true;
	return {
		messageIdMatches,
		micMatches,
		delivered: messageIdMatches && micMatches && mdn.positive && mdn.signatureValid !== false,
	};
}

function decoded(encoding: string | undefined, bytes: Uint8Array): Uint8Array {
	return limited(decodeTransferEncodingBytes(encoding, bytes), MAX_MDN_BYTES, "input");
}

function partsOf(body: Uint8Array, boundary: string | undefined): Uint8Array[] {
	if (!boundary) throw new As2Error("INVALID_MDN", "multipart without a boundary");
	return splitMultipart(body, boundary).map((part) => limited(part, MAX_MDN_BYTES, "input"));
}

function limited(bytes: Uint8Array, limit: number, what: string): Uint8Array {
	if (bytes.byteLength > limit) throw new As2Error("MESSAGE_TOO_LARGE", `${what} is larger than ${limit} bytes`);
	return bytes;
}

/** Some MDNs put a blank line before the fields; the fields are a header block all the same. */
function trimLeadingBlankLines(bytes: Uint8Array): Uint8Array {
	let i = 0;
	while (i < bytes.byteLength && (bytes[i] === 0x0d || bytes[i] === 0x0a || bytes[i] === 0x20)) i++;
	return bytes.subarray(i);
}

function recipient(value: string | undefined): string | undefined {
	if (!value) return undefined;
	const semicolon = value.indexOf(";");
	const id = (semicolon >= 0 ? value.slice(semicolon + 1) : value).trim();
	return id.startsWith('"') && id.endsWith('"') ? id.slice(1, -1).replace(/\\(.)/g, "$1") : id;
}

function safeId(value: string | undefined): string | undefined {
	if (!value) return undefined;
	try {
		return parseAs2Id(value);
	} catch {
		return undefined;
	}
}
