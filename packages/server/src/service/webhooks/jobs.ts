import type { ServiceDeps } from "../deps.ts";
import type { PeriodicTask } from "../jobs/scheduler.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { fanOutHandler } from "./fan-out.ts";
import { FAN_OUT_JOB } from "./job-kinds.ts";

/** Finished deliveries are kept this long in the delivery log; stats counters outlive them. */
export const DELIVERY_RETENTION_DAYS = 30;

/** Deletes finished deliveries past their retention, hourly. */
export const PURGE_WEBHOOK_DELIVERIES: PeriodicTask = { name: "webhooks.purge_deliveries", everySeconds: 3600 };

const PURGE_BATCH = 1000;
const PURGE_MAX_BATCHES = 100;

export function webhookHandlers(deps: ServiceDeps, onDeliveries: () => void): Record<string, JobHandler> {
	const { store, now, logger } = deps;
	return {
		[FAN_OUT_JOB]: fanOutHandler(deps, onDeliveries),
		// In batches, so one purge never holds the write lock for long; the rest waits an hour.
		[PURGE_WEBHOOK_DELIVERIES.name]: async () => {
			const before = new Date(now().getTime() - DELIVERY_RETENTION_DAYS * 86_400_000);
			let purged = 0;
			for (let batch = 0; batch < PURGE_MAX_BATCHES; batch++) {
				const deleted = await store.webhookDeliveries.purgeFinished(before, PURGE_BATCH);
				purged += deleted;
				if (deleted < PURGE_BATCH) break;
			}
			if (purged > 0) logger.info({ purged }, "purged old webhook deliveries");
		},
	};
}
