import { formatMic, type ParsedMdn } from "@as2kit/core";
import type { MessageRecord } from "@as2kit/core/store";

/** RFC 4130 §7.4.3 modifiers of a negative MDN as our error codes. */
const ERROR_OF: Record<string, string> = {
	"decryption-failed": "DECRYPTION_FAILED",
	"authentication-failed": "AUTHENTICATION_FAILED",
	"integrity-check-failed": "INTEGRITY_CHECK_FAILED",
	"decompression-failed": "DECOMPRESSION_FAILED",
	"insufficient-message-security": "INSUFFICIENT_MESSAGE_SECURITY",
	"unknown-trading-partner": "UNKNOWN_TRADING_PARTNER",
};

/** What an MDN does to the outbound message it names. */
export type MdnVerdict =
	/** `micMissing`: a receipt without Received-Content-MIC, taken because our message was not signed. */
	| { outcome: "delivered"; micMissing?: true }
	| { outcome: "failed"; code: string; message: string; mdnStatus: "received" | "failed" }
	/** It settles nothing: it cannot prove who sent it, or that it is about our message. */
	| { outcome: "rejected"; reason: string };

/**
 * Judges a partner's MDN for one of our messages (RFC 4130 §7.4). Anyone can POST an MDN, so
 * only one that proves its origin may settle the message:
 *
 * - signed with a signature that does not verify against the partner's certificates
 *   (another key, a tampered report): rejected, whatever it says;
 * - unsigned although we asked for a signed MDN: rejected;
 * - authenticated (validly signed): a negative disposition fails the message, our MIC
 *   delivers it, another MIC fails it with MIC_MISMATCH (the partner's own word that it did
 *   not get our content), and so does a missing one for a signed message (RFC 4130 §7.4.3:
 *   the MIC is required when the original message was signed);
 * - unsigned where the partner agreement does not ask for signing: it is taken at its word
 *   for a negative disposition (nothing better can come), but another MIC than ours, or
 *   none for a signed message (whose MIC RFC 4130 §7.3.1 requires back), proves nothing —
 *   a forger who knows only the Message-ID cannot produce the MIC — so it is rejected;
 * - a positive MDN without a MIC for a message we did not sign is a receipt, signed or not
 *   (`micMissing`): pyas2-lib answers encrypt-only, compress-only and plain messages with a
 *   signed MDN that has no Received-Content-MIC (issue #17, defect 1), and RFC 4130 §7.4.3
 *   requires the MIC only for signed messages.
 */
export function judgeMdn(message: MessageRecord, mdn: ParsedMdn, context: { signedRequested: boolean }): MdnVerdict {
	if (mdn.signed && mdn.signatureValid === false) {
		return {
			outcome: "rejected",
			reason: `its signature does not verify against the partner's certificates: ${mdn.signatureError?.message ?? "unknown signer"}`,
		};
	}
	if (context.signedRequested && !mdn.signed) {
		return { outcome: "rejected", reason: "it is unsigned, and the partner agreement asks for a signed MDN" };
	}
	const authenticated = mdn.signed;
	if (!mdn.positive) {
		const modifier = mdn.disposition.modifier?.toLowerCase();
		const detail = mdn.disposition.detail ?? modifier ?? mdn.disposition.type;
		return {
			outcome: "failed",
			code: ERROR_OF[detail?.toLowerCase() ?? ""] ?? "PARTNER_REJECTED",
			message: `the partner's MDN says: ${mdn.disposition.raw}`,
			mdnStatus: "received",
		};
	}
	const ours = expectedMics(message);
	const received = mdn.mic ? formatMic(mdn.mic) : null;
	// Written only when the MDN does not match: not built for every delivered message (issue #20).
	const mismatch = () => `the MDN's MIC ${received ?? "(none)"} is not ours (${ours[0] ?? "none"})`;
	if (received === null) {
		if (!message.signed) return { outcome: "delivered", micMissing: true };
		if (authenticated) return { outcome: "failed", code: "MIC_MISMATCH", message: mismatch(), mdnStatus: "failed" };
		return { outcome: "rejected", reason: "it is unsigned and returns no Received-Content-MIC for a signed message" };
	}
	if (ours.some((mic) => sameMic(mic, received))) return { outcome: "delivered" };
	if (authenticated) return { outcome: "failed", code: "MIC_MISMATCH", message: mismatch(), mdnStatus: "failed" };
	return { outcome: "rejected", reason: `it is unsigned and ${mismatch()}` };
}

/** The MIC of every transmission attempt: an MDN may answer any of them. */
export function expectedMics(message: MessageRecord): string[] {
	return [message.mic, ...((message.details.attempt_mics as string[] | undefined) ?? [])].filter((mic): mic is string =>
		Boolean(mic),
	);
}

/** `base64, algorithm`: the digest and algorithm compared, the algorithm's spelling not (as2-anchors §D5). */
export function sameMic(a: string, b: string): boolean {
	// The same text is the same MIC: the usual case (a partner echoes the MIC as we formatted it)
	// needs none of the four strings and two arrays the normal forms make (issue #20).
	if (a === b) return true;
	const norm = (mic: string) => {
		const [value, algorithm] = mic.split(",").map((s) => s.trim());
		return `${value}|${(algorithm ?? "").toLowerCase().replace(/[-_]/g, "")}`;
	};
	return norm(a) === norm(b);
}
