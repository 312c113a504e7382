import type { MessageAttemptRecord } from "./attempt-store.ts";
import type { JobLease, JobRecord, NewJob } from "./jobs.ts";
import type { MessageRecord, MessageStatus } from "./message-records.ts";
import type { MessagePatch } from "./message-store.ts";
import type { EventRecord } from "./records.ts";
import type { EventFanOut } from "./store.ts";

/**
 * A message's busiest steps as single calls (issue #20), so that a store can write each as one
 * statement: storage-pg as one data-modifying CTE, without BEGIN and COMMIT, instead of up to
 * six statements and a transaction (docs/performance-storage.md, "One statement a step").
 * A store without them (storage-sqlite) runs them as the separate calls (`messageSteps`), with
 * the same outcome. Each step is atomic: all its writes happen, or none.
 */
export interface MessageSteps {
	/**
	 * A new message (`MessageStore.createNew`: its id taken from the `msg_` sequence), then, in
	 * its transaction: the usage counters, the events (each `EventStore.appendNewWithFanOut`, in
	 * the order given, so their ids and `seq` keep it) and the jobs (`JobStore.enqueue`, or
	 * `enqueueClaimed` for one with a lease; created at the message's `createdAt`). Resolves to the message's id, the first job as
	 * written (null when its key was held by a live job) and whether any event fanned out.
	 */
	submit(step: SubmitStep): Promise<SubmitStepResult>;
	/**
	 * A move of a message (`MessageStore.transition`) and, only when it moved, in its
	 * transaction: the attempt's row, the end of the job that made it (`JobStore.complete`) and
	 * the events, in the order given. The moved row, or null (nothing written) when the message
	 * was not in one of `from`.
	 */
	settle(step: SettleStep): Promise<SettleStepResult>;
}

/** An event of a step, written under a new `evt_` id with its webhook fan-out job. */
export type StepEvent = Omit<EventRecord, "id">;

/** A step's job; with a lease, written already claimed by that worker (`JobStore.enqueueClaimed`). */
export interface StepJob extends NewJob {
	lease?: JobLease | null;
}

export interface SubmitStep {
	message: MessageRecord;
	/** `UsageStore.incrementMany`'s counters, when the message counts against the account's. */
	usage?: { accountId: string; period: string; by: Record<string, number> } | undefined;
	/**
	 * The writes that name the message, made from its id. Called once, before the id is known
	 * where the store writes the step as one statement: `id` is then a stand-in the statement
	 * replaces with the new id wherever it appears in the strings of the events and jobs (their
	 * data, key and payload). So `id` must only be copied into them, never read.
	 */
	withId(id: string): { events: readonly StepEvent[]; jobs: readonly StepJob[] };
	fanOut: EventFanOut;
}

export interface SubmitStepResult {
	id: string;
	/** The step's first job as written; null when its key was held by a live job (or it had none). */
	job: JobRecord | null;
	/** Whether any of the events' fan-out jobs was written. */
	fanOut: boolean;
}

export interface SettleStep {
	id: string;
	from: readonly MessageStatus[];
	patch: MessagePatch;
	/** The move's attempt (`MessageAttemptStore.create`). */
	attempt?: MessageAttemptRecord | undefined;
	/** The job to end with the move (`JobStore.complete`): it is deleted if `workerId` still holds it. */
	completeJob?: { id: string; workerId: string } | undefined;
	/**
	 * The move's events, made by the caller from the message it moved, as it knows it, with the
	 * patch: the step writes them with the move, so it cannot read the moved row first. A caller
	 * must know the row's fields its events name (its job's lease keeps other writers away).
	 */
	events: readonly StepEvent[];
	fanOut: EventFanOut;
}

export interface SettleStepResult {
	/** The message as moved; null when it was not in one of `from` (nothing was written). */
	moved: MessageRecord | null;
	/** Whether `completeJob` ended the job (false when it was not moved, or its lease was lost). */
	jobCompleted: boolean;
	fanOut: boolean;
}
