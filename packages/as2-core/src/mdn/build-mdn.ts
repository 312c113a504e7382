import { DIGESTS, type DigestAlgorithm } from "../algorithms.ts";
import { formatAs2Id } from "../as2/as2-id.ts";
import type { MdnRequest } from "../as2/mdn-request.ts";
import { createMessageId, formatMessageId, stripMessageId } from "../as2/message-id.ts";
import { formatMic, type Mic } from "../as2/mic.ts";
import { joinLatin1 } from "../bytes/index.ts";
import { type SignOptions, signDetached, signDetachedAsync } from "../cms/signed-data.ts";
import { toAs2Error } from "../errors/index.ts";
import {
	encodeBase64Bytes,
	formatHeaderValue,
	MimeHeaders,
	multipartBoundary,
	serializeHeaders,
} from "../mime/index.ts";
import { type Disposition, formatDisposition } from "./disposition.ts";

export interface BuildMdnOptions {
	/** The message being answered. */
	original: {
		messageId: string;
		/** The original sender's AS2 id: the MDN goes back to it. */
		from: string;
		/** Our AS2 id, to which the original was addressed. */
		to: string;
		mdnRequest?: MdnRequest;
		/** The MIC computed on receipt; omitted when the message could not be read. */
		mic?: Mic;
	};
	disposition: Disposition;
	/** Sign when the sender asked for a signed receipt and this is given. */
	sign?: Omit<SignOptions, "digest">;
	reportingUa?: string;
	messageId?: string;
	messageIdDomain?: string;
	date?: Date;
	/** Human-readable first part. */
	text?: string;
}

export interface BuiltMdn {
	/** HTTP headers (AS2 headers and Content-Type) of the sync response or async POST. */
	headers: MimeHeaders;
	body: Uint8Array;
	messageId: string;
	signed: boolean;
}

/**
 * Builds an MDN (RFC 3798, RFC 4130 §7.4): multipart/report with a human part and a
 * message/disposition-notification part, signed in multipart/signed when the sender asked
 * (Disposition-Notification-Options) and a key is given. Fields are never folded.
 */
export function buildMdn(options: BuildMdnOptions): BuiltMdn {
	const draft = draftMdn(options);
	if (!draft.toSign) return draft.finish(undefined);
	let signature: Uint8Array;
	try {
		signature = signDetached(draft.toSign.entity, draft.toSign.options);
	} catch (error) {
		throw toAs2Error(error, "SIGNING_FAILED", "cannot sign the MDN");
	}
	return draft.finish(signature);
}

/**
 * {@link buildMdn} with the signature made in libuv's thread pool, off the event loop: what a
 * server answering messages while it serves requests uses (issue #20).
 */
export async function buildMdnAsync(options: BuildMdnOptions): Promise<BuiltMdn> {
	const draft = draftMdn(options);
	if (!draft.toSign) return draft.finish(undefined);
	const signature = await signDetachedAsync(draft.toSign.entity, draft.toSign.options).catch((error: unknown) => {
		throw toAs2Error(error, "SIGNING_FAILED", "cannot sign the MDN");
	});
	return draft.finish(signature);
}

/** The MDN up to its signature: what to sign (when it is signed), and how to finish it. */
function draftMdn(options: BuildMdnOptions): {
	toSign: { entity: Uint8Array; options: SignOptions } | undefined;
	finish(signature: Uint8Array | undefined): BuiltMdn;
} {
	const { original } = options;
	const boundary = multipartBoundary();
	const originalId = formatMessageId(original.messageId);
	const fields = new MimeHeaders([
		["Reporting-UA", options.reportingUa ?? "as2kit"],
		["Original-Recipient", `rfc822; ${formatAs2Id(original.to)}`],
		["Final-Recipient", `rfc822; ${formatAs2Id(original.to)}`],
		["Original-Message-ID", originalId],
		["Disposition", formatDisposition(options.disposition)],
	]);
	if (original.mic) fields.append("Received-Content-MIC", formatMic(original.mic));
	const text =
		options.text ??
		`The AS2 message ${originalId} sent to ${original.to} was received. Disposition: ${formatDisposition(options.disposition)}.`;
	const report = joinLatin1([
		`--${boundary}\r\nContent-Type: text/plain; charset=us-ascii\r\nContent-Transfer-Encoding: 7bit\r\n\r\n` +
			`${text.replace(/\r?\n/g, "\r\n")}\r\n` +
			`--${boundary}\r\nContent-Type: message/disposition-notification\r\nContent-Transfer-Encoding: 7bit\r\n\r\n`,
		serializeHeaders(fields),
		`\r\n--${boundary}--\r\n`,
	]);
	const reportType = formatHeaderValue("multipart/report", { "report-type": "disposition-notification", boundary });

	const request = original.mdnRequest;
	const signWith = request?.signed && options.sign ? options.sign : undefined;
	const digest: DigestAlgorithm = original.mic?.algorithm ?? request?.micAlgorithms[0] ?? "sha256";
	const entity = signWith ? joinLatin1([serializeHeaders([["Content-Type", reportType]]), "\r\n", report]) : undefined;
	const finish = (signature: Uint8Array | undefined): BuiltMdn => {
		let contentType = reportType;
		let body = report;
		if (entity && signature) {
			const outer = multipartBoundary();
			contentType = formatHeaderValue("multipart/signed", {
				protocol: "application/pkcs7-signature",
				micalg: DIGESTS[digest].micalg,
				boundary: outer,
			});
			body = joinLatin1([
				`--${outer}\r\n`,
				entity,
				`\r\n--${outer}\r\n` +
					'Content-Type: application/pkcs7-signature; name="smime.p7s"\r\nContent-Transfer-Encoding: base64\r\n' +
					'Content-Disposition: attachment; filename="smime.p7s"\r\n\r\n',
				encodeBase64Bytes(signature),
				`--${outer}--\r\n`,
			]);
		}
		const messageId = stripMessageId(options.messageId ?? createMessageId(options.messageIdDomain));
		const headers = new MimeHeaders([
			["AS2-Version", "1.0"],
			["AS2-From", formatAs2Id(original.to)],
			["AS2-To", formatAs2Id(original.from)],
			["Message-ID", formatMessageId(messageId)],
			["Date", (options.date ?? new Date()).toUTCString()],
			["Subject", `Message Disposition Notification`],
			["MIME-Version", "1.0"],
			["Content-Type", contentType],
			["EDIINT-Features", "AS2-Reliability"],
		]);
		return { headers, body, messageId, signed: Boolean(signature) };
	};
	return { toSign: entity && signWith ? { entity, options: { ...signWith, digest } } : undefined, finish };
}
