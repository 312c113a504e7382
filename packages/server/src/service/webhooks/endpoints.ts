import { randomUUID } from "node:crypto";
import type {
	PageRequest,
	WebhookAttemptRecord,
	WebhookDeliveryRecord,
	WebhookDeliveryStatus,
	WebhookEndpointRecord,
	WebhookEndpointStats,
} from "@as2kit/core/store";
import type { Logger, ServiceDeps } from "../deps.ts";
import { eventEnvelope } from "../events.ts";
import { type Principal, reachesWholeAccount, requirePermission } from "../principal.ts";
import type { TargetPolicy } from "../transport/target-url.ts";
import { FieldChecks, fieldError, notFound } from "../validation-error.ts";
import {
	isAccountLevelKind,
	receivesAccountEvents,
	refuseAccountLevelSubscriptions,
	refuseChangingAccountEndpoint,
} from "./account-events.ts";
import { type AttemptContext, type AttemptOutcome, attemptDelivery } from "./attempt.ts";
import { generateWebhookSecret, sealWebhookSecret, webhookSecretKey } from "./endpoint-secret.ts";
import { checkEndpointUrl } from "./endpoint-url.ts";
import { ACCOUNT_LEVEL_CATEGORIES } from "./event-kinds.ts";
import { isEventPattern } from "./event-patterns.ts";
import { createWebhookSender } from "./http-sender.ts";

export interface WebhookEndpointInput {
	url: string;
	events: readonly string[];
	secret?: string | undefined;
}

export interface WebhookEndpointPatch {
	url?: string | undefined;
	events?: readonly string[] | undefined;
	active?: boolean | undefined;
	secret?: string | undefined;
}

export interface DeliveriesPage {
	items: WebhookDeliveryRecord[];
	total: number;
	attempts: WebhookAttemptRecord[];
}

