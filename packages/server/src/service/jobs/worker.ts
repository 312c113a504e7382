import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { setImmediate as inNextTurn } from "node:timers";
import { setImmediate } from "node:timers/promises";
import type { As2Store, ClaimedJob, JobRecord } from "@as2kit/core/store";
import type { Logger } from "../deps.ts";

/** Thrown by a handler to run the job again at `runAt` (keeping its payload). */
export class RetryJob extends Error {
	constructor(
		readonly runAt: Date,
		message: string,
	) {
		super(message);
	}
}

export interface JobContext {
	/** Aborted when the worker stops. */
	signal: AbortSignal;
	/**
	 * Aborted once this worker may no longer hold the job: a lease renewal found it held by
	 * another worker, or the lease ran out with no renewal through. Work with effects outside the store (an AS2 POST) confirms the lease
	 * right before it starts (`confirmLease`) and stops when this fires: the job's new holder
	 * does that work instead, so it is not done twice at once.
	 */
	leaseLost: AbortSignal;
	/**
	 * True while this worker holds the job: at once when the lease it last set has not run out,
	 * else after renewing it (false when another worker has claimed the job since: an event loop
	 * blocked for longer than the lease lets that happen).
	 */
	confirmLease(): Promise<boolean>;
	/**
	 * Removes the job inside the caller's transaction, so it ends in the same commit as the work
	 * it did (one write less per job); the worker then does not complete it again. Call it in
	 * the transaction that records the job's outcome, and let that transaction's error
	 * propagate should it fail: the job, rolled back with it, is then retried. A handler that
	 * never calls it is completed by the worker when it returns.
	 */
	completeIn(tx: As2Store): Promise<void>;
	/**
	 * `completeIn`'s write as data, for a store step that ends the job in its own statement
	 * (`MessageSteps.settle`'s `completeJob`): the job, its holder, and `ended`, to be told what
	 * the step did (the worker then does not complete the job again when it did).
	 */
	completion?: { jobId: string; workerId: string; ended(completed: boolean): void };
	/**
	 * Puts the job down to run again at `runAt` inside the caller's transaction, so the state that
	 * says "waiting for the next attempt" and the job's release commit together: in between, the
	 * job would still be leased and a cancel would find the message "being sent". The handler
	 * then returns; the worker neither completes nor reschedules the job again.
	 */
	rescheduleIn(tx: As2Store, runAt: Date, reason: string): Promise<void>;
	/**
	 * The record the job would read first, as it stood when the job was leased to this worker:
	 * what its writer committed with it when it handed the job over already leased
	 * (`WorkerSlot.runClaimed`, hand-off.ts), or the message a claim read with a job of a
	 * `withMessage` kind (`ClaimedJob.message`). Current while the lease holds, since every other
	 * writer of it waits for the lease; undefined once the lease set then has run out, and for
	 * other jobs: the handler then reads the store.
	 */
	handedOff?: unknown;
}

export type JobHandler = (job: JobRecord, context: JobContext) => Promise<void>;

export interface WorkerOptions {
	store: As2Store;
	now: () => Date;
	logger: Logger;
	handlers: Readonly<Record<string, JobHandler>>;
	/** Jobs run at once by this worker; default 8. */
	concurrency?: number;
	/** Lease length; a running job's lease is renewed every third of it. Default 60 s. */
	leaseMs?: number;
	/** Sleep between polls when idle; `wake()` cuts it short. Default 500 ms. */
	pollMs?: number;
	/**
	 * Kinds whose payload's `messageId` names the message their handler reads first: claimed
	 * with it (`ClaimOptions.withMessage`) and given as `JobContext.handedOff` (issue #20).
	 */
	withMessage?: readonly string[];
	workerId?: string;
}

/**
 * A free slot of a worker, held for a job the caller is about to write already leased to it
 * (`JobStore.enqueueClaimed`): the job then runs without a claim of its own, and without the wait
 * for a poll (issue #20). Each slot ends with exactly one of `runClaimed` and `release`.
 */
export interface WorkerSlot {
	readonly workerId: string;
	/** Leased until now + leaseMs, as a claim would. */
	readonly leaseMs: number;
	/** Runs the job, committed leased to this worker, in this slot; `handedOff` goes to its handler (`JobContext`). */
	runClaimed(job: JobRecord, handedOff?: unknown): void;
	/** Frees the slot unused: nothing leased to this worker was committed. */
	release(): void;
}

export interface Worker {
	readonly workerId: string;
	start(): void;
	/** New jobs exist: poll now rather than after the idle sleep. */
	wake(): void;
	/**
	 * Holds a slot for a job of `kind` about to be written leased to this worker; null when the
	 * worker is full, not running, or has no handler for the kind: the job is then written
	 * unclaimed, for a poll of this or another instance.
	 */
	reserve(kind: string): WorkerSlot | null;
	/** Stops claiming, lets running jobs finish, resolves when they have. */
	stop(): Promise<void>;
}

