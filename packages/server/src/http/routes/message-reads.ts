import type { EventRecord, MessageListFilter } from "@as2kit/core/store";
import { Hono } from "hono";
import * as v from "valibot";
import { MESSAGE_COUNT_LIMIT } from "../../service/messages/message-reads.ts";
import { fieldError } from "../../service/validation-error.ts";
import { formatInstant } from "../../service/views/instant.ts";
import {
	messageDetailSchema,
	messageDetailView,
	messageSchema,
	messageView,
} from "../../service/views/message-views.ts";
import { attachmentDisposition, defaultPayloadName, payloadContentType } from "../content-disposition.ts";
import type { AppEnv } from "../context.ts";
import { dataEnvelope, doc } from "../openapi.ts";
import { listBody, pageQueryEntries, paginationSchema, toPageRequest } from "../pagination.ts";
import { query } from "../query.ts";
import { dateTimeParam } from "../schemas/date-time.ts";
import { booleanParam, searchParam } from "../schemas/query-values.ts";

const TAG = ["Messages"];

const timelineEntrySchema = v.object({
	at: v.pipe(v.string(), v.description("when it happened")),
	event: v.pipe(v.string(), v.description("the event kind, e.g. message.sent")),
	event_id: v.string(),
	status: v.nullable(v.string()),
	attempt: v.pipe(
		v.nullable(v.number()),
		v.description("the transmission attempt it belongs to; null before the first"),
	),
	data: v.pipe(v.record(v.string(), v.unknown()), v.description("the event's data, as webhooks receive it")),
});

function timelineEntry(event: EventRecord) {
	const attempts = typeof event.data.attempts === "number" ? event.data.attempts : 0;
	return {
		at: formatInstant(event.createdAt),
		event: event.kind,
		event_id: event.id,
		// The status the event moved the message to: its kind says it (message.sent → sent).
		status: event.kind.startsWith("message.") ? event.kind.slice("message.".length) : null,
		attempt: attempts > 0 && event.kind !== "message.queued" ? attempts : null,
		data: event.data,
	};
}
const notFound = { 404: "no such message for this tenant, or its payload is not stored (NOT_FOUND)" };

const listQuery = v.object({
	...pageQueryEntries,
	partner_id: v.optional(v.pipe(v.string(), v.regex(/^prt_(master_)?\d+$/, "must be a partner id (prt_…)"))),
	status: v.optional(v.picklist(["queued", "processing", "sent", "delivered", "failed", "received"])),
	direction: v.optional(v.picklist(["inbound", "outbound"])),
	environment: v.optional(v.picklist(["test", "live"])),
	from_date: v.optional(
		v.pipe(
			dateTimeParam,
			v.description("only messages created after this ISO 8601 date-time (with zone) or date (midnight UTC)"),
		),
	),
	to_date: v.optional(
		v.pipe(
			dateTimeParam,
			v.description("only messages created before this ISO 8601 date-time (with zone) or date (midnight UTC)"),
		),
	),
	search: v.optional(
		v.pipe(searchParam, v.description("case-insensitive substring of the subject or the AS2 Message-ID")),
	),
	content_type: v.optional(
		v.pipe(
			v.string(),
			v.regex(/^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/, "must be a MIME type such as application/edi-x12"),
			v.maxLength(255, "must have at most 255 characters"),
			v.description("the MIME type the message was sent or received with, exactly"),
		),
	),
	has_errors: v.optional(
		v.pipe(booleanParam, v.description("true: messages that met a transmission error (error_code set)")),
	),
	mdn_status: v.optional(v.picklist(["none", "pending", "received", "failed", "timeout"])),
	encrypted: v.optional(booleanParam),
	signed: v.optional(booleanParam),
});

const messagePaginationSchema = v.object({
	...paginationSchema.entries,
	total: v.pipe(
		v.number(),
		v.description(
			`matching messages; counted up to ${MESSAGE_COUNT_LIMIT.toLocaleString("en")} past this page's offset, beyond that a lower bound (see total_exact)`,
		),
	),
	total_exact: v.pipe(
		v.boolean(),
		v.description(
			"false when more messages match than were counted: total and last_page are then lower bounds that grow as you page on, so a client paging while current_page < last_page still reaches the end",
		),
	),
});

const booleanHeader = (description: string) => ({
	description,
	schema: { type: "string", enum: ["true", "false"] },
});

