import { MimeHeaders, readMdnRequest, stripMessageId } from "@as2kit/core";
import { configReads } from "../config-cache/config-reads.ts";
import type { ServiceDeps } from "../deps.ts";
import { type JobHandler, RetryJob } from "../jobs/worker.ts";
import { effectivePartner } from "../partners/effective-partner.ts";
import { planOf } from "../plans.ts";
import type { InboundConcurrency } from "./inbound-concurrency.ts";
import { dispositionFor } from "./inbound-mdn.ts";
import type { KeyMaterial } from "./key-material.ts";
import { processInbound } from "./process-inbound.ts";
import { SEND_MDN_JOB } from "./send-job-kind.ts";

/** How long a receive job waits when inbound processing is at its bound. */
const BUSY_RETRY_MS = 2000;

/**
 * The `message.receive` job: an inbound message whose sender did not wait for a sync MDN,
 * processed from its stored raw body. A failure that deserves an async MDN gets one (a job of
 * its own); the raw body is removed once processed.
 */
export function createReceiveHandler(deps: ServiceDeps, keys: KeyMaterial, inbound: InboundConcurrency): JobHandler {
	const { store, blobs, now, config } = deps;
	const configs = configReads(deps.configCache, store);
	return async (job) => {
		const { accountId, tenantId, partnerId, blobKey } = job.payload as {
			accountId: string;
			tenantId: string;
			partnerId: string;
			blobKey: string;
		};
		const headers = new MimeHeaders(job.payload.headers as [string, string][]);
		const tenant = await configs.tenant(accountId, tenantId);
		const row = tenant ? await configs.visiblePartner(tenant.id, tenant.accountId, partnerId) : null;
		if (!tenant || !row) {
			await blobs.delete(blobKey).catch(() => {});
			return;
		}
		const account = await configs.account(tenant.accountId);
		// The same bound as /as2/receive (inbound-concurrency.ts): over it, the job runs later.
		const release = inbound.tryEnter(tenant.id, planOf(account?.plan ?? "free", config.enterpriseLimits).concurrent);
		if (!release) throw new RetryJob(new Date(now().getTime() + BUSY_RETRY_MS), "inbound processing is at its bound");
		const mdnRequest = readMdnRequest(headers);
		const messageId = stripMessageId(headers.get("message-id") ?? "");
		let outcome: Awaited<ReturnType<typeof processInbound>>;
		try {
			outcome = await processInbound(deps, keys, {
				tenant,
				partner: effectivePartner(row).record,
				account,
				headers,
				messageId,
				mdnRequest,
				body: { blobKey },
			});
		} finally {
			release();
		}
		if (outcome.error !== null && mdnRequest?.mode === "async") {
			// No message was stored: the negative MDN carries its own facts.
			const at = now();
			await store.transaction((tx) =>
				tx.jobs.enqueue(
					{
						kind: SEND_MDN_JOB,
						payload: {
							accountId,
							tenantId,
							partnerId,
							original: { messageId, from: headers.get("as2-from") ?? "", to: headers.get("as2-to") ?? "" },
							mdnRequest: { ...mdnRequest, micAlgorithms: [...mdnRequest.micAlgorithms] },
							disposition: dispositionFor(outcome.error) as unknown as Record<string, string>,
							text: outcome.error instanceof Error ? outcome.error.message : String(outcome.error),
						},
						runAt: at,
					},
					at,
				),
			);
			deps.wake();
		} else if (outcome.duplicate && outcome.message && mdnRequest?.mode === "async") {
			// A duplicate still gets its MDN again (the partner may have missed the first).
			const at = now();
			await store.transaction((tx) =>
				tx.jobs.enqueue({ kind: SEND_MDN_JOB, payload: { messageId: outcome.message!.id }, runAt: at }, at),
			);
			deps.wake();
		}
		await blobs.delete(blobKey).catch(() => {});
	};
}