/**
 * Runs durable jobs (DESIGN.md, Work in the background): claims due jobs with a lease,
 * renews the lease while a handler runs, completes or reschedules it. A handler that throws
 * `RetryJob` runs again when it asks; any other error retries with exponential backoff
 * (capped at an hour). A worker that dies leaves its jobs to be claimed again after the lease.
 */
export function createWorker(options: WorkerOptions): Worker {
	const { store, now, logger, handlers } = options;
	const concurrency = options.concurrency ?? 8;
	const leaseMs = options.leaseMs ?? 60_000;
	const pollMs = options.pollMs ?? 500;
	// host:pid:random — an operator (or a test) reading jobs.locked_by sees which process holds a job.
	const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
	const kinds = Object.keys(handlers);
	const withMessage = options.withMessage?.filter((kind) => kinds.includes(kind));
	const claimOptions = withMessage?.length ? { withMessage } : {};
	const running = new Set<Promise<void>>();
	const stopping = new AbortController();
	let started = false;
	let loop: Promise<void> | null = null;
	let wakeUp: (() => void) | null = null;
	/** Slots held for jobs being written leased to this worker: they count against `concurrency`. */
	let reserved = 0;
	/**
	 * Unclaimed due jobs may be waiting: set by `wake` and by a claim that took all it asked for,
	 * cleared by one that took less. While set, no slot is handed out, so a burst that fills the
	 * worker does not keep jobs already waiting from their turn (claims go in priority order).
	 */
	let backlog = true;
	/** Counts `wake` calls: one during a claim may be for a job committed after the claim looked. */
	let wakes = 0;
	/** Called when a job ends or a slot is settled: what `stop` waits on. */
	let settled: (() => void) | null = null;
	/**
	 * Jobs waiting for their start, half of them a turn of the event loop (at least one): a group
	 * commit hands off several jobs in one turn and a claim takes several at once, and each starts
	 * with a CPU-bound slice (a send's signing, compression and encryption). Started together, they
	 * made one long turn that the requests arriving meanwhile waited behind (issue #20, the POST's
	 * p99: performance.md, "Jobs started over several turns"); the loop now polls for I/O between
	 * the halves. Not one a turn: a saturated loop's turns are long, and one start a turn fell
	 * behind the jobs' arrival (a backlog, its payloads held in memory); halving drains n jobs in
	 * about log2(n) turns, whatever their length.
	 */
	const toStart: (() => void)[] = [];
	let startScheduled = false;
	/** Jobs a claim took that wait in `toStart`: they hold slots (handed-off ones count in `reserved`). */
	let claimedWaiting = 0;
	/**
	 * The jobs of this worker, waiting for their start or running. A claim may take one of them
	 * again when its lease ran out before a renewal got through (a stalled process): it is this
	 * worker's already, and the copy that holds it goes on (its lease machinery decides whether it
	 * may still act), so it is not run a second time in this process.
	 */
	const mine = new Set<string>();
	/** The slots taken: jobs running, handed-off ones not started yet, claimed ones waiting in `toStart`. */
	const held = () => running.size + reserved + claimedWaiting;
	/** Queues `job` in `toStart`; `starting` runs just before it starts (the slot's count moves to `running`). */
	const queueStart = (job: JobRecord, handedOff: unknown, starting: () => void) => {
		mine.add(job.id);
		toStart.push(() => {
			starting();
			track(job, handedOff);
		});
		scheduleStart();
	};
	const startNext = () => {
		startScheduled = false;
		for (let half = Math.ceil(toStart.length / 2); half > 0; half--) toStart.shift()?.();
		if (toStart.length > 0) scheduleStart();
	};
	const scheduleStart = () => {
		if (startScheduled) return;
		startScheduled = true;
		inNextTurn(startNext);
	};

	async function runOne(job: JobRecord, handedOff: unknown): Promise<void> {
		const handler = handlers[job.kind]!;
		const lost = new AbortController();
		// The end of the lease as this worker last set it; no other worker claims the job before.
		let heldUntil = job.lockedUntil?.getTime() ?? now().getTime() + leaseMs;
		const extend = async (): Promise<boolean> => {
			if (lost.signal.aborted) return false;
			const until = now().getTime() + leaseMs;
			if (await store.jobs.extendLease(job.id, workerId, new Date(until))) {
				heldUntil = Math.max(heldUntil, until);
				return true;
			}
			lost.abort();
			logger.warn({ jobId: job.id, kind: job.kind }, "lease lost: another worker holds the job");
			return false;
		};
		const renew = setInterval(() => {
			extend().catch((error: unknown) => {
				logger.warn({ err: error, jobId: job.id }, "lease renewal failed");
			});
		}, leaseMs / 3);
		// From the lease's end another worker may claim the job. When no renewal got through by
		// then (the store slow or unreachable), work outside the store stops at that moment by this
		// worker's own clock, not when a late renewal finally finds the job taken: else one AS2
		// message is in flight from two workers at once.
		let expiry: ReturnType<typeof setTimeout> | undefined;
		const watchExpiry = () => {
			expiry = setTimeout(
				() => {
					if (lost.signal.aborted) return;
					if (now().getTime() < heldUntil) return watchExpiry();
					lost.abort();
					logger.warn({ jobId: job.id, kind: job.kind }, "lease ran out before a renewal got through");
				},
				Math.max(0, heldUntil - now().getTime()),
			);
		};
		watchExpiry();
		try {
			let completed = false;
			let rescheduled = false;
			await handler(job, {
				signal: stopping.signal,
				leaseLost: lost.signal,
				// A margin of a tenth of the lease: the work confirmed now starts a moment later.
				confirmLease: async () =>
					!lost.signal.aborted && (now().getTime() < heldUntil - leaseMs / 10 || (await extend())),
				completeIn: async (tx) => {
					completed = await tx.jobs.complete(job.id, workerId);
				},
				completion: {
					jobId: job.id,
					workerId,
					ended: (ended) => {
						completed = ended;
					},
				},
				rescheduleIn: async (tx, runAt, reason) => {
					rescheduled = await tx.jobs.retry(job.id, workerId, { runAt, error: reason });
				},
				// Current only while the lease set with it holds: after that another worker may have run the job.
				...(handedOff !== undefined && now().getTime() < heldUntil ? { handedOff } : {}),
			});
			// A job whose lease was lost is left as it is: its next holder finishes it.
			if (!completed && !rescheduled && !lost.signal.aborted) await store.jobs.complete(job.id, workerId);
		} catch (error) {
			const runAt =
				error instanceof RetryJob
					? error.runAt
					: new Date(now().getTime() + Math.min(3600_000, 1000 * 2 ** Math.min(job.attempts, 12)));
			if (!(error instanceof RetryJob)) logger.error({ err: error, jobId: job.id, kind: job.kind }, "job failed");
			await store.jobs.retry(job.id, workerId, { runAt, error: String((error as Error)?.message ?? error) });
		} finally {
			clearInterval(renew);
			clearTimeout(expiry);
		}
	}

	function track(job: JobRecord, handedOff?: unknown): void {
		const task = runOne(job, handedOff).catch((error: unknown) =>
			logger.error({ err: error, jobId: job.id }, "job bookkeeping failed"),
		);
		running.add(task);
		void task.finally(() => {
			running.delete(task);
			mine.delete(job.id);
			// A slot is free: worth a claim only when jobs are known to wait (else the next poll finds any).
			if (backlog) wakeUp?.();
			settled?.();
		});
	}

	async function poll(): Promise<void> {
		while (!stopping.signal.aborted) {
			let claimed: ClaimedJob[] = [];
			const free = concurrency - held();
			const woken = wakes;
			if (free > 0) {
				try {
					claimed = await store.jobs.claim({ kinds, limit: free, workerId, leaseMs, now: now(), ...claimOptions });
					backlog = claimed.length === free || wakes !== woken;
				} catch (error) {
					logger.error({ err: error }, "claiming jobs failed");
				}
			}
			for (const { message, ...job } of claimed) {
				if (mine.has(job.id)) continue;
				claimedWaiting++;
				queueStart(job, message ?? undefined, () => claimedWaiting--);
			}
			if ((claimed.length === 0 && wakes === woken) || held() >= concurrency) {
				await new Promise<void>((resolve) => {
					const timer = setTimeout(resolve, pollMs);
					wakeUp = () => {
						clearTimeout(timer);
						resolve();
					};
				});
				wakeUp = null;
			}
			// Storage calls may resolve without waiting for I/O (SQLite is synchronous), so this
			// loop and its jobs could otherwise run as one endless chain of microtasks: no HTTP
			// request, response or timer of this process would be served until the queue drained.
			await setImmediate();
		}
	}

	return {
		workerId,
		start() {
			if (started || kinds.length === 0) return;
			started = true;
			loop = poll();
		},
		wake() {
			wakes++;
			backlog = true;
			wakeUp?.();
		},
		reserve(kind) {
			if (!started || stopping.signal.aborted || !Object.hasOwn(handlers, kind) || backlog) return null;
			if (held() >= concurrency) {
				// The job is written unclaimed instead (and the caller wakes this worker for it).
				backlog = true;
				return null;
			}
			reserved++;
			let open = true;
			return {
				workerId,
				leaseMs,
				runClaimed(job, handedOff) {
					if (!open) return;
					open = false;
					// Started once the caller's own continuation (the POST's answer) has run, so the job's
					// first CPU-bound slice does not delay the response it was handed off from, and spread
					// with the others over a few turns (`toStart`).
					queueStart(job, handedOff, () => reserved--);
				},
				release() {
					if (!open) return;
					open = false;
					reserved--;
					if (backlog) wakeUp?.();
					settled?.();
				},
			};
		},
		async stop() {
			stopping.abort();
			wakeUp?.();
			await loop;
			// A slot held when stopping began still ends in a job that runs (its lease is this
			// worker's; left alone, it would wait for the lease to run out) or in a release.
			while (held() > 0) {
				await new Promise<void>((resolve) => {
					settled = resolve;
				});
			}
			settled = null;
		},
	};
}
