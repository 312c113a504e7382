import {
	type As2Store,
	commitWith,
	type MessageAttemptRecord,
	type MessagePatch,
	type MessageRecord,
	type MessageStatus,
	messageSteps,
	together,
} from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { eventFanOut, type NewEvent, recordEvent, stepEvent } from "../events.ts";
import type { CompatibilityHint } from "../partners/compatibility-hints.ts";
import { messageEventData } from "../views/message-views.ts";
import { withFields } from "../with-fields.ts";

type EventKind = keyof typeof messageEventData;

/**
 * More writes that belong to a move, in its transaction (the end of the job that made it).
 * `parts`: the writes it is made of (`alsoBoth`), made by a move together with its events
 * rather than through a `together` of their own (issue #20: ~3 promises less per message).
 * They are the transaction's last calls (As2Store.commitWith): each writes its statements when
 * called, without waiting for an answer first (no read that leads to a write), and decides
 * nothing on an answer.
 */
export type AlsoInTransaction = ((tx: As2Store) => Promise<void>) & {
	parts?: readonly AlsoInTransaction[];
	/**
	 * Each of its writes goes out when called, without waiting for an answer first (no read that
	 * leads to a write), and decides nothing on an answer (throws only when its statement fails):
	 * the move may write COMMIT with them (As2Store.commitWith). Without it (a cancel, which
	 * throws on the job's state), they are awaited, then COMMIT.
	 */
	writesAtOnce?: boolean;
	/**
	 * The same writes as data, for a move made as one step of the store (MessageSteps.settle: on
	 * PostgreSQL one statement, issue #20). Only when every part has it.
	 */
	asStep?: StepWrites;
};

/** Writes of a move, as a step of the store makes them (MessageSteps.settle). */
export interface StepWrites {
	attempt?: MessageAttemptRecord;
	completeJob?: { id: string; workerId: string };
	/** Told whether the step ended `completeJob`'s job. */
	completed?(ended: boolean): void;
}

type Calls = readonly (Promise<unknown> | undefined)[];

/** What a move needs: the store (or the transaction it joins), and where final statuses are counted and logged. */
export type TransitionDeps = Pick<ServiceDeps, "store" | "telemetry" | "logger">;

/** The events of a move that records none (an attempt's start, `processing`). */
export const NO_EVENTS = (): EventKind[] => [];

/**
 * Moves a message from one of `from` and records the events of the move, in one transaction
 * (interface spec, States and transitions), with `also` when the move happens. Null when
 * another worker moved it first. A final status is counted once it is committed (telemetry.ts).
 * A move with NO_EVENTS and nothing `also` is one conditional update, atomic by itself: it runs
 * without a transaction of its own (on PostgreSQL no BEGIN and COMMIT, issue #20).
 */
export async function transitionMessage(
	deps: TransitionDeps,
	message: MessageRecord,
	from: readonly MessageStatus[],
	patch: MessagePatch,
	events: (moved: MessageRecord) => EventKind[],
	at: Date,
	also?: AlsoInTransaction,
): Promise<MessageRecord | null> {
	const fullPatch = withFields(patch, clearedError(patch, at));
	// A step where the store has steps (storage-pg); otherwise the transaction below, as before
	// (on SQLite the same statements: see submit.ts on the POST's p99).
	const step = also?.writesAtOnce && deps.store.messageSteps ? also.asStep : undefined;
	const move = (store: As2Store) => store.messages.transition(message.id, from, fullPatch);
	const moved = await (step
		? settleStep(deps.store, message, from, fullPatch, events, at, step)
		: events === NO_EVENTS && !also
			? move(deps.store)
			: deps.store.transaction(async (tx) => {
					const moved = await move(tx);
					if (!moved) return null;
					// The move's other writes and its events do not depend on each other: sent together (together.ts),
					// and COMMIT with them (As2Store.commitWith, stop 35: each of them writes at once and decides
					// nothing; `also` is made of such writes, AlsoInTransaction). The events are written in the
					// order given, so their ids (and seq) keep it.
					await (also && !also.writesAtOnce ? together : (calls: Calls) => commitWith(tx, calls))([
						...(also ? alsoCalls(also, tx) : []),
						...events(moved).map((kind) => recordEvent(tx, messageEvent(kind, moved), at)),
					]);
					return moved;
				}));
	if (moved && isSettled(moved)) deps.telemetry.messageSettled(moved);
	return moved;
}

