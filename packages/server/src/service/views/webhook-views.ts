import type {
	WebhookAttemptRecord,
	WebhookDeliveryRecord,
	WebhookEndpointRecord,
	WebhookEndpointStats,
} from "@as2kit/core/store";
import * as v from "valibot";
import { formatInstant, formatOptionalInstant } from "./instant.ts";
import { idSchema, instantSchema, nullableInstantSchema } from "./schema-types.ts";

export const webhookEndpointSchema = v.object({
	id: idSchema("wh_"),
	url: v.string(),
	events: v.pipe(v.array(v.string()), v.description("event kinds, `<category>.*` or `*`")),
	active: v.boolean(),
	account_events: v.pipe(
		v.boolean(),
		v.description(
			"whether it receives the account-level events (`account.*`, `tenant.*`, `billing.*`) its `events` cover: true when a credential reaching the whole account (an owner's or admin's session, or an account key not restricted to some tenants) set its events and it is in the account's first tenant, where those events go",
		),
	),
	failing_since: v.pipe(
		nullableInstantSchema,
		v.description("the first failed attempt since the last successful one; null while deliveries succeed"),
	),
	disabled_reason: v.pipe(
		v.nullable(v.string()),
		v.description("set when as2kit deactivated the endpoint after 3 days of continuous failure"),
	),
	created_at: instantSchema,
	updated_at: instantSchema,
});

/** An endpoint without its secret (lists, GET, PATCH). */
export function webhookEndpointView(endpoint: WebhookEndpointRecord): v.InferOutput<typeof webhookEndpointSchema> {
	return {
		id: endpoint.id,
		url: endpoint.url,
		events: endpoint.events,
		active: endpoint.active,
		account_events: endpoint.accountEvents,
		failing_since: formatOptionalInstant(endpoint.failingSince),
		disabled_reason: endpoint.disabledReason,
		created_at: formatInstant(endpoint.createdAt),
		updated_at: formatInstant(endpoint.updatedAt),
	};
}

export const createdWebhookEndpointSchema = v.object({
	...webhookEndpointSchema.entries,
	secret: v.pipe(v.string(), v.description("the signing secret: shown in this response only")),
});

/** The create response: the one time the secret is shown. */
export function createdWebhookEndpointView(
	endpoint: WebhookEndpointRecord,
	secret: string,
): v.InferOutput<typeof createdWebhookEndpointSchema> {
	return { ...webhookEndpointView(endpoint), secret };
}

export const webhookAttemptSchema = v.object({
	attempt: v.number(),
	status: v.picklist(["succeeded", "failed"]),
	response_status: v.nullable(v.number()),
	response_time_ms: v.nullable(v.number()),
	response_body: v.pipe(v.nullable(v.string()), v.description("the first 1024 characters of the response body")),
	error: v.nullable(v.string()),
	attempted_at: instantSchema,
});

function attemptView(attempt: WebhookAttemptRecord): v.InferOutput<typeof webhookAttemptSchema> {
	return {
		attempt: attempt.attempt,
		status: attempt.succeeded ? "succeeded" : "failed",
		response_status: attempt.responseStatus,
		response_time_ms: attempt.responseTimeMs,
		response_body: attempt.responseBody,
		error: attempt.error,
		attempted_at: formatInstant(attempt.attemptedAt),
	};
}

export const webhookDeliverySchema = v.object({
	id: v.pipe(idSchema("whd_"), v.description("sent as x-webhook-id, the same on every attempt")),
	endpoint_id: idSchema("wh_"),
	event_id: v.nullable(idSchema("evt_")),
	event: v.string(),
	status: v.picklist(["pending", "succeeded", "failed"]),
	attempts: v.number(),
	next_attempt_at: v.pipe(
		nullableInstantSchema,
		v.description("when a pending delivery is due; null once finished, or while its endpoint is inactive (paused)"),
	),
	last_attempt_at: nullableInstantSchema,
	last_response_status: v.nullable(v.number()),
	last_error: v.nullable(v.string()),
	payload: v.pipe(v.record(v.string(), v.unknown()), v.description("the request body sent: the event envelope")),
	attempt_log: v.array(webhookAttemptSchema),
	created_at: instantSchema,
	updated_at: instantSchema,
});

export function webhookDeliveryView(
	delivery: WebhookDeliveryRecord,
	attempts: readonly WebhookAttemptRecord[],
): v.InferOutput<typeof webhookDeliverySchema> {
	return {
		id: delivery.id,
		endpoint_id: delivery.endpointId,
		event_id: delivery.eventId,
		event: delivery.eventKind,
		status: delivery.status,
		attempts: delivery.attempts,
		next_attempt_at: delivery.status === "pending" ? formatOptionalInstant(delivery.nextAttemptAt) : null,
		last_attempt_at: formatOptionalInstant(delivery.lastAttemptAt),
		last_response_status: delivery.lastResponseStatus,
		last_error: delivery.lastError,
		payload: JSON.parse(delivery.body) as Record<string, unknown>,
		attempt_log: attempts.filter((a) => a.deliveryId === delivery.id).map(attemptView),
		created_at: formatInstant(delivery.createdAt),
		updated_at: formatInstant(delivery.updatedAt),
	};
}

export const webhookStatsSchema = v.object({
	endpoint_id: idSchema("wh_"),
	url: v.string(),
	total_deliveries: v.pipe(v.number(), v.description("delivery attempts, retries included")),
	successful_deliveries: v.number(),
	failed_deliveries: v.number(),
	success_rate: v.pipe(v.number(), v.description("percent of attempts that got a 2xx; 0 before any attempt")),
	avg_response_time_ms: v.pipe(
		v.number(),
		v.description("mean time to the response status over attempts that got one; 0 before any"),
	),
	last_delivery_at: nullableInstantSchema,
});

export function webhookStatsView(stats: WebhookEndpointStats): v.InferOutput<typeof webhookStatsSchema> {
	return {
		endpoint_id: stats.endpointId,
		url: stats.url,
		total_deliveries: stats.attempts,
		successful_deliveries: stats.succeeded,
		failed_deliveries: stats.failed,
		success_rate: stats.attempts === 0 ? 0 : Math.round((stats.succeeded / stats.attempts) * 10_000) / 100,
		avg_response_time_ms: stats.responses === 0 ? 0 : Math.round(stats.responseTimeTotalMs / stats.responses),
		last_delivery_at: formatOptionalInstant(stats.lastAttemptAt),
	};
}

export const webhookTestResultSchema = v.object({
	delivery_id: idSchema("whd_"),
	event: v.literal("webhook.test"),
	status: v.picklist(["succeeded", "failed"]),
	response_status: v.nullable(v.number()),
	response_time_ms: v.number(),
	error: v.nullable(v.string()),
});
