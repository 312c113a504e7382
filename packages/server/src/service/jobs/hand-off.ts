import type { As2Store, EventStore, JobLease, JobRecord, JobStore, NewJob } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import type { WorkerSlot } from "./worker.ts";

/**
 * A job written in a request's transaction and, when this process's worker has a free slot,
 * written already leased to it and run by it once committed: no claim of its own and no wait
 * for a poll (issue #20). Otherwise (a full worker, a job not yet due, no worker in this
 * process) it is written unclaimed and the worker woken, as any job. Should this process die
 * after the commit, the lease runs out and another instance's worker claims the job.
 *
 * Run the transaction's writes through `watch(tx)`, the job through `enqueue`, then call
 * `committed` after it commits, or `abandoned` when it failed (both are safe to call twice).
 *
 * `enqueue` may also give the record the job reads first, as the same transaction wrote it: a
 * job run in its slot gets it (`JobContext.handedOff`) and skips that read (issue #20). It is
 * current when the job starts: the job is leased to this worker from the same commit, and
 * whatever else writes the record waits for the job's lease (a cancel or retry of a message
 * refuses a job that is leased); a job claimed by a poll or by another instance is claimed
 * with its message instead (`WorkerOptions.withMessage`).
 */
export function prepareHandOff(deps: ServiceDeps) {
	let slot: WorkerSlot | null = null;
	let leased: JobRecord | null = null;
	let handedOff: unknown;
	let othersEnqueued = false;
	return {
		/**
		 * The transaction's store, noting the other jobs written through it (an event's webhook
		 * fan-out, an EPCIS index): those wait for a poll, so the worker is woken for them.
		 */
		watch(tx: As2Store): As2Store {
			const jobs: JobStore = Object.create(tx.jobs);
			jobs.enqueue = (job, now) => {
				othersEnqueued = true;
				return tx.jobs.enqueue(job, now);
			};
			const events: EventStore = Object.create(tx.events);
			events.appendNewWithFanOut = async (event, fanOut) => {
				const written = await tx.events.appendNewWithFanOut(event, fanOut);
				if (written.fanOut) othersEnqueued = true;
				return written;
			};
			// Everything else is read through to `tx` itself (a view with properties of its own,
			// such as the configuration cache's, keeps them).
			const view: As2Store = Object.create(tx);
			Object.defineProperty(view, "jobs", { value: jobs });
			Object.defineProperty(view, "events", { value: events });
			return view;
		},
		/**
		 * Resolves to the job written, or null when its key is held by a live job (`JobStore.enqueue`).
		 * `written`: the record the job reads first, as this transaction wrote it (see above).
		 */
		async enqueue(tx: As2Store, job: NewJob, now: Date, written?: unknown): Promise<JobRecord | null> {
			slot ??= job.runAt <= now ? deps.reserveWorker(job.kind) : null;
			leased = null;
			handedOff = written;
			if (!slot) return tx.jobs.enqueue(job, now);
			const lease = { workerId: slot.workerId, lockedUntil: new Date(now.getTime() + slot.leaseMs) };
			leased = await tx.jobs.enqueueClaimed(job, now, lease);
			return leased;
		},
		/**
		 * For a job written by a step of the store (`MessageSteps.submit`) rather than through
		 * `enqueue`: the lease to write it with when this process's worker has a free slot and the
		 * job is due, or null (written unclaimed). Then `wrote` with what the step wrote.
		 */
		lease(job: NewJob, now: Date): JobLease | null {
			slot ??= job.runAt <= now ? deps.reserveWorker(job.kind) : null;
			return slot ? { workerId: slot.workerId, lockedUntil: new Date(now.getTime() + slot.leaseMs) } : null;
		},
		/**
		 * The step committed `job` (leased when `lease` gave one; null when its key was held) and,
		 * when `others`, jobs that wait for a poll. `written`: the record the job reads first.
		 */
		wrote(job: JobRecord | null, written: unknown, others: boolean): void {
			leased = slot && job ? job : null;
			handedOff = written;
			if (others) othersEnqueued = true;
		},
		/** The transaction committed: the leased job runs in its slot; a poll takes any other. */
		committed(): void {
			if (slot && leased) slot.runClaimed(leased, handedOff);
			if (!leased || othersEnqueued) deps.wake();
			slot?.release();
		},
		/** The transaction failed: nothing was written, the slot is free again. */
		abandoned(): void {
			slot?.release();
		},
	};
}
