import type { As2Store, JobRecord, NewJob } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import type { WorkerSlot } from "./worker.ts";

/**
 * A job written in a request's transaction and, when this process's worker has a free slot,
 * written already leased to it and run by it once committed: no claim of its own and no wait
 * for a poll (issue #20). Otherwise (a full worker, a job not yet due, no worker in this
 * process) it is written unclaimed and the worker woken, as any job. Should this process die
 * after the commit, the lease runs out and another instance's worker claims the job.
 *
 * Call `enqueue` inside the transaction, then `committed` after it commits, or `abandoned` when
 * it failed (both are safe to call more than once).
 */
export function prepareHandOff(deps: ServiceDeps) {
	let slot: WorkerSlot | null = null;
	let leased: JobRecord | null = null;
	return {
		/** Resolves to the job written, or null when its key is held by a live job (`JobStore.enqueue`). */
		async enqueue(tx: As2Store, job: NewJob, now: Date): Promise<JobRecord | null> {
			slot ??= job.runAt <= now ? deps.reserveWorker(job.kind) : null;
			leased = null;
			if (!slot) return tx.jobs.enqueue(job, now);
			const lease = { workerId: slot.workerId, lockedUntil: new Date(now.getTime() + slot.leaseMs) };
			leased = await tx.jobs.enqueueClaimed(job, now, lease);
			return leased;
		},
		/** The transaction committed: the leased job runs in its slot, or the worker polls for it. */
		committed(): void {
			if (slot && leased) slot.runClaimed(leased);
			else deps.wake();
			slot?.release();
		},
		/** The transaction failed: nothing was written, the slot is free again. */
		abandoned(): void {
			slot?.release();
		},
	};
}
