import type { As2Store, EventRecord } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { eventEnvelope } from "../events.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { addSeconds } from "../time.ts";
import { firstTenantId, isAccountLevelKind, receivesEvent } from "./account-events.ts";

/**
 * The fan-out job of one outbox event (enqueued by `recordEvent` in the event's own
 * transaction): creates one delivery per active endpoint that receives the event's kind
 * (account-level kinds: only endpoints flagged for them, account-events.ts), matching at
 * fan-out time, all in one transaction. The job is leased and retried like any
 * other; if it runs twice (its worker died after committing), the store's one delivery per
 * event and endpoint keeps the second run from creating any.
 */
export function fanOutHandler(deps: ServiceDeps, onDeliveries: () => void): JobHandler {
	const { store, now, config } = deps;
	return async (job) => {
		const event = await store.events.get(String(job.payload.eventId));
		if (!event) return;
		const tenantId = await recipientTenant(store, event);
		if (!tenantId) return;
		const endpoints = (await store.webhookEndpoints.listActive(tenantId)).filter((e) => receivesEvent(e, event.kind));
		if (endpoints.length === 0) return;
		const body = JSON.stringify(eventEnvelope(event.kind, event.data, event.createdAt));
		const at = now();
		const created = await store.transaction(async (tx) => {
			let count = 0;
			for (const endpoint of endpoints) {
				const fresh = await tx.webhookDeliveries.create({
					id: await tx.ids.next("whd_"),
					accountId: event.accountId,
					tenantId,
					endpointId: endpoint.id,
					eventId: event.id,
					eventKind: event.kind,
					orderingKey: orderingKeyOf(event),
					body,
					status: "pending",
					attempts: 0,
					nextAttemptAt: addSeconds(at, config.webhookRetryDelays[0] ?? 0),
					lastAttemptAt: null,
					lastResponseStatus: null,
					lastError: null,
					lockedBy: null,
					lockedUntil: null,
					createdAt: at,
					updatedAt: at,
				});
				if (fresh) count++;
			}
			return count;
		});
		if (created > 0) onDeliveries();
	};
}

/**
 * The events of one message reach an endpoint in the order they happened (issue #18): its id
 * orders them. Other events have no order among themselves.
 */
function orderingKeyOf(event: EventRecord): string | null {
	return event.kind.startsWith("message.") && typeof event.data.id === "string" ? event.data.id : null;
}

/**
 * Whose endpoints receive an event: account-level kinds (account.*, tenant.*, billing.*) go
 * to the account's first tenant (decisions.md, Clarifications), the rest to their tenant.
 */
async function recipientTenant(store: As2Store, event: EventRecord): Promise<string | null> {
	if (event.tenantId && !isAccountLevelKind(event.kind)) return event.tenantId;
	return firstTenantId(store, event.accountId);
}
