import { CERTIFICATE_EXPIRY_SCAN, expiryScanHandler } from "../certificates/expiry-scan.ts";
import type { ServiceDeps } from "../deps.ts";
import { maintenanceHandlers, PURGE_IDEMPOTENCY } from "./maintenance.ts";
import { createScheduler, type PeriodicTask } from "./scheduler.ts";
import { createWorker, type JobHandler, type Worker } from "./worker.ts";

export interface Background {
	worker: Worker;
	start(): void;
	/** Stops scheduling and claiming; resolves when running jobs have finished. */
	stop(): Promise<void>;
}

/** What the background needs of a service: its dependencies and the message pipeline's jobs. */
export interface BackgroundSource {
	deps: ServiceDeps;
	messages: { handlers: Record<string, JobHandler>; tasks: readonly PeriodicTask[] };
}

/** The job worker and the periodic scheduler of one process (`--role worker|all`). */
export function createBackground(
	service: BackgroundSource,
	options: { concurrency?: number; pollMs?: number; leaseMs?: number } = {},
): Background {
	const deps = service.deps;
	const worker = createWorker({
		store: deps.store,
		now: deps.now,
		logger: deps.logger.child({ component: "worker" }),
		handlers: {
			...maintenanceHandlers(deps),
			[CERTIFICATE_EXPIRY_SCAN.name]: expiryScanHandler(deps),
			...service.messages.handlers,
		},
		...options,
	});
	const scheduler = createScheduler({
		store: deps.store,
		now: deps.now,
		logger: deps.logger.child({ component: "scheduler" }),
		tasks: [PURGE_IDEMPOTENCY, CERTIFICATE_EXPIRY_SCAN, ...service.messages.tasks],
		onEnqueued: () => worker.wake(),
	});
	return {
		worker,
		start() {
			// Work committed by this process's requests wakes its own worker at once.
			deps.wake = () => worker.wake();
			worker.start();
			scheduler.start();
		},
		async stop() {
			deps.wake = () => {};
			scheduler.stop();
			await worker.stop();
		},
	};
}