/** `/v1/webhook-endpoints`: a tenant's endpoints, their deliveries and stats (webhooks:read / webhooks:write). */
export function createWebhookService(deps: ServiceDeps) {
	const { store, now, config } = deps;
	const secretKey = webhookSecretKey(config.masterKey);
	let context: AttemptContext | null = null;
	// The test endpoint sends from the API process; its sender is made on first use.
	const attemptContext = (): AttemptContext =>
		(context ??= {
			deps,
			secretKey,
			sender: createWebhookSender({
				timeoutMs: config.webhookTimeoutSeconds * 1000,
				allowPrivateTargets: config.allowPrivateTargets,
			}),
		});

	async function visibleEndpoint(principal: Principal, id: string): Promise<WebhookEndpointRecord> {
		return (await store.webhookEndpoints.get(principal.tenantId, id)) ?? Promise.reject(notFound("webhook endpoint"));
	}

	return {
		async create(
			principal: Principal,
			input: WebhookEndpointInput,
		): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
			requirePermission(principal, "webhooks:write");
			refuseAccountLevelSubscriptions(principal, input.events);
			const { url, events } = checkEndpointInput(input, config) as { url: string; events: string[] };
			const secret = input.secret ?? generateWebhookSecret();
			return store.transaction(async (tx) => {
				const at = now();
				const id = await tx.ids.next("wh_");
				const endpoint: WebhookEndpointRecord = {
					id,
					accountId: principal.accountId,
					tenantId: principal.tenantId,
					url,
					events,
					active: true,
					accountEvents: await receivesAccountEvents(tx, principal, principal.tenantId, events),
					secretSealed: sealWebhookSecret(secretKey, id, secret),
					failingSince: null,
					disabledReason: null,
					createdAt: at,
					updatedAt: at,
				};
				await tx.webhookEndpoints.create(endpoint);
				return { endpoint, secret };
			});
		},

		/**
		 * The authorization of a create or an update that depends on what it asks for, for the
		 * HTTP layer to run before it validates anything (README, Who may do what): account-level
		 * subscriptions, and changes to an endpoint that receives the account's events, need a
		 * credential reaching the whole account. Create, update and remove check again.
		 */
		async authorizeWrite(principal: Principal, request: { endpointId?: string; events?: readonly string[] }) {
			if (request.events) refuseAccountLevelSubscriptions(principal, request.events);
			if (request.endpointId === undefined || reachesWholeAccount(principal)) return;
			const endpoint = await store.webhookEndpoints.get(principal.tenantId, request.endpointId);
			if (endpoint) refuseChangingAccountEndpoint(principal, endpoint);
		},

		/**
		 * The checks of create and update on the fields given, all at once: the HTTP layer runs
		 * them on what passed its schema, so one 422 names every invalid field.
		 */
		checkInput(input: WebhookEndpointPatch): void {
			checkEndpointInput(input, config);
		},

		async list(principal: Principal, page: PageRequest) {
			requirePermission(principal, "webhooks:read");
			return store.webhookEndpoints.list(principal.tenantId, page);
		},

		async get(principal: Principal, id: string): Promise<WebhookEndpointRecord> {
			requirePermission(principal, "webhooks:read");
			return visibleEndpoint(principal, id);
		},

		/**
		 * Only supplied fields change. A new URL or a reactivation starts a fresh failure streak.
		 * Deactivating pauses the endpoint's pending deliveries; reactivating clears
		 * `disabled_reason` and makes them due at once. New events decide anew whether the
		 * endpoint receives account-level events: by who sets them (account-events.ts).
		 */
		async update(principal: Principal, id: string, input: WebhookEndpointPatch): Promise<WebhookEndpointRecord> {
			requirePermission(principal, "webhooks:write");
			refuseAccountLevelSubscriptions(principal, input.events ?? []);
			const { url, events } = checkEndpointInput(input, config);
			return store.transaction(async (tx) => {
				const existing = await tx.webhookEndpoints.get(principal.tenantId, id);
				if (!existing) throw notFound("webhook endpoint");
				refuseChangingAccountEndpoint(principal, existing);
				const at = now();
				const patch: Parameters<typeof tx.webhookEndpoints.update>[2] = { updatedAt: at };
				if (url !== undefined) {
					patch.url = url;
					if (url !== existing.url) patch.failingSince = null;
				}
				if (events !== undefined) {
					patch.events = events;
					patch.accountEvents = await receivesAccountEvents(tx, principal, principal.tenantId, events);
				}
				if (input.secret !== undefined) patch.secretSealed = sealWebhookSecret(secretKey, id, input.secret);
				if (input.active !== undefined) {
					patch.active = input.active;
					if (input.active && !existing.active) Object.assign(patch, { failingSince: null, disabledReason: null });
				}
				const updated = (await tx.webhookEndpoints.update(principal.tenantId, id, patch))!;
				if (existing.active && !updated.active) await tx.webhookDeliveries.pause(principal.tenantId, id, at);
				if (!existing.active && updated.active) await tx.webhookDeliveries.resume(principal.tenantId, id, at);
				return updated;
			});
		},

		/** Deletes the endpoint with its delivery log; nothing more is sent to it. */
		async remove(principal: Principal, id: string): Promise<{ id: string; deletedAt: Date }> {
			requirePermission(principal, "webhooks:write");
			refuseChangingAccountEndpoint(principal, await visibleEndpoint(principal, id));
			if (!(await store.webhookEndpoints.delete(principal.tenantId, id))) throw notFound("webhook endpoint");
			return { id, deletedAt: now() };
		},

		async stats(principal: Principal): Promise<WebhookEndpointStats[]> {
			requirePermission(principal, "webhooks:read");
			return store.webhookEndpoints.stats(principal.tenantId);
		},

		/**
		 * `POST /v1/webhook-endpoints/{id}/test`: one real, signed delivery of `webhook.test`
		 * made by this request (also to an inactive endpoint, to check it before activating),
		 * recorded in the delivery log and stats, never retried automatically.
		 */
		async test(
			principal: Principal,
			id: string,
			/** The request's logger (bound to its requestId), for what the attempt logs. */
			log?: Logger,
		): Promise<{ deliveryId: string; outcome: AttemptOutcome }> {
			requirePermission(principal, "webhooks:write");
			const endpoint = await visibleEndpoint(principal, id);
			const at = now();
			const lockedBy = `test-${randomUUID()}`;
			const data = {
				endpoint_id: endpoint.id,
				url: endpoint.url,
				message: "This is a test event from as2kit: your endpoint receives signed deliveries.",
			};
			// Created already held by this request, and never due, so no dispatcher takes it.
			const delivery: WebhookDeliveryRecord = {
				id: await store.ids.next("whd_"),
				accountId: endpoint.accountId,
				tenantId: endpoint.tenantId,
				endpointId: endpoint.id,
				eventId: null,
				eventKind: "webhook.test",
				orderingKey: null,
				body: JSON.stringify(eventEnvelope("webhook.test", data, at)),
				status: "pending",
				attempts: 0,
				nextAttemptAt: null,
				lastAttemptAt: null,
				lastResponseStatus: null,
				lastError: null,
				lockedBy,
				lockedUntil: new Date(at.getTime() + (config.webhookTimeoutSeconds + 30) * 1000),
				createdAt: at,
				updatedAt: at,
			};
			await store.webhookDeliveries.create(delivery);
			const context = attemptContext();
			const outcome = await attemptDelivery(
				log ? { ...context, deps: { ...context.deps, logger: log } } : context,
				delivery,
				lockedBy,
				"test",
			);
			if (!outcome) throw notFound("webhook endpoint");
			return { deliveryId: delivery.id, outcome };
		},

		async deliveries(
			principal: Principal,
			endpointId: string,
			page: PageRequest,
			filter: { status?: WebhookDeliveryStatus | undefined },
		): Promise<DeliveriesPage> {
			requirePermission(principal, "webhooks:read");
			await visibleEndpoint(principal, endpointId);
			const result = await store.webhookDeliveries.list(principal.tenantId, endpointId, page, {
				...(filter.status ? { status: filter.status } : {}),
				...(reachesWholeAccount(principal) ? {} : { exceptCategories: ACCOUNT_LEVEL_CATEGORIES }),
			});
			const attempts = await store.webhookDeliveries.listAttempts(
				principal.tenantId,
				result.items.map((d) => d.id),
			);
			return { ...result, attempts };
		},

		/**
		 * Makes a delivery due now. If that attempt fails, the automatic retries left in its
		 * schedule follow (none once the schedule is spent).
		 */
		async retry(
			principal: Principal,
			endpointId: string,
			deliveryId: string,
		): Promise<{ delivery: WebhookDeliveryRecord; attempts: WebhookAttemptRecord[] }> {
			requirePermission(principal, "webhooks:write");
			const endpoint = await visibleEndpoint(principal, endpointId);
			const existing = await store.webhookDeliveries.get(principal.tenantId, deliveryId);
			if (!existing || existing.endpointId !== endpoint.id || !mayReadDelivery(principal, existing)) {
				throw notFound("webhook delivery");
			}
			if (!endpoint.active) {
				throw fieldError("webhook_id", "is inactive: activate the endpoint (PATCH active: true) before retrying");
			}
			const delivery = await store.webhookDeliveries.requeue(principal.tenantId, deliveryId, now());
			if (!delivery) throw fieldError("delivery_id", "has an attempt in progress; retry once it has finished");
			return { delivery, attempts: await store.webhookDeliveries.listAttempts(principal.tenantId, [deliveryId]) };
		},
	};
}

