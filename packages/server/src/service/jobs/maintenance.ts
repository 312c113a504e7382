import type { ServiceDeps } from "../deps.ts";
import type { PeriodicTask } from "./scheduler.ts";
import type { JobHandler } from "./worker.ts";

/** Deletes Idempotency-Key records past their 24-hour retention, hourly. */
export const PURGE_IDEMPOTENCY: PeriodicTask = { name: "maintenance.purge_idempotency", everySeconds: 3600 };

export function maintenanceHandlers({ store, now, logger }: ServiceDeps): Record<string, JobHandler> {
	return {
		[PURGE_IDEMPOTENCY.name]: async () => {
			const purged = await store.idempotency.purgeExpired(now());
			if (purged > 0) logger.info({ purged }, "purged expired idempotency keys");
		},
	};
}
