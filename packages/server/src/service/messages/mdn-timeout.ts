import type { MessageRecord } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import type { PeriodicTask } from "../jobs/scheduler.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { failMessage } from "./message-transitions.ts";

/** Every minute: sent messages whose async MDN is overdue fail with MDN_TIMEOUT (AS2_MDN_TIMEOUT_SECONDS). */
export const MDN_TIMEOUT_SCAN: PeriodicTask = { name: "messages.mdn_timeout_scan", everySeconds: 60 };

export function mdnTimeoutHandler(deps: ServiceDeps): JobHandler {
	const { store, now } = deps;
	return async () => {
		for (let round = 0; round < 100; round++) {
			const at = now();
			const overdue = await store.messages.listMdnOverdue(at, 200);
			for (const message of overdue) {
				await failMessage(deps, message, { code: "MDN_TIMEOUT", message: timeoutMessage(message) }, at, {
					mdnStatus: "timeout",
					mdnDeadline: null,
				});
			}
			if (overdue.length < 200) return;
		}
	};
}

/** Says so when MDNs did come but were rejected (apply-mdn.ts): the likely fix is the partner's certificate. */
function timeoutMessage(message: MessageRecord): string {
	const base = `no valid MDN arrived by ${message.mdnDeadline?.toISOString()}`;
	const latest = message.rejectedMdns.at(-1);
	if (!latest) return base;
	return `${base}; ${message.rejectedMdns.length} rejected (the latest because ${latest.reason}), see rejected_mdns`;
}
