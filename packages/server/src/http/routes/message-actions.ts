import { Hono } from "hono";
import { messageSchema, messageView } from "../../service/views/message-views.ts";
import type { AppEnv } from "../context.ts";
import { idempotent } from "../middleware/idempotent.ts";
import { doc, messageEnvelope } from "../openapi.ts";

const TAG = ["Messages"];
const errors = {
	404: "no such message for this tenant (NOT_FOUND), or for resend its payload is no longer stored",
	409: "the message's status does not allow it, or a worker is sending it now (INVALID_MESSAGE_STATE)",
};

/** `POST /v1/messages/{id}/retry`, `/cancel` and `/resend` (issue #18, Act on a message; message-actions.ts). */
export function messageActionRoutes() {
	return new Hono<AppEnv>()
		.post(
			"/:message_id/retry",
			doc({
				tags: TAG,
				access: { permission: "messages:write", reach: "tenant" },
				summary: "Attempt an outbound message again now, with the same AS2 Message-ID (messages:write)",
				description:
					"A `failed` message is queued again (its error, hint and MDN data cleared; `attempts` keeps counting) and the partner receives the same Message-ID, so its duplicate detection keeps it from processing the message twice (RFC 4130 §5.3.3). A message waiting for its next attempt (`next_attempt_at`) or its `scheduled_at` is attempted now. 409 INVALID_MESSAGE_STATE for an inbound message, one sent or delivered, or one a worker is sending at this moment. Emits message.queued for a failed message.",
				idempotent: true,
				responses: { 200: { description: "queued again, or due now", schema: messageEnvelope(messageSchema) } },
				errors,
			}),
			idempotent(),
			async (c) => {
				const message = await c.get("service").messages.actions.retry(c.get("principal"), c.req.param("message_id"));
				return c.json({ message: "Message will be attempted now", data: messageView(message) });
			},
		)
		.post(
			"/:message_id/cancel",
			doc({
				tags: TAG,
				access: { permission: "messages:write", reach: "tenant" },
				summary: "Stop an outbound message that was not sent yet (messages:write)",
				description:
					"A `queued` message, or one waiting for its next attempt, ends `failed` with `error_code: CANCELLED` and is never sent. 409 INVALID_MESSAGE_STATE once it was sent (or settled), for an inbound message, or while a worker is sending it: a transmission under way is not interrupted. Emits message.failed.",
				idempotent: true,
				responses: { 200: { description: "cancelled", schema: messageEnvelope(messageSchema) } },
				errors,
			}),
			idempotent(),
			async (c) => {
				const message = await c.get("service").messages.actions.cancel(c.get("principal"), c.req.param("message_id"));
				return c.json({ message: "Message cancelled", data: messageView(message) });
			},
		)
		.post(
			"/:message_id/resend",
			doc({
				tags: TAG,
				access: { permission: "messages:write", reach: "tenant" },
				summary: "Send an outbound message's payload again as a new message (messages:write)",
				description:
					"A new message with a new AS2 Message-ID, the same payload (copied), partner, content type, subject, file name, headers, priority and protections, for a partner that lost the first one. The two are linked: `resent_from` on the new one, `resent_as` on the original. Counts against the plan like any message (402 MESSAGE_LIMIT_EXCEEDED). 409 INVALID_MESSAGE_STATE while the original is still queued or being sent, or for an inbound message. Emits message.queued.",
				idempotent: true,
				responses: { 202: { description: "the new message, queued", schema: messageEnvelope(messageSchema) } },
				errors,
			}),
			idempotent(),
			async (c) => {
				const message = await c.get("service").messages.actions.resend(c.get("principal"), c.req.param("message_id"));
				return c.json({ message: "Message queued", data: messageView(message) }, 202);
			},
		);
}
