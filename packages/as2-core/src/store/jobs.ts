import type { MessageRecord } from "./message-records.ts";
import type { Json } from "./records.ts";

/**
 * A durable job: everything that happens after a request (transmission, retries, MDN
 * timeouts, webhook deliveries, scans) is a job written in the transaction of the change
 * that caused it, and run by workers holding a lease (DESIGN.md, Work in the background).
 */
export interface JobRecord {
	id: string;
	kind: string;
	payload: { [key: string]: Json };
	/** Optional de-duplication key: a second job with a live key is not enqueued. */
	key: string | null;
	/** Higher runs first among due jobs. */
	priority: number;
	runAt: Date;
	/** Claims so far, counted when claimed so that a crashed worker's attempt counts. */
	attempts: number;
	lockedBy: string | null;
	lockedUntil: Date | null;
	lastError: string | null;
	createdAt: Date;
}

export interface NewJob {
	kind: string;
	payload: { [key: string]: Json };
	key?: string | null;
	priority?: number;
	runAt: Date;
}

/** The worker a job is leased to, and until when. */
export interface JobLease {
	workerId: string;
	lockedUntil: Date;
}

/** What an action on a job by its key did: acted, left to the worker holding it, or no such job. */
export type KeyedJobOutcome = "done" | "leased" | "none";

export interface ClaimOptions {
	/** Only these kinds; all kinds when omitted. */
	kinds?: readonly string[];
	limit: number;
	workerId: string;
	leaseMs: number;
	now: Date;
	/**
	 * Kinds whose payload's `messageId` names the message the job reads first (a send job):
	 * the claim returns that message with each such job (`ClaimedJob.message`), saving the job
	 * its own read (issue #20). It is read as of the claim's locks: current while the lease holds,
	 * since every other writer of a message waits for its job's lease.
	 */
	withMessage?: readonly string[];
}

/** A job as a claim returns it. */
export interface ClaimedJob extends JobRecord {
	/**
	 * Only for a job of a `withMessage` kind: the message its payload's `messageId` names, as of
	 * the claim, or null when there is none.
	 */
	message?: MessageRecord | null;
}

/** The queue of one job kind at an instant, for operators' metrics. */
export interface JobKindDepth {
	kind: string;
	/** Due (runAt ≤ now) and not held: waiting for a worker. */
	due: number;
	/** Not yet due and not held (retries waiting for their time, scheduled sends). */
	scheduled: number;
	/** Held by a worker whose lease has not expired. */
	running: number;
	/** The earliest runAt among the due jobs: how long the queue has kept work waiting. */
	oldestDueAt: Date | null;
}

export interface JobStore {
	/** Enqueues a job; resolves to null when `key` is held by a job not yet completed. */
	enqueue(job: NewJob, now: Date): Promise<JobRecord | null>;
	/**
	 * Enqueues a job already claimed by `lease.workerId` until `lease.lockedUntil` (attempts 1),
	 * as `claim` would leave it: the hand-off of a job to the worker of the process that wrote it,
	 * without a claim of its own. Should that worker die, the job is claimed again once the lease
	 * runs out. Resolves to null when `key` is held, as `enqueue`.
	 */
	enqueueClaimed(job: NewJob, now: Date, lease: JobLease): Promise<JobRecord | null>;
	/**
	 * Claims up to `limit` due jobs (runAt ≤ now, unlocked or lease expired), highest priority
	 * then oldest runAt first, locking them to `workerId` until now + leaseMs. A job is held by
	 * at most one worker at a time.
	 */
	claim(options: ClaimOptions): Promise<ClaimedJob[]>;
	/** Removes a finished job; false when the lease was lost to another worker. */
	complete(id: string, workerId: string): Promise<boolean>;
	/** Unlocks the job to run again at `runAt`; false when the lease was lost. */
	retry(id: string, workerId: string, options: { runAt: Date; error: string }): Promise<boolean>;
	/** Extends a lease still held; false when it was lost. */
	extendLease(id: string, workerId: string, lockedUntil: Date): Promise<boolean>;
	/**
	 * Removes the job `key` names unless a worker holds its lease now (a job being run is left to
	 * its worker): "done", "leased", or "none" when no job has the key.
	 */
	cancelByKey(key: string, now: Date): Promise<KeyedJobOutcome>;
	/** Moves the job `key` names to run at `runAt`, unless a worker holds its lease now. */
	rescheduleByKey(key: string, runAt: Date, now: Date): Promise<KeyedJobOutcome>;
	get(id: string): Promise<JobRecord | null>;
	/** Jobs not completed, for operators and tests: optionally of one kind. */
	list(options?: { kind?: string }): Promise<JobRecord[]>;
	/** Every kind with jobs not completed, by kind name, counted as of `now`. */
	depth(now: Date): Promise<JobKindDepth[]>;
}

/**
 * Periodic work (certificate expiry scans, MDN timeouts, cleanup) runs once per period
 * across every instance: the instance that moves a schedule to a new period runs it.
 */
export interface ScheduleStore {
	/** Atomically records `period` for `name`; true only for the first caller per period. */
	claimPeriod(name: string, period: string): Promise<boolean>;
}
