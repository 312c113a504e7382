import { type Context, Hono } from "hono";
import * as v from "valibot";
import { formatInstant } from "../../service/views/instant.ts";
import {
	createdWebhookEndpointSchema,
	createdWebhookEndpointView,
	webhookDeliverySchema,
	webhookDeliveryView,
	webhookEndpointSchema,
	webhookEndpointView,
	webhookStatsSchema,
	webhookStatsView,
	webhookTestResultSchema,
} from "../../service/views/webhook-views.ts";
import { body } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { idempotent } from "../middleware/idempotent.ts";
import { dataEnvelope, doc, messageEnvelope } from "../openapi.ts";
import { listBody, listEnvelope, pageQueryEntries, toPageRequest } from "../pagination.ts";
import { query } from "../query.ts";

const url = v.pipe(
	v.string(),
	v.trim(),
	v.minLength(1, "is required"),
	v.description(
		"https:// (http:// too with AS2_ALLOW_HTTP=1); not a loopback, private or link-local address unless AS2_ALLOW_PRIVATE_TARGETS=1 (checked again after DNS resolution at every delivery)",
	),
);
const events = v.pipe(
	v.array(v.string()),
	v.minLength(1, "must list at least one event kind"),
	v.maxLength(50, "must list at most 50 event kinds"),
	v.description(
		"event kinds (`message.sent`), categories (`message.*`, `billing.*`) or `*`. Account-level kinds (`account.*`, `tenant.*`, `billing.*`) tell about every tenant: naming one needs a credential reaching the whole account (an owner's or admin's session, or an account key not restricted to some tenants) that may read what they tell (`accounts:read`, `tenants:read`, `billing:read`; 403 `insufficient_scope` otherwise), and only such a credential's `*` or `<category>.*` covers them (see `account_events`)",
	),
);
const secret = v.pipe(
	v.string(),
	v.minLength(16, "must have at least 16 characters"),
	v.maxLength(255, "must have at most 255 characters"),
	v.description("HMAC key of x-signature; generated (whsec_…) when omitted"),
);
const createSchema = v.object({ url, events, secret: v.optional(secret) });
const patchSchema = v.object({
	url: v.optional(url),
	events: v.optional(events),
	active: v.optional(v.boolean()),
	secret: v.optional(secret),
});
const deliveriesQuery = v.object({
	...pageQueryEntries,
	status: v.optional(v.picklist(["pending", "succeeded", "failed"])),
});
const notFound = { 404: "no such webhook endpoint in this tenant (NOT_FOUND)" };
const ACCOUNT_EVENTS_RULE =
	"Account-level events (`account.*`, `tenant.*`, `billing.*`) go to the endpoints of the account's first tenant whose events a credential reaching the whole account (an owner's or admin's session, or an account key not restricted to some tenants) set: `account_events: true`. Naming an account-level kind in `events` with another credential is 403 `insufficient_scope`; its `*` or `<category>.*` is accepted and covers the other kinds only.";
const ACCOUNT_ENDPOINT_RULE =
	"An endpoint with `account_events: true` is changed or deleted only by a credential reaching the whole account (403 `insufficient_scope` for others, before the body is validated).";

/**
 * The authorization of what a create or update asks for, before its body is validated:
 * account-level subscriptions, and changes to an endpoint that receives the account's events.
 */
const authorizeSubscription = <E extends AppEnv>(c: Context<E>, raw: unknown) =>
	c.get("service").webhooks.authorizeWrite(c.get("principal"), {
		endpointId: c.req.param("webhook_id"),
		events: subscriptionsIn(raw),
	});

/** The event names a body asks for, as sent (a form's single `events` is a string). */
function subscriptionsIn(raw: unknown): string[] {
	const events =
		typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as { events?: unknown }).events : [];
	return (Array.isArray(events) ? events : [events]).filter((e): e is string => typeof e === "string");
}
const TAGS = ["Webhooks"];