/**
 * The move, its writes and its events as one step of the store (MessageSteps.settle). The events
 * are made from the message as the caller holds it with the patch: a move with step writes ends
 * the caller's job, whose lease keeps every other writer of the message away (hand-off.ts), so
 * the row moved is that one (the conformance of the events' data is tested in
 * message-transitions.test.ts).
 */
async function settleStep(
	store: As2Store,
	message: MessageRecord,
	from: readonly MessageStatus[],
	patch: MessagePatch,
	events: (moved: MessageRecord) => EventKind[],
	at: Date,
	step: StepWrites,
): Promise<MessageRecord | null> {
	const expected = patched(message, patch);
	const settled = await messageSteps(store).settle({
		id: message.id,
		from,
		patch,
		attempt: step.attempt,
		completeJob: step.completeJob,
		events: events(expected).map((kind) => stepEvent(messageEvent(kind, expected), at)),
		fanOut: eventFanOut(at),
	});
	step.completed?.(settled.jobCompleted);
	return settled.moved;
}

/** The message with the patch's fields (those it sets: an undefined one is no change, as in the store). */
function patched(message: MessageRecord, patch: MessagePatch): MessageRecord {
	const row: MessageRecord = Object.assign({}, message);
	for (const [key, value] of Object.entries(patch)) if (value !== undefined) Object.assign(row, { [key]: value });
	return row;
}

/** The event `message.<kind>` of a message. */
function messageEvent(kind: EventKind, message: MessageRecord): NewEvent {
	return {
		kind: `message.${kind}`,
		accountId: message.accountId,
		tenantId: message.tenantId,
		environment: message.environment,
		data: messageEventData[kind](message),
	};
}

/** The writes of `also`, made in order: its parts' writes when it has parts. */
function alsoCalls(also: AlsoInTransaction, tx: As2Store): Promise<void>[] {
	return also.parts ? also.parts.flatMap((part) => alsoCalls(part, tx)) : [also(tx)];
}

/** Final statuses (interface spec, States and transitions): `sent` is final when no MDN was asked for. */
function isSettled(message: MessageRecord): boolean {
	return (
		message.status !== "queued" &&
		message.status !== "processing" &&
		(message.status !== "sent" || message.mdnMode === "none")
	);
}

/**
 * The fields a move adds to its patch: its time, and for a message that went out (or was
 * confirmed) no error of an earlier, failed attempt.
 */
function clearedError(patch: MessagePatch, at: Date): MessagePatch {
	return patch.status === "sent" || patch.status === "delivered"
		? { errorCode: null, errorMessage: null, updatedAt: at }
		: { updatedAt: at };
}

/**
 * The final failure of a message, with its error, from any state that is not final. A `hint`
 * (the partner setting that would likely fix it) is kept in the details as `error_hint`.
 * Logged once, by the caller that moved it (README, Metrics and logs).
 */
export async function failMessage(
	deps: TransitionDeps,
	message: MessageRecord,
	error: { code: string; message: string; hint?: CompatibilityHint | null },
	at: Date,
	extra: MessagePatch = {},
	also?: AlsoInTransaction,
) {
	const hinted = error.hint ? { details: { ...message.details, error_hint: error.hint } } : {};
	const failed = await transitionMessage(
		deps,
		message,
		["queued", "processing", "sent"],
		{
			status: "failed",
			failedAt: at,
			errorCode: error.code,
			errorMessage: error.message.slice(0, 1000),
			...hinted,
			// An MDN that was asked for and never came: the MDN failed with the message.
			...(message.mdnStatus === "pending" ? { mdnStatus: "failed" as const } : {}),
			...extra,
		},
		() => ["failed"],
		at,
		also,
	);
	if (failed) {
		deps.logger.warn(
			{
				messageId: failed.id,
				partnerId: failed.partnerId,
				attempt: failed.attempts,
				errorCode: failed.errorCode,
				durationMs: failed.transmissionTimeMs,
			},
			"message failed",
		);
	}
	return failed;
}