/** `GET /v1/messages`, `GET /v1/messages/{message_id}` and its `/payload` (interface spec, Messages). */
export function messageReadRoutes() {
	return new Hono<AppEnv>()
		.get(
			"/",
			doc({
				tags: TAG,
				access: { permission: "messages:read", reach: "tenant" },
				summary: "List the tenant's messages, newest first (messages:read)",
				description:
					"Test and live messages alike unless `environment` says otherwise. Every filter narrows the list; an invalid value is 422 naming the parameter. `from_date` and `to_date` bound `created_at` exclusively; a date without a time means midnight UTC.",
				responses: {
					200: {
						description: "a page of messages without mdn_data",
						schema: v.object({ data: v.array(messageSchema), pagination: messagePaginationSchema }),
					},
				},
			}),
			query(listQuery),
			async (c) => {
				const q = c.req.valid("query");
				if (q.from_date && q.to_date && q.to_date <= q.from_date) {
					throw fieldError("to_date", "must be later than from_date");
				}
				const page = await c.get("service").messageReads.list(c.get("principal"), toFilter(q), toPageRequest(q));
				const body = listBody(page, q, messageView);
				return c.json({ ...body, pagination: { ...body.pagination, total_exact: page.totalExact !== false } });
			},
		)
		.get(
			"/:message_id",
			doc({
				tags: TAG,
				access: { permission: "messages:read", reach: "tenant" },
				summary: "One message with its MDN data (messages:read)",
				responses: { 200: { description: "the message", schema: dataEnvelope(messageDetailSchema) } },
				errors: notFound,
			}),
			async (c) => {
				const message = await c.get("service").messageReads.get(c.get("principal"), c.req.param("message_id"));
				return c.json({ data: messageDetailView(message) });
			},
		)
		.get(
			"/:message_id/timeline",
			doc({
				tags: TAG,
				access: { permission: "messages:read", reach: "tenant" },
				summary: "Every event and state change of a message, in order (messages:read)",
				description:
					"The message's events as they were recorded, oldest first — queued, sent, delivered, failed, received, and queued again after a retry — each with the status it moved to, the attempt it belongs to (`attempt`, null before the first), and the event's data as webhooks receive it (errors, their hint, the MDN).",
				responses: { 200: { description: "the timeline", schema: dataEnvelope(v.array(timelineEntrySchema)) } },
				errors: notFound,
			}),
			async (c) => {
				const events = await c.get("service").messageReads.timeline(c.get("principal"), c.req.param("message_id"));
				return c.json({ data: events.map(timelineEntry) });
			},
		)
		.get(
			"/:message_id/payload",
			doc({
				tags: TAG,
				access: { permission: "messages:read", reach: "tenant" },
				summary: "Download a message's payload in its original content type (messages:read)",
				description:
					"Streams the stored payload: for outbound messages as submitted, for inbound ones as unpacked (decrypted, verified, decompressed). The X-Payload-* headers tell which protections the message carried on the wire. Any Accept header is fine here: the answer has the payload's own type (errors are JSON).",
				responses: {
					200: {
						description: "the payload bytes, with the message's content_type as Content-Type",
						content: {
							"*/*": { schema: { type: "string", format: "binary", contentMediaType: "application/octet-stream" } },
						},
						headers: {
							"Content-Length": { description: "payload size in bytes", schema: { type: "integer" } },
							"Content-Disposition": {
								description:
									"attachment; filename=\"…\" with the original file name (ASCII stand-in), plus filename*=UTF-8''… (RFC 6266, RFC 8187) when the name is not plain ASCII; `<message id>.<ext>` when the message had none",
								schema: { type: "string" },
							},
							"X-Payload-Compressed": booleanHeader("whether the message was compressed on the wire"),
							"X-Payload-Encrypted": booleanHeader("whether the message was encrypted on the wire"),
						},
					},
				},
				errors: {
					...notFound,
					503: "the payload store (S3 with BLOB_URL) refused or did not answer, or the database cannot serve now (PostgreSQL restarting or failing over); try again (SERVICE_UNAVAILABLE)",
				},
			}),
			async (c) => {
				const download = await c.get("service").messageReads.payload(c.get("principal"), c.req.param("message_id"));
				const { message } = download;
				const headers = {
					"Content-Type": payloadContentType(message.contentType),
					"Content-Length": String(download.bytes),
					"Content-Disposition": attachmentDisposition(
						message.filename ?? defaultPayloadName(message.id, message.contentType),
					),
					"X-Payload-Compressed": String(message.compressed),
					"X-Payload-Encrypted": String(message.encrypted),
					// Partners choose the bytes and the type: never let a browser run them on our origin.
					"X-Content-Type-Options": "nosniff",
					"Content-Security-Policy": "default-src 'none'; sandbox",
				};
				// HEAD answers the headers without opening the blob.
				if (c.req.method === "HEAD") return c.body(null, 200, headers);
				return c.body(await download.open(), 200, headers);
			},
		);
}

function toFilter(q: v.InferOutput<typeof listQuery>): MessageListFilter {
	const filter: MessageListFilter = {};
	if (q.partner_id !== undefined) filter.partnerId = q.partner_id;
	if (q.status !== undefined) filter.status = q.status;
	if (q.direction !== undefined) filter.direction = q.direction;
	if (q.environment !== undefined) filter.environment = q.environment;
	if (q.from_date !== undefined) filter.fromDate = q.from_date;
	if (q.to_date !== undefined) filter.toDate = q.to_date;
	if (q.search !== undefined) filter.search = q.search;
	if (q.content_type !== undefined) filter.contentType = q.content_type;
	if (q.has_errors !== undefined) filter.hasErrors = q.has_errors;
	if (q.mdn_status !== undefined) filter.mdnStatus = q.mdn_status;
	if (q.encrypted !== undefined) filter.encrypted = q.encrypted;
	if (q.signed !== undefined) filter.signed = q.signed;
	return filter;
}
