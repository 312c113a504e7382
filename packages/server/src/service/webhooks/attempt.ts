import type { WebhookAttemptRecord, WebhookDeliveryRecord, WebhookDeliveryStatus } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { addSeconds } from "../time.ts";
import { deactivationReason, shouldDeactivate } from "./endpoint-health.ts";
import { openWebhookSecret } from "./endpoint-secret.ts";
import type { SendResult, WebhookSender } from "./http-sender.ts";
import { webhookHeaders } from "./signature.ts";

export interface AttemptContext {
	deps: ServiceDeps;
	sender: WebhookSender;
	secretKey: Uint8Array;
}

export interface AttemptOutcome extends SendResult {
	status: WebhookDeliveryStatus;
	attempt: number;
}

/**
 * One HTTP attempt of a delivery the caller holds (`lockedBy`), then, in one transaction,
 * the attempt's record, the delivery's next state and the endpoint's counters and failure
 * streak. `scheduled` deliveries follow AS2_WEBHOOK_RETRY_DELAYS: attempt n+1 is due
 * `delays[n]` seconds after attempt n failed, until the schedule is spent. A `test` delivery
 * is one attempt, made even to an inactive endpoint, and never retried automatically.
 * Resolves to null when nothing was sent (endpoint deleted, or inactive for a scheduled one).
 */
export async function attemptDelivery(
	{ deps, sender, secretKey }: AttemptContext,
	delivery: WebhookDeliveryRecord,
	lockedBy: string,
	mode: "scheduled" | "test",
): Promise<AttemptOutcome | null> {
	const { store, now, config, logger } = deps;
	const endpoint = await store.webhookEndpoints.get(delivery.tenantId, delivery.endpointId);
	if (!endpoint) return null;
	if (!endpoint.active && mode === "scheduled") {
		// Deactivated after the claim: the delivery waits, paused, for reactivation.
		await store.webhookDeliveries.release(delivery.tenantId, delivery.id, lockedBy, null);
		return null;
	}
	const sentAt = now();
	const headers = webhookHeaders({
		deliveryId: delivery.id,
		kind: delivery.eventKind,
		body: delivery.body,
		secret: openWebhookSecret(secretKey, endpoint),
		at: sentAt,
	});
	const result = await sender.send(endpoint.url, headers, delivery.body);
	const succeeded = result.error === null;
	const finishedAt = now();
	const number = delivery.attempts + 1;
	const delays = config.webhookRetryDelays;
	const retry = mode === "scheduled" && !succeeded && number < delays.length;
	const status: WebhookDeliveryStatus = succeeded ? "succeeded" : retry ? "pending" : "failed";
	const attempt: WebhookAttemptRecord = {
		deliveryId: delivery.id,
		tenantId: delivery.tenantId,
		endpointId: endpoint.id,
		attempt: number,
		succeeded,
		responseStatus: result.responseStatus,
		responseTimeMs: result.responseTimeMs,
		responseBody: result.responseBody,
		error: result.error,
		attemptedAt: sentAt,
	};
	const recorded = await store.transaction(async (tx) => {
		const held = await tx.webhookDeliveries.finishAttempt(delivery.tenantId, delivery.id, lockedBy, {
			attempt,
			status,
			nextAttemptAt: retry ? addSeconds(finishedAt, delays[number]!) : null,
			updatedAt: finishedAt,
		});
		if (!held) return false;
		const updated = await tx.webhookEndpoints.recordAttempt(delivery.tenantId, endpoint.id, {
			succeeded,
			responseTimeMs: result.responseStatus === null ? null : result.responseTimeMs,
			at: sentAt,
		});
		if (updated && !succeeded && shouldDeactivate(updated, sentAt)) {
			await tx.webhookEndpoints.update(delivery.tenantId, endpoint.id, {
				active: false,
				disabledReason: deactivationReason(updated, result.error),
				updatedAt: finishedAt,
			});
			logger.warn({ endpointId: endpoint.id, tenantId: endpoint.tenantId }, "webhook endpoint deactivated");
		}
		// Deactivated now, or by its owner during the attempt: what is left of it waits.
		if (updated && (!updated.active || shouldDeactivate(updated, sentAt))) {
			await tx.webhookDeliveries.pause(delivery.tenantId, endpoint.id, finishedAt);
		}
		return true;
	});
	if (!recorded) {
		// Only a lease that ran out (a process paused past it) gets here: the attempt was
		// sent, and another holder may send it again; at-least-once (spec, Delivery rules 1).
		logger.warn({ deliveryId: delivery.id }, "webhook delivery lease lost during an attempt");
	} else if (mode === "scheduled") {
		// Lag: from the delivery's creation (the event) to the end of this attempt.
		deps.telemetry.webhookDelivery(
			succeeded ? "succeeded" : retry ? "retry" : "failed",
			(finishedAt.getTime() - delivery.createdAt.getTime()) / 1000,
		);
	}
	return { ...result, status, attempt: number };
}
