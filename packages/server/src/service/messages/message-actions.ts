import { As2Error } from "@as2kit/core";
import type { MessageRecord } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { type Principal, requirePermission } from "../principal.ts";
import { notFound } from "../validation-error.ts";
import { transitionMessage } from "./message-transitions.ts";
import { SEND_JOB } from "./send-job-kind.ts";
import { type createSubmit, newPayloadKey } from "./submit.ts";

/** The send job of a message: one per message at a time (submit.ts enqueues it under this key). */
export const sendJobKey = (messageId: string) => `send:${messageId}`;

/**
 * What an operator does with an outbound message (issue #18, Act on a message):
 *
 * - `retry`: a failed message is queued again now, with the same AS2 Message-ID (RFC 4130
 *   §5.3.3: the partner's duplicate detection keeps a second copy from being processed twice);
 *   one waiting for its next attempt (or its scheduled time) is attempted now.
 * - `cancel`: a queued message, or one waiting for its next attempt, ends `failed` with
 *   CANCELLED — never one a worker is sending now, nor one already sent.
 * - `resend`: a new message with a new Message-ID, the same payload (copied, streamed) and
 *   partner and options, linked both ways (`resent_from` / `resent_as`): for a partner that
 *   lost the first one.
 *
 * A worker holds a message's send job under a lease: a job it holds is left to it, so an action
 * never races a transmission (the job store checks the lease in the same statement).
 */
export function createMessageActions(deps: ServiceDeps, submit: ReturnType<typeof createSubmit>) {
	const { store, blobs, now } = deps;

	async function outbound(principal: Principal, id: string): Promise<MessageRecord> {
		requirePermission(principal, "messages:write");
		const message = await store.messages.get(principal.tenantId, id);
		if (!message) throw notFound(`message ${id}`);
		if (message.direction !== "outbound")
			throw invalidState(message, "only outbound messages are retried, cancelled or resent");
		return message;
	}

	return {
		async retry(principal: Principal, id: string): Promise<MessageRecord> {
			const message = await outbound(principal, id);
			const at = now();
			if (message.status === "failed") {
				const { error_hint: _hint, next_attempt_at: _next, ...details } = message.details;
				const queued = await transitionMessage(
					deps,
					message,
					["failed"],
					{
						status: "queued",
						scheduledAt: null,
						failedAt: null,
						errorCode: null,
						errorMessage: null,
						mdnStatus: message.mdnMode === "none" ? "none" : "pending",
						mdnData: null,
						mdnDeadline: null,
						details,
					},
					() => ["queued"],
					at,
					async (tx) => {
						await tx.jobs.enqueue(
							{ kind: SEND_JOB, key: sendJobKey(message.id), payload: { messageId: message.id }, runAt: at },
							at,
						);
					},
				);
				if (!queued) throw invalidState((await store.messages.getById(id)) ?? message, "it was retried meanwhile");
				deps.wake();
				return queued;
			}
			if (message.status !== "queued" && message.status !== "processing") {
				throw invalidState(message, "only a failed message, or one waiting for its next attempt, is retried");
			}
			const moved = await store.jobs.rescheduleByKey(sendJobKey(message.id), at, at);
			if (moved !== "done") throw beingSent(message, moved);
			deps.wake();
			return (await store.messages.getById(id)) ?? message;
		},

		async cancel(principal: Principal, id: string): Promise<MessageRecord> {
			const message = await outbound(principal, id);
			if (message.status !== "queued" && message.status !== "processing") {
				throw invalidState(message, "only a queued message, or one waiting for its next attempt, is cancelled");
			}
			const at = now();
			const cancelled = await transitionMessage(
				deps,
				message,
				["queued", "processing"],
				{
					status: "failed",
					failedAt: at,
					errorCode: "CANCELLED",
					errorMessage: "cancelled before it was sent",
					mdnStatus: message.mdnMode === "none" ? "none" : "failed",
				},
				() => ["failed"],
				at,
				// Thrown in the transaction, it rolls the move back; both stores pass an As2Error on as it is.
				async (tx) => {
					const outcome = await tx.jobs.cancelByKey(sendJobKey(message.id), at);
					if (outcome !== "done") throw beingSent(message, outcome);
				},
			);
			if (!cancelled)
				throw invalidState((await store.messages.getById(id)) ?? message, "it was sent or settled meanwhile");
			return cancelled;
		},

		async resend(principal: Principal, id: string): Promise<MessageRecord> {
			const original = await outbound(principal, id);
			if (original.status === "queued" || original.status === "processing") {
				throw invalidState(original, "a message still being sent is not resent");
			}
			const source = original.payloadKey ? await blobs.get(original.payloadKey) : null;
			if (!source) throw notFound(`the payload of message ${id}`);
			const copy = await blobs.put(newPayloadKey(now()), source);
			return submit(principal, {
				partnerId: original.partnerId,
				contentType: original.contentType,
				payload: { blob: copy },
				subject: original.subject ?? undefined,
				filename: original.filename ?? undefined,
				headers: original.headers,
				priority: original.priority,
				sign: original.signed,
				encrypt: original.encrypted,
				compress: original.compressed,
				mdnMode: original.mdnMode,
				resentFrom: original.id,
			});
		},
	};
}

function invalidState(message: MessageRecord, reason: string): As2Error {
	return new As2Error("INVALID_MESSAGE_STATE", `message ${message.id} is ${message.status}: ${reason}`, {
		details: { status: message.status },
	});
}

function beingSent(message: MessageRecord, outcome: "leased" | "none"): As2Error {
	return new As2Error(
		"INVALID_MESSAGE_STATE",
		outcome === "leased"
			? `message ${message.id} is being sent now; try again once this attempt has ended`
			: `message ${message.id} has no attempt waiting`,
		{ details: { status: message.status } },
	);
}
