import type { ServiceDeps } from "../deps.ts";
import { createDeliveryDispatcher, type DeliveryDispatcher } from "../webhooks/dispatcher.ts";
import { PURGE_WEBHOOK_DELIVERIES, webhookHandlers } from "../webhooks/jobs.ts";
import { maintenanceHandlers, PURGE_IDEMPOTENCY } from "./maintenance.ts";
import { createScheduler } from "./scheduler.ts";
import { createWorker, type Worker } from "./worker.ts";

export interface Background {
	worker: Worker;
	/** Sends webhook deliveries; its own pool, so slow receivers never hold up other jobs. */
	dispatcher: DeliveryDispatcher;
	/** Work may be due: poll the worker and the dispatcher now. */
	wake(): void;
	start(): void;
	/** Stops scheduling and claiming; resolves when running jobs have finished. */
	stop(): Promise<void>;
}

/**
 * The job worker, the webhook delivery dispatcher and the periodic scheduler of one process
 * (`--role worker|all`).
 */
export function createBackground(
	deps: ServiceDeps,
	options: { concurrency?: number; pollMs?: number; deliveryConcurrency?: number } = {},
): Background {
	const { deliveryConcurrency, ...workerOptions } = options;
	const dispatcher = createDeliveryDispatcher(
		{ ...deps, logger: deps.logger.child({ component: "webhooks" }) },
		{
			...(deliveryConcurrency !== undefined ? { concurrency: deliveryConcurrency } : {}),
			...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
		},
	);
	const worker = createWorker({
		store: deps.store,
		now: deps.now,
		logger: deps.logger.child({ component: "worker" }),
		handlers: { ...maintenanceHandlers(deps), ...webhookHandlers(deps, () => dispatcher.wake()) },
		...workerOptions,
	});
	const scheduler = createScheduler({
		store: deps.store,
		now: deps.now,
		logger: deps.logger.child({ component: "scheduler" }),
		tasks: [PURGE_IDEMPOTENCY, PURGE_WEBHOOK_DELIVERIES],
		onEnqueued: () => worker.wake(),
	});
	return {
		worker,
		dispatcher,
		wake() {
			worker.wake();
			dispatcher.wake();
		},
		start() {
			worker.start();
			dispatcher.start();
			scheduler.start();
		},
		async stop() {
			scheduler.stop();
			await Promise.all([worker.stop(), dispatcher.stop()]);
		},
	};
}
