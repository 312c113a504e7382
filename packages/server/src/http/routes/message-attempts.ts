import { Hono } from "hono";
import * as v from "valibot";
import type { WireDownload, WireSide } from "../../service/messages/attempts-reads.ts";
import { attemptSchema, attemptView } from "../../service/messages/attempts-view.ts";
import { notFound } from "../../service/validation-error.ts";
import { attachmentDisposition } from "../content-disposition.ts";
import type { AppEnv } from "../context.ts";
import { doc } from "../openapi.ts";
import { query } from "../query.ts";

const TAG = ["Messages"];
const SIDES: readonly WireSide[] = ["request", "response", "mdn"];

const wireQuery = v.object({
	part: v.optional(
		v.pipe(
			v.picklist(["all", "headers", "body"]),
			v.description(
				"all (default): the head, an empty line and the body; headers: the head alone, the `--headers` file of `as2kit parse` / `verify-mdn`; body: the body alone, their `--body` file",
			),
		),
	),
});

const SIDE_TEXT: Record<WireSide, string> = {
	request: "the request we POSTed to the partner (outbound) or received (inbound): request line, header fields, body",
	response: "the partner's answer to the request: status line, header fields and body (a sync MDN, or an error page)",
	mdn: "outbound: the async MDN the partner POSTed for this attempt (RFC 4130 §7.4), its header fields and body; inbound: the async MDN we POSTed to the partner (§7.3), its request head and body, the last delivery of it",
};

/**
 * `GET /v1/messages/{id}/attempts` and the wire downloads of an attempt (issue #18, section 2;
 * attempts-reads.ts).
 */
export function messageAttemptRoutes() {
	const app = new Hono<AppEnv>().get(
		"/:message_id/attempts",
		doc({
			tags: TAG,
			access: { permission: "messages:read", reach: "tenant" },
			summary: "Every transmission attempt of a message, first first (messages:read)",
			description:
				"One entry per POST of an outbound message to its partner: when, where, the HTTP status, bytes, TLS version and the partner's certificate fingerprint, durations per phase, the outcome with its error code, and links to the exact bytes on the wire (`wire`). An attempt is listed once its outcome is recorded, together with the message's state change.",
			responses: { 200: { description: "the attempts by number", schema: v.object({ data: v.array(attemptSchema) }) } },
			errors: { 404: "no such message for this tenant (NOT_FOUND)" },
		}),
		async (c) => {
			const { message, attempts } = await c
				.get("service")
				.messageAttempts.list(c.get("principal"), c.req.param("message_id"));
			return c.json({ data: attempts.map((a) => attemptView(message.id, a)) });
		},
	);
	for (const side of SIDES) {
		app.get(
			`/:message_id/attempts/:number/${side}`,
			doc({
				tags: TAG,
				access: { permission: "messages:read", reach: "tenant" },
				summary: `Download ${side === "mdn" ? "the async MDN" : `the ${side}`} of an attempt as it was on the wire (messages:read)`,
				description: `${SIDE_TEXT[side]}, byte for byte as captured (a chunked body without its chunk framing; Authorization redacted), streamed from the blob store. \`as2kit parse\` and \`verify-mdn\` read the \`part=headers\` and \`part=body\` downloads directly (README, Wire captures). 404 when the attempt does not exist, or its ${side} was not captured or is past the plan's retention.`,
				responses: {
					200: {
						description: "the capture, as an attachment",
						content: {
							"message/http": { schema: { type: "string", format: "binary" } },
							"application/octet-stream": { schema: { type: "string", format: "binary" } },
						},
						headers: {
							"Content-Length": { description: "size in bytes", schema: { type: "integer" } },
							"Content-Disposition": { description: 'attachment; filename="…"', schema: { type: "string" } },
						},
					},
				},
				errors: { 404: "no such message, attempt or capture for this tenant (NOT_FOUND)" },
			}),
			query(wireQuery),
			async (c) => {
				const id = c.req.param("message_id");
				const number = c.req.param("number");
				// Not a number: no such attempt (404), as for a number that was never used.
				if (!/^[1-9]\d{0,8}$/.test(number)) throw notFound(`attempt ${number} of message ${id}`);
				const download = await c.get("service").messageAttempts.wire(c.get("principal"), id, Number(number), side);
				const part = c.req.valid("query").part ?? "all";
				const head = new TextEncoder().encode(download.head);
				const bytes =
					part === "headers"
						? head.byteLength
						: part === "body"
							? download.bodyBytes
							: head.byteLength + download.bodyBytes;
				const headers = {
					"Content-Type": contentType(side, part),
					"Content-Length": String(bytes),
					"Content-Disposition": attachmentDisposition(fileName(download, part)),
					// Partners choose these bytes: never let a browser run them on our origin.
					"X-Content-Type-Options": "nosniff",
					"Content-Security-Policy": "default-src 'none'; sandbox",
				};
				if (c.req.method === "HEAD") return c.body(null, 200, headers);
				if (part === "headers") return c.body(head, 200, headers);
				const body = await download.openBody();
				return c.body(part === "body" ? body : prefixed(head, body), 200, headers);
			},
		);
	}
	return app;
}

function contentType(side: WireSide, part: "all" | "headers" | "body"): string {
	if (part === "headers") return "text/plain; charset=utf-8";
	if (part === "body") return "application/octet-stream";
	// RFC 9112 §10.1: an HTTP message as data; an async MDN's capture starts at its header fields.
	return side === "mdn" ? "message/rfc822" : "message/http";
}

function fileName(download: WireDownload, part: "all" | "headers" | "body"): string {
	const base = `${download.message.id}-attempt-${download.attempt.number}-${download.side}`;
	return part === "headers" ? `${base}-headers.txt` : part === "body" ? `${base}-body.bin` : `${base}.eml`;
}

/** The head, then the body's stream as it is read. */
function prefixed(head: Uint8Array, body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
	const reader = body.getReader();
	let started = false;
	return new ReadableStream<Uint8Array>({
		async pull(controller) {
			if (!started) {
				started = true;
				controller.enqueue(head);
				return;
			}
			const { done, value } = await reader.read();
			if (done) controller.close();
			else controller.enqueue(value);
		},
		cancel: (reason) => reader.cancel(reason),
	});
}
