import { formatMic, type ParsedMdn } from "@as2kit/core";
import type { MdnData, MessagePatch, MessageRecord, RejectedMdn } from "@as2kit/core/store";
import type { CompatibilityHint } from "../partners/compatibility-hints.ts";
import { expectedMics, judgeMdn, type MdnVerdict, sameMic } from "./mdn-verdict.ts";
import { type AlsoInTransaction, failMessage, type TransitionDeps, transitionMessage } from "./message-transitions.ts";

/** Rejected MDNs kept on a message: enough to see what came, bounded against a flood of forgeries. */
export const REJECTED_MDNS_KEPT = 20;

/**
 * Settles an outbound message with the partner's MDN (RFC 4130 §7.4) as {@link judgeMdn}
 * decides: delivered (message.sent too when the MDN overtook our own bookkeeping) or failed,
 * the move and its events in one transaction. A rejected MDN settles nothing:
 *
 * - `async` (POSTed to /as2/receive or /as2/mdn, by anyone): it is added to the message's
 *   `rejectedMdns` and the message keeps waiting for a valid MDN until its MDN deadline;
 * - `sync` (the answer to our own POST, on the connection we opened to the partner's URL,
 *   TLS-verified unless AS2_ALLOW_HTTP lets it be plain): no other MDN will come for this
 *   transmission, so the message fails with INVALID_MDN at once, the MDN kept in
 *   `rejectedMdns` as well — waiting would only postpone the same failure to the deadline.
 */
export async function applyMdn(
	deps: TransitionDeps,
	message: MessageRecord,
	mdn: ParsedMdn,
	context: {
		signedRequested: boolean;
		at: Date;
		via: "sync" | "async";
		/** Fields of the exchange recorded with the outcome, in the same write (a sync MDN's transmission time). */
		patch?: MessagePatch;
		/** More writes in the outcome's transaction (message-transitions.ts). */
		also?: AlsoInTransaction;
		/** The partner setting that would likely have avoided a failure (failure-hints.ts). */
		hint?: (failure: { code: string }) => Promise<CompatibilityHint | null>;
	},
): Promise<{ verdict: MdnVerdict; message: MessageRecord | null }> {
	const { at, also } = context;
	const verdict = judgeMdn(message, mdn, context);
	const data = mdnData(message, mdn, at, verdict);
	const settled = { mdnData: data, ...sentFields(message, at), ...context.patch };
	if (verdict.outcome === "delivered") {
		const moved = await transitionMessage(
			deps,
			message,
			["processing", "sent"],
			{ status: "delivered", deliveredAt: at, mdnStatus: "received", mdnDeadline: null, ...settled },
			() => (message.status === "processing" ? ["sent", "delivered"] : ["delivered"]),
			at,
			also,
		);
		if (moved) recordMdnWait(deps, message, context);
		return { verdict, message: moved };
	}
	if (verdict.outcome === "failed") {
		const failed = await failMessage(
			deps,
			message,
			{ code: verdict.code, message: verdict.message, hint: await context.hint?.(verdict) },
			at,
			{ mdnStatus: verdict.mdnStatus, ...settled },
			also,
		);
		if (failed) recordMdnWait(deps, message, context);
		return { verdict, message: failed };
	}
	const entry = rejectedEntry(mdn, verdict.reason, at);
	if (context.via === "async") {
		return { verdict, message: await deps.store.messages.addRejectedMdn(message.id, entry, REJECTED_MDNS_KEPT) };
	}
	const failed = await failMessage(
		deps,
		message,
		{ code: "INVALID_MDN", message: `the sync MDN was rejected: ${verdict.reason}` },
		at,
		{ mdnStatus: "failed", rejectedMdns: [...message.rejectedMdns, entry].slice(-REJECTED_MDNS_KEPT), ...settled },
		also,
	);
	return { verdict, message: failed };
}

/** The wait from the transmission to the MDN that settled it (an MDN that overtook our bookkeeping waited 0 s). */
function recordMdnWait(deps: TransitionDeps, message: MessageRecord, context: { at: Date; via: "sync" | "async" }) {
	const sentAt = message.sentAt ?? context.at;
	deps.telemetry.mdnReceived(context.via, Math.max(0, (context.at.getTime() - sentAt.getTime()) / 1000));
}

function mdnData(message: MessageRecord, mdn: ParsedMdn, at: Date, verdict: MdnVerdict): MdnData {
	const received = mdn.mic ? formatMic(mdn.mic) : null;
	return {
		disposition: mdn.disposition.raw,
		receivedContentMic: received,
		reportingUa: mdn.reportingUa ?? null,
		originalMessageId: mdn.originalMessageId,
		finalRecipient: mdn.finalRecipient ?? null,
		signed: mdn.signed,
		signatureValid: mdn.signed ? mdn.signatureValid !== false : null,
		micMatches: received === null ? null : expectedMics(message).some((mic) => sameMic(mic, received)),
		micMissing: verdict.outcome === "delivered" && verdict.micMissing === true,
		messageId: mdn.messageId ?? null,
		receivedAt: at.toISOString(),
	};
}

function rejectedEntry(mdn: ParsedMdn, reason: string, at: Date): RejectedMdn {
	return {
		receivedAt: at.toISOString(),
		reason,
		disposition: mdn.disposition.raw,
		originalMessageId: mdn.originalMessageId,
		messageId: mdn.messageId ?? null,
		reportingUa: mdn.reportingUa ?? null,
		receivedContentMic: mdn.mic ? formatMic(mdn.mic) : null,
		signed: mdn.signed,
		signatureValid: mdn.signed ? mdn.signatureValid !== false : null,
	};
}

/** An MDN that overtook our bookkeeping (still processing) means it was sent just now. */
function sentFields(message: MessageRecord, at: Date) {
	return message.sentAt ? {} : { sentAt: at };
}
