import type { As2Store, PlanName } from "@as2kit/core/store";
import { configReads } from "../config-cache/config-reads.ts";
import type { ServiceDeps } from "../deps.ts";
import type { PeriodicTask } from "../jobs/scheduler.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { capturedBlobs } from "./attempt-wire.ts";

/**
 * Days the wire captures of an attempt are kept, by the plan of its account when captured
 * (issue #18: Free 3, Professional 30, Enterprise 90; Starter, which the issue does not name,
 * between Free and Professional). The attempt itself stays; only its bytes go.
 */
export const WIRE_RETENTION_DAYS: Readonly<Record<PlanName, number>> = {
	free: 3,
	starter: 7,
	professional: 30,
	enterprise: 90,
};

/** When captures made at `at` under `plan` expire. */
export function wireExpiryFor(plan: PlanName, at: Date): Date {
	return new Date(at.getTime() + WIRE_RETENTION_DAYS[plan] * 86_400_000);
}

/**
 * When captures made at `at` for `accountId` expire. `store` may be a transaction's: read
 * there, the account costs no transaction of its own (issue #20); remembered (config-reads.ts),
 * no read at all.
 */
export async function wireExpiry(
	deps: Pick<ServiceDeps, "configCache">,
	store: As2Store,
	accountId: string,
	at: Date,
): Promise<Date> {
	const account = await configReads(deps.configCache, store).account(accountId);
	return wireExpiryFor(account?.plan ?? "free", at);
}

/** Removes expired wire captures, hourly. */
export const PURGE_WIRE: PeriodicTask = { name: "messages.purge_wire", everySeconds: 3600 };

const PURGE_BATCH = 500;
const PURGE_MAX_BATCHES = 100;

/**
 * Deletes the blobs of expired captures, then forgets them on the attempt, in batches (the
 * rest waits for the next run). A blob deleted whose attempt was not yet updated (a crash
 * between the two) is deleted again next time: deleting a missing blob is no error.
 */
export function purgeWireHandler({ store, blobs, now, logger }: ServiceDeps): JobHandler {
	return async () => {
		let purged = 0;
		for (let batch = 0; batch < PURGE_MAX_BATCHES; batch++) {
			const expired = await store.messageAttempts.listWireExpired(now(), PURGE_BATCH);
			for (const attempt of expired) {
				for (const key of capturedBlobs([attempt.request, attempt.response, attempt.mdn])) await blobs.delete(key);
				await store.messageAttempts.update(attempt.messageId, attempt.number, {
					request: null,
					response: null,
					mdn: null,
					wireExpiresAt: null,
				});
			}
			purged += expired.length;
			if (expired.length < PURGE_BATCH) break;
		}
		if (purged > 0) logger.info({ purged }, "removed expired wire captures");
	};
}
