import type { As2Store, MessagePatch, MessageRecord, MessageStatus } from "@as2kit/core/store";
import { recordEvent } from "../events.ts";
import type { CompatibilityHint } from "../partners/compatibility-hints.ts";
import { messageEventData } from "../views/message-views.ts";

type EventKind = keyof typeof messageEventData;

/** More writes that belong to a move, in its transaction (the end of the job that made it). */
export type AlsoInTransaction = (tx: As2Store) => Promise<void>;

/**
 * Moves a message from one of `from` and records the events of the move, in one transaction
 * (interface spec, States and transitions), with `also` when the move happens. Null when
 * another worker moved it first.
 */
export async function transitionMessage(
	store: As2Store,
	message: MessageRecord,
	from: readonly MessageStatus[],
	patch: MessagePatch,
	events: (moved: MessageRecord) => EventKind[],
	at: Date,
	also?: AlsoInTransaction,
): Promise<MessageRecord | null> {
	return store.transaction(async (tx) => {
		const moved = await tx.messages.transition(message.id, from, { ...patch, updatedAt: at });
		if (!moved) return null;
		await also?.(tx);
		for (const kind of events(moved)) {
			await recordEvent(
				tx,
				{
					kind: `message.${kind}`,
					accountId: moved.accountId,
					tenantId: moved.tenantId,
					environment: moved.environment,
					data: messageEventData[kind](moved),
				},
				at,
			);
		}
		return moved;
	});
}

/**
 * The final failure of a message, with its error, from any state that is not final. A `hint`
 * (the partner setting that would likely fix it) is kept in the details as `error_hint`.
 */
export function failMessage(
	store: As2Store,
	message: MessageRecord,
	error: { code: string; message: string; hint?: CompatibilityHint | null },
	at: Date,
	extra: MessagePatch = {},
	also?: AlsoInTransaction,
) {
	const hinted = error.hint ? { details: { ...message.details, error_hint: error.hint } } : {};
	return transitionMessage(
		store,
		message,
		["queued", "processing", "sent"],
		{
			status: "failed",
			failedAt: at,
			errorCode: error.code,
			errorMessage: error.message.slice(0, 1000),
			...hinted,
			...extra,
		},
		() => ["failed"],
		at,
		also,
	);
}
