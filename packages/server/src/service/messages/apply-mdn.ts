import { formatMic, type ParsedMdn } from "@as2kit/core";
import type { As2Store, MdnData, MessagePatch, MessageRecord } from "@as2kit/core/store";
import { type AlsoInTransaction, failMessage, transitionMessage } from "./message-transitions.ts";

/** RFC 4130 §7.4.3 modifiers of a negative MDN as our error codes. */
const ERROR_OF: Record<string, string> = {
	"decryption-failed": "DECRYPTION_FAILED",
	"authentication-failed": "AUTHENTICATION_FAILED",
	"integrity-check-failed": "INTEGRITY_CHECK_FAILED",
	"decompression-failed": "DECOMPRESSION_FAILED",
	"insufficient-message-security": "INSUFFICIENT_MESSAGE_SECURITY",
	"unknown-trading-partner": "UNKNOWN_TRADING_PARTNER",
};

/**
 * Settles an outbound message with the partner's MDN (sync or async, RFC 4130 §7.4): a
 * positive disposition with our MIC and a valid signature → delivered (message.sent too when
 * the MDN overtook our own bookkeeping); a negative disposition → failed with its modifier;
 * a wrong MIC, a bad or missing signature (when we asked for a signed MDN) → failed.
 */
export async function applyMdn(
	store: As2Store,
	message: MessageRecord,
	mdn: ParsedMdn,
	context: {
		signedRequested: boolean;
		at: Date;
		/** Fields of the exchange recorded with the outcome, in the same write (a sync MDN's transmission time). */
		patch?: MessagePatch;
		/** More writes in the outcome's transaction (message-transitions.ts). */
		also?: AlsoInTransaction;
	},
): Promise<MessageRecord | null> {
	const mics = [message.mic, ...((message.details.attempt_mics as string[] | undefined) ?? [])].filter(
		Boolean,
	) as string[];
	const received = mdn.mic ? formatMic(mdn.mic) : null;
	const micMatches = received === null ? null : mics.some((mic) => sameMic(mic, received));
	const signatureValid = mdn.signed ? mdn.signatureValid !== false : null;
	const data: MdnData = {
		disposition: mdn.disposition.raw,
		receivedContentMic: received,
		reportingUa: mdn.reportingUa ?? null,
		originalMessageId: mdn.originalMessageId,
		finalRecipient: mdn.finalRecipient ?? null,
		signed: mdn.signed,
		signatureValid,
		micMatches,
		messageId: mdn.messageId ?? null,
		receivedAt: context.at.toISOString(),
	};
	const { at, also } = context;
	const exchange = context.patch ?? {};
	if (!mdn.positive) {
		const modifier = mdn.disposition.modifier?.toLowerCase();
		const detail = mdn.disposition.detail ?? modifier ?? mdn.disposition.type;
		return failMessage(
			store,
			message,
			{
				code: ERROR_OF[detail?.toLowerCase() ?? ""] ?? "PARTNER_REJECTED",
				message: `the partner's MDN says: ${mdn.disposition.raw}`,
			},
			at,
			{ mdnStatus: "received", mdnData: data, ...sentFields(message, at), ...exchange },
			also,
		);
	}
	if (context.signedRequested && !mdn.signed) {
		return failMessage(
			store,
			message,
			{ code: "INVALID_MDN", message: "we asked for a signed MDN and got an unsigned one" },
			at,
			{
				mdnStatus: "failed",
				mdnData: data,
				...sentFields(message, at),
				...exchange,
			},
			also,
		);
	}
	if (signatureValid === false) {
		return failMessage(
			store,
			message,
			{
				code: "INVALID_MDN",
				message: `the MDN's signature does not verify: ${mdn.signatureError?.message ?? "unknown signer"}`,
			},
			at,
			{ mdnStatus: "failed", mdnData: data, ...sentFields(message, at), ...exchange },
			also,
		);
	}
	const required = message.signed || message.encrypted || message.compressed || mics.length > 0;
	if (micMatches === false || (required && micMatches === null && context.signedRequested)) {
		return failMessage(
			store,
			message,
			{ code: "MIC_MISMATCH", message: `the MDN's MIC ${received ?? "(none)"} is not ours (${mics[0] ?? "none"})` },
			at,
			{ mdnStatus: "failed", mdnData: data, ...sentFields(message, at), ...exchange },
			also,
		);
	}
	return transitionMessage(
		store,
		message,
		["processing", "sent"],
		{
			status: "delivered",
			deliveredAt: at,
			mdnStatus: "received",
			mdnData: data,
			mdnDeadline: null,
			...sentFields(message, at),
			...exchange,
		},
		() => (message.status === "processing" ? ["sent", "delivered"] : ["delivered"]),
		at,
		also,
	);
}

/** An MDN that overtook our bookkeeping (still processing) means it was sent just now. */
function sentFields(message: MessageRecord, at: Date) {
	return message.sentAt ? {} : { sentAt: at };
}

/** `base64, algorithm`: the digest and algorithm compared, the algorithm's spelling not (as2-anchors §D5). */
function sameMic(a: string, b: string): boolean {
	const norm = (mic: string) => {
		const [value, algorithm] = mic.split(",").map((s) => s.trim());
		return `${value}|${(algorithm ?? "").toLowerCase().replace(/[-_]/g, "")}`;
	};
	return norm(a) === norm(b);
}