/**
 * Deliveries of account-level events tell about every tenant: a credential of lesser reach
 * sees neither them in the log nor their payload through a retry (they answer as missing).
 */
function mayReadDelivery(principal: Principal, delivery: WebhookDeliveryRecord): boolean {
	return reachesWholeAccount(principal) || !isAccountLevelKind(delivery.eventKind);
}

/** The URL and the events, when given, checked together: one 422 names both when both are wrong. */
function checkEndpointInput(
	input: WebhookEndpointPatch,
	policy: TargetPolicy,
): { url: string | undefined; events: string[] | undefined } {
	const fields = new FieldChecks();
	const url = input.url === undefined ? undefined : fields.check(() => checkEndpointUrl(input.url!, policy));
	const events = input.events === undefined ? undefined : fields.check(() => checkEvents(input.events!));
	fields.throwIfAny();
	return { url, events };
}

/** Subscriptions: known kinds, `<category>.*` or `*`, without repeats. */
function checkEvents(events: readonly string[]): string[] {
	if (events.length === 0) throw fieldError("events", "must list at least one event kind");
	const unknown = events.filter((e) => !isEventPattern(e));
	if (unknown.length > 0) {
		throw fieldError("events", `lists unknown event kinds: ${unknown.join(", ")} (use a kind, <category>.* or *)`);
	}
	return [...new Set(events)];
}

export type WebhookService = ReturnType<typeof createWebhookService>;
