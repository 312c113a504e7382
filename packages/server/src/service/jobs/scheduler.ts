import type { As2Store } from "@as2kit/core/store";
import type { Logger } from "../deps.ts";

export interface PeriodicTask {
	/** Also the job kind the task runs as. */
	name: string;
	everySeconds: number;
}

/**
 * Enqueues each periodic task once per period across every instance: all instances tick,
 * but only the one whose `claimPeriod` succeeds enqueues the period's job (de-duplicated by
 * its key too), and a worker runs it under a lease like any other job.
 */
export function createScheduler(options: {
	store: As2Store;
	now: () => Date;
	logger: Logger;
	tasks: readonly PeriodicTask[];
	tickMs?: number;
	onEnqueued?: () => void;
}) {
	const { store, now, logger, tasks } = options;
	let timer: NodeJS.Timeout | null = null;

	async function tick(): Promise<void> {
		for (const task of tasks) {
			const at = now();
			const period = String(Math.floor(at.getTime() / (task.everySeconds * 1000)));
			try {
				const enqueued = await store.transaction(async (tx) => {
					if (!(await tx.schedules.claimPeriod(task.name, period))) return false;
					await tx.jobs.enqueue({ kind: task.name, key: `${task.name}:${period}`, payload: { period }, runAt: at }, at);
					return true;
				});
				if (enqueued) options.onEnqueued?.();
			} catch (error) {
				logger.error({ err: error, task: task.name }, "scheduling failed");
			}
		}
	}

	return {
		tick,
		start() {
			if (timer) return;
			void tick();
			timer = setInterval(() => void tick(), options.tickMs ?? 15_000);
			timer.unref();
		},
		stop() {
			if (timer) clearInterval(timer);
			timer = null;
		},
	};
}
