import type { ServiceDeps } from "../deps.ts";
import type { PeriodicTask } from "../jobs/scheduler.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { failMessage } from "./message-transitions.ts";

/** Every minute: sent messages whose async MDN is overdue fail with MDN_TIMEOUT (AS2_MDN_TIMEOUT_SECONDS). */
export const MDN_TIMEOUT_SCAN: PeriodicTask = { name: "messages.mdn_timeout_scan", everySeconds: 60 };

export function mdnTimeoutHandler({ store, now }: ServiceDeps): JobHandler {
	return async () => {
		for (let round = 0; round < 100; round++) {
			const at = now();
			const overdue = await store.messages.listMdnOverdue(at, 200);
			for (const message of overdue) {
				await failMessage(
					store,
					message,
					{ code: "MDN_TIMEOUT", message: `no MDN arrived by ${message.mdnDeadline?.toISOString()}` },
					at,
					{ mdnStatus: "timeout", mdnDeadline: null },
				);
			}
			if (overdue.length < 200) return;
		}
	};
}
