import { toJsonSchema } from "@valibot/to-json-schema";
import type { GenerateSpecOptions } from "hono-openapi";
import * as v from "valibot";
import { EVENT_KINDS } from "../service/webhooks/event-kinds.ts";

const HEADERS = [
	["x-signature", "hex HMAC-SHA256 of the raw body, keyed with the endpoint secret; answer a mismatch with 401"],
	["x-webhook-id", "the delivery id (`whd_…`), the same on every attempt: de-duplicate by it"],
	["x-webhook-timestamp", "Unix seconds of this attempt"],
	[
		"x-webhook-signature",
		"`v1=` + hex HMAC-SHA256 of `<x-webhook-id>.<x-webhook-timestamp>.<raw body>`: refuse stale timestamps to stop replays",
	],
	["x-webhook-event", "the event kind, as in the body's `event`"],
] as const;

const DELIVERY =
	"Sent as a POST with a JSON body to every active endpoint subscribed to the kind (`kind`, `<category>.*` or `*`); account.*, tenant.* and billing.* go to the endpoints of the account's first tenant that have `account_events: true` (subscribed by a credential reaching the whole account). Any 2xx within 30 seconds is success; anything else, a timeout or a connection or certificate failure is retried after AS2_WEBHOOK_RETRY_DELAYS (default 0 s, 15 s, 15 min, 1 h, 6 h, 24 h). At-least-once: de-duplicate by x-webhook-id.";

/**
 * The OpenAPI 3.1 `webhooks` section: one operation per event kind of the catalog, its body
 * the envelope `{event, data, timestamp, api_version}` with the kind's data schema.
 */
export function webhookDocs(): Webhooks {
	// A cast, not a conversion: JSON Schema (what valibot emits) is OpenAPI 3.1's schema language.
	return Object.fromEntries(
		Object.entries(EVENT_KINDS).map(([kind, spec]) => {
			const envelope = v.object({
				event: v.literal(kind),
				data: spec.data,
				timestamp: v.pipe(v.string(), v.description("when the event occurred, ISO 8601 UTC")),
				api_version: v.literal("v1"),
			});
			const { $schema: _, ...schema } = toJsonSchema(envelope, { errorMode: "ignore" });
			const notEmitted = "notEmitted" in spec ? ` Not emitted: ${spec.notEmitted}.` : "";
			return [
				kind,
				{
					post: {
						operationId: `event_${kind.replace(/\./g, "_")}`,
						tags: ["Webhook events"],
						summary: kind,
						description: `Trigger: ${spec.trigger}.${notEmitted} ${DELIVERY}`,
						parameters: HEADERS.map(([name, description]) => ({
							in: "header" as const,
							name,
							required: true,
							description,
							schema: { type: "string" as const },
						})),
						requestBody: { required: true, content: { "application/json": { schema } } },
						responses: {
							"2XX": { description: "received: the delivery succeeded" },
							default: { description: "a failed attempt, retried on the schedule above" },
						},
					},
				},
			];
		}),
	) as Webhooks;
}

type Webhooks = NonNullable<GenerateSpecOptions["documentation"]["webhooks"]>;
