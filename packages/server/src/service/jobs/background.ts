import { MEASURE_STORAGE, measureStorageHandler } from "../billing/storage-usage.ts";
import { CERTIFICATE_EXPIRY_SCAN, expiryScanHandler } from "../certificates/expiry-scan.ts";
import type { ServiceDeps } from "../deps.ts";
import { createDeliveryDispatcher, type DeliveryDispatcher } from "../webhooks/dispatcher.ts";
import { PURGE_WEBHOOK_DELIVERIES, webhookHandlers } from "../webhooks/jobs.ts";
import { maintenanceHandlers, PURGE_IDEMPOTENCY } from "./maintenance.ts";
import { createScheduler, type PeriodicTask } from "./scheduler.ts";
import { createWorker, type JobHandler, type Worker } from "./worker.ts";

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

/** What the background needs of a service: its dependencies and the message pipeline's jobs. */
export interface BackgroundSource {
	deps: ServiceDeps;
	messages: {
		handlers: Record<string, JobHandler>;
		tasks: readonly PeriodicTask[];
		/** Kinds claimed with the message they name (`WorkerOptions.withMessage`). */
		withMessage?: readonly string[];
	};
}

/**
 * The job worker, the webhook delivery dispatcher and the periodic scheduler of one process
 * (`--role worker|all`).
 */
export function createBackground(
	service: BackgroundSource,
	options: { concurrency?: number; pollMs?: number; leaseMs?: number; deliveryConcurrency?: number } = {},
): Background {
	const deps = service.deps;
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
		handlers: {
			...maintenanceHandlers(deps),
			[CERTIFICATE_EXPIRY_SCAN.name]: expiryScanHandler(deps),
			[MEASURE_STORAGE.name]: measureStorageHandler(deps),
			...webhookHandlers(deps, () => dispatcher.wake()),
			...service.messages.handlers,
		},
		...(service.messages.withMessage ? { withMessage: service.messages.withMessage } : {}),
		...workerOptions,
	});
	const scheduler = createScheduler({
		store: deps.store,
		now: deps.now,
		logger: deps.logger.child({ component: "scheduler" }),
		tasks: [
			PURGE_IDEMPOTENCY,
			PURGE_WEBHOOK_DELIVERIES,
			CERTIFICATE_EXPIRY_SCAN,
			MEASURE_STORAGE,
			...service.messages.tasks,
		],
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
			// Work committed by this process's requests (jobs, events) wakes its own worker at once.
			deps.wake = () => worker.wake();
			deps.reserveWorker = (kind) => worker.reserve(kind);
			worker.start();
			dispatcher.start();
			scheduler.start();
		},
		async stop() {
			deps.wake = () => {};
			deps.reserveWorker = () => null;
			scheduler.stop();
			await Promise.all([worker.stop(), dispatcher.stop()]);
		},
	};
}