/** `/v1/webhook-endpoints` (interface spec, Webhook endpoints; decisions.md for the shapes it leaves open). */
export function webhookEndpointRoutes() {
	return new Hono<AppEnv>()
		.post(
			"/",
			doc({
				tags: TAGS,
				access: { permission: "webhooks:write", reach: "tenant" },
				summary: "Create a webhook endpoint (webhooks:write)",
				description: [
					"Active on creation. The signing secret is returned in this response only. Malformed URLs, other schemes, and loopback, private or link-local hosts are 422 INVALID_ENDPOINT_URL.",
					ACCOUNT_EVENTS_RULE,
				].join(" "),
				body: createSchema,
				idempotent: true,
				responses: { 201: { description: "created", schema: messageEnvelope(createdWebhookEndpointSchema) } },
			}),
			idempotent(),
			body(createSchema, {
				authorize: authorizeSubscription,
				check: (c, input) => c.get("service").webhooks.checkInput(input),
			}),
			async (c) => {
				const { endpoint, secret: shown } = await c.get("service").webhooks.create(c.get("principal"), c.get("body"));
				return c.json({ message: "Webhook endpoint created", data: createdWebhookEndpointView(endpoint, shown) }, 201);
			},
		)
		.get(
			"/",
			doc({
				tags: TAGS,
				access: { permission: "webhooks:read", reach: "tenant" },
				summary: "List webhook endpoints, without their secrets (webhooks:read)",
				responses: {
					200: { description: "a page of endpoints, oldest first", schema: listEnvelope(webhookEndpointSchema) },
				},
			}),
			query(v.object(pageQueryEntries)),
			async (c) => {
				const request = c.req.valid("query");
				const page = await c.get("service").webhooks.list(c.get("principal"), toPageRequest(request));
				return c.json(listBody(page, request, webhookEndpointView));
			},
		)
		.get(
			"/:webhook_id",
			doc({
				tags: TAGS,
				access: { permission: "webhooks:read", reach: "tenant" },
				summary: "One webhook endpoint, without its secret (webhooks:read)",
				responses: { 200: { description: "the endpoint", schema: dataEnvelope(webhookEndpointSchema) } },
				errors: notFound,
			}),
			async (c) => {
				const endpoint = await c.get("service").webhooks.get(c.get("principal"), c.req.param("webhook_id"));
				return c.json({ data: webhookEndpointView(endpoint) });
			},
		)
		.patch(
			"/:webhook_id",
			doc({
				tags: TAGS,
				access: { permission: "webhooks:write", reach: "tenant" },
				summary: "Change an endpoint's url, events, active flag or secret (webhooks:write)",
				description: [
					"Only supplied fields change. `active: true` on an endpoint as2kit deactivated clears `disabled_reason` and `failing_since`; its pending deliveries resume. A new secret signs every later attempt, retries included.",
					"New `events` decide `account_events` anew, by the credential that sets them.",
					ACCOUNT_EVENTS_RULE,
					ACCOUNT_ENDPOINT_RULE,
				].join(" "),
				body: patchSchema,
				idempotent: true,
				responses: { 200: { description: "updated", schema: messageEnvelope(webhookEndpointSchema) } },
				errors: notFound,
			}),
			idempotent(),
			body(patchSchema, {
				authorize: authorizeSubscription,
				check: (c, input) => c.get("service").webhooks.checkInput(input),
			}),
			async (c) => {
				const endpoint = await c
					.get("service")
					.webhooks.update(c.get("principal"), c.req.param("webhook_id"), c.get("body"));
				return c.json({ message: "Webhook endpoint updated", data: webhookEndpointView(endpoint) });
			},
		)
		.delete(
			"/:webhook_id",
			doc({
				tags: TAGS,
				access: { permission: "webhooks:write", reach: "tenant" },
				summary: "Delete a webhook endpoint and its delivery log (webhooks:write)",
				description: ACCOUNT_ENDPOINT_RULE,
				responses: {
					200: {
						description: "deleted; nothing more is sent to it",
						schema: messageEnvelope(v.object({ id: v.string(), deleted_at: v.string() })),
					},
				},
				errors: notFound,
			}),
			async (c) => {
				const { id, deletedAt } = await c.get("service").webhooks.remove(c.get("principal"), c.req.param("webhook_id"));
				return c.json({ message: "Webhook endpoint deleted", data: { id, deleted_at: formatInstant(deletedAt) } });
			},
		)
		.post(
			"/:webhook_id/test",
			doc({
				tags: TAGS,
				access: { permission: "webhooks:write", reach: "tenant" },
				summary: "Send a webhook.test event to the endpoint now (webhooks:write)",
				description:
					"One real, signed delivery attempt made by this request (also to an inactive endpoint); the answer carries its result. It appears in the delivery log and stats and is not retried automatically.",
				responses: {
					200: { description: "the attempt was made; see status", schema: messageEnvelope(webhookTestResultSchema) },
				},
				errors: notFound,
			}),
			async (c) => {
				const { deliveryId, outcome } = await c
					.get("service")
					.webhooks.test(c.get("principal"), c.req.param("webhook_id"), c.get("log"));
				const succeeded = outcome.status === "succeeded";
				return c.json({
					message: succeeded ? "Test event delivered" : "Test event delivery failed",
					data: {
						delivery_id: deliveryId,
						event: "webhook.test" as const,
						status: succeeded ? ("succeeded" as const) : ("failed" as const),
						response_status: outcome.responseStatus,
						response_time_ms: outcome.responseTimeMs,
						error: outcome.error,
					},
				});
			},
		)
		.get(
			"/:webhook_id/deliveries",
			doc({
				tags: TAGS,
				access: { permission: "webhooks:read", reach: "tenant" },
				summary: "The endpoint's deliveries with their attempts (webhooks:read)",
				description:
					"Newest first; each delivery carries its attempt log (status, response status and time, error). Finished deliveries are kept 30 days. Deliveries of account-level events (`account.*`, `tenant.*`, `billing.*`) are listed only to a credential reaching the whole account.",
				responses: {
					200: { description: "a page of deliveries", schema: listEnvelope(webhookDeliverySchema) },
				},
				errors: notFound,
			}),
			query(deliveriesQuery),
			async (c) => {
				const request = c.req.valid("query");
				const page = await c
					.get("service")
					.webhooks.deliveries(c.get("principal"), c.req.param("webhook_id"), toPageRequest(request), {
						status: request.status,
					});
				return c.json(listBody(page, request, (d) => webhookDeliveryView(d, page.attempts)));
			},
		)
		.post(
			"/:webhook_id/deliveries/:delivery_id/retry",
			doc({
				tags: TAGS,
				access: { permission: "webhooks:write", reach: "tenant" },
				summary: "Send a delivery again now (webhooks:write)",
				description:
					"The delivery becomes due at once, whatever its status; if that attempt fails, the automatic retries left in its schedule follow. 422 while an attempt is in progress or the endpoint is inactive. A delivery of an account-level event answers 404 to a credential that does not reach the whole account.",
				responses: { 202: { description: "queued", schema: messageEnvelope(webhookDeliverySchema) } },
				errors: { 404: "no such endpoint or delivery in this tenant (NOT_FOUND)" },
			}),
			async (c) => {
				const { delivery, attempts } = await c
					.get("service")
					.webhooks.retry(c.get("principal"), c.req.param("webhook_id"), c.req.param("delivery_id"));
				return c.json({ message: "Delivery queued", data: webhookDeliveryView(delivery, attempts) }, 202);
			},
		);
}

/** `GET /v1/webhook-endpoints-stats` (interface spec, Webhook endpoints). */
export function webhookStatsRoutes() {
	return new Hono<AppEnv>().get(
		"/",
		doc({
			tags: TAGS,
			access: { permission: "webhooks:read", reach: "tenant" },
			summary: "Delivery statistics of each webhook endpoint (webhooks:read)",
			description: "Every attempt counts as a delivery, retries included.",
			responses: {
				200: { description: "one entry per endpoint", schema: v.object({ data: v.array(webhookStatsSchema) }) },
			},
		}),
		async (c) => {
			const stats = await c.get("service").webhooks.stats(c.get("principal"));
			return c.json({ data: stats.map(webhookStatsView) });
		},
	);
}
