import { CERTIFICATE_EXPIRY_SCAN, expiryScanHandler } from "../certificates/expiry-scan.ts";
import type { ServiceDeps } from "../deps.ts";
import { maintenanceHandlers, PURGE_IDEMPOTENCY } from "./maintenance.ts";
import { createScheduler } from "./scheduler.ts";
import { createWorker, type Worker } from "./worker.ts";

export interface Background {
	worker: Worker;
	start(): void;
	/** Stops scheduling and claiming; resolves when running jobs have finished. */
	stop(): Promise<void>;
}

/** The job worker and the periodic scheduler of one process (`--role worker|all`). */
export function createBackground(
	deps: ServiceDeps,
	options: { concurrency?: number; pollMs?: number } = {},
): Background {
	const worker = createWorker({
		store: deps.store,
		now: deps.now,
		logger: deps.logger.child({ component: "worker" }),
		handlers: { ...maintenanceHandlers(deps), [CERTIFICATE_EXPIRY_SCAN.name]: expiryScanHandler(deps) },
		...options,
	});
	const scheduler = createScheduler({
		store: deps.store,
		now: deps.now,
		logger: deps.logger.child({ component: "scheduler" }),
		tasks: [PURGE_IDEMPOTENCY, CERTIFICATE_EXPIRY_SCAN],
		onEnqueued: () => worker.wake(),
	});
	return {
		worker,
		start() {
			worker.start();
			scheduler.start();
		},
		async stop() {
			scheduler.stop();
			await worker.stop();
		},
	};
}
