import type { ServiceDeps } from "../deps.ts";
import { recordEvent } from "../events.ts";
import type { PeriodicTask } from "../jobs/scheduler.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { certificateExpiringView, certificateView } from "../views/certificate-views.ts";

/** Hourly: certificate.expiring 30 days ahead and certificate.expired once each (interface spec, Limits). */
export const CERTIFICATE_EXPIRY_SCAN: PeriodicTask = { name: "certificates.expiry_scan", everySeconds: 3600 };
const WARNING_DAYS = 30;
const BATCH = 200;

/**
 * Each notification is claimed with `markNotified` in the transaction that records its event,
 * so a certificate yields each event exactly once however many instances scan at the same time.
 */
export function expiryScanHandler({ store, now }: ServiceDeps): JobHandler {
	return async () => {
		for (const kind of ["expired", "expiring"] as const) {
			for (let round = 0; round < 100; round++) {
				const at = now();
				const horizon = kind === "expired" ? at : new Date(at.getTime() + WARNING_DAYS * 86_400_000);
				const due = await store.certificates.listUnnotified(kind, horizon, BATCH);
				for (const certificate of due) {
					await store.transaction(async (tx) => {
						if (!(await tx.certificates.markNotified(certificate.id, kind, at))) return;
						// An expired certificate that was never warned about is not warned about afterwards.
						if (kind === "expired") await tx.certificates.markNotified(certificate.id, "expiring", at);
						await recordEvent(
							tx,
							{
								kind: `certificate.${kind}`,
								accountId: certificate.accountId,
								tenantId: certificate.tenantId,
								environment: "live",
								data: kind === "expiring" ? certificateExpiringView(certificate, at) : certificateView(certificate),
							},
							at,
						);
					});
				}
				if (due.length < BATCH) break;
			}
		}
	};
}
