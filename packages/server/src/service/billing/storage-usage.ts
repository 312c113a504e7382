import { STORAGE_PERIOD } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import type { PeriodicTask } from "../jobs/scheduler.ts";
import type { JobHandler } from "../jobs/worker.ts";

/**
 * Measures what each account keeps — payloads, and wire captures within their retention
 * (issue #18: a capture's size counts toward storage) — every 15 minutes. A full pass over
 * messages and attempts, so a task and not a counter kept on every message's path: the
 * figure `GET /v1/account/usage` and `/metrics` show is at most one period old.
 */
export const MEASURE_STORAGE: PeriodicTask = { name: "billing.measure_storage", everySeconds: 900 };

export function measureStorageHandler({ store }: ServiceDeps): JobHandler {
	return () => store.transaction((tx) => tx.usage.measureStorage());
}

/** The last measure of an account's storage, in bytes. */
export async function storageOf(deps: ServiceDeps, accountId: string) {
	const read = (metric: string) => deps.store.usage.get({ accountId, period: STORAGE_PERIOD, metric });
	const [payloadBytes, wireBytes] = await Promise.all([read("payload_bytes"), read("wire_bytes")]);
	return { payloadBytes, wireBytes };
}
