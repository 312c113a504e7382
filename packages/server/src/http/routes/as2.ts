import type { Readable } from "node:stream";
import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";
import { Hono } from "hono";
import { readWholeBody } from "../../service/transport/read-whole-body.ts";
import { answerHeaders } from "../answer-headers.ts";
import type { AppEnv } from "../context.ts";
import { doc } from "../openapi.ts";
import { requestHeaderPairs } from "../request-header-pairs.ts";

/**
 * `POST /as2/receive` (and its alias `/as2/mdn`): AS2 messages and async MDNs from partners.
 * No API key: AS2 security applies (decisions.md, Messages). The engine answers the status,
 * headers and body (a sync MDN, or a short text).
 */
export function as2Routes(clientIp: (c: Context) => string) {
	const handler = async (c: Context<AppEnv>) => {
		const length = c.req.header("content-length");
		const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
		const response = await c.get("service").messages.receive({
			headers: incoming ? requestHeaderPairs(incoming) : [...c.req.raw.headers],
			// On @hono/node-server, the Node request itself: `Request.body` would wrap it in a web
			// stream, a web Request and an AbortSignal first (body.ts). Read so that stopping early
			// (over the size limit) does not destroy it: the default iterator's return() did, which
			// detached it from its connection, and the next request on that keep-alive connection
			// was never answered. What is left is read once the answer is out (node/early-answers.ts).
			body: incoming ? iteratedLazily(incoming) : c.req.raw.body,
			// A body held in memory (a few kilobytes, most messages) is read without the iterator.
			...(incoming ? { readWhole: (max: number) => readWholeBody(incoming, max) } : {}),
			contentLength: length === undefined ? null : Number(length),
			clientIp: clientIp(c),
			log: c.get("log"),
		});
		const body = response.body.byteLength > 0 ? (response.body as Uint8Array<ArrayBuffer>) : null;
		return new Response(body, {
			status: response.status,
			headers: answerHeaders(response.headers, body?.byteLength ?? null) as Record<string, string>,
		});
	};
	const description = doc({
		tags: ["AS2"],
		summary: "Receive an AS2 message or an async MDN from a partner (RFC 4130)",
		description:
			"Routed by AS2-To to a tenant and by AS2-From to one of its partners. A sync MDN request is answered with the MDN; otherwise 200 as soon as the message is stored. Limited per partner at the tenant plan's receive rate (burst 50 and 1 message/s on Free, 200 and 5/s on Starter, 1,000 and 25/s on Professional; AS2_RECEIVE_BURST and AS2_RECEIVE_PER_SECOND cap every plan and set Enterprise's): over it, 429 with Retry-After. Inbound work is bounded per tenant (the plan's concurrent requests) and per instance (AS2_RECEIVE_CONCURRENCY): over it, 503 with Retry-After, which AS2 senders retry. An async MDN that does not verify settles nothing: 400, recorded in the message's rejected_mdns. An answer the headers decide (413 by Content-Length, 404, 429, 503) comes before the body is read, instead of 100 Continue to a sender that sent Expect: 100-continue, and with Connection: close; the server still reads the rest of the body (at most AS2_LINGER_SECONDS) so that a sender that writes it all before reading gets the answer.",
		public: true,
		responses: {
			200: {
				description: "a sync MDN (multipart/report, possibly signed), or a short text",
				content: { "multipart/report": {}, "multipart/signed": {}, "text/plain": {} },
			},
			400: {
				description: "malformed AS2 headers or body, or an async MDN that was not accepted",
				content: { "text/plain": {} },
			},
			404: { description: "unknown AS2-To or AS2-From (when no MDN can be returned)", content: { "text/plain": {} } },
			413: { description: "the message is larger than the tenant's plan allows", content: { "text/plain": {} } },
			429: { description: "too many messages from this partner", content: { "text/plain": {} } },
			503: {
				description: "too many inbound messages in progress for this tenant or instance; retry after Retry-After",
				content: { "text/plain": {} },
			},
		},
	});
	return new Hono<AppEnv>().post("/receive", description, handler).post("/mdn", description, handler);
}

/**
 * The request's chunks, its iterator made only when a reader asks for it: a body read whole
 * (`readWhole`) never does, and the iterator's async generator is 0.4 KB of heap (issue #20).
 */
function iteratedLazily(incoming: Readable): AsyncIterable<Uint8Array> {
	return { [Symbol.asyncIterator]: () => incoming.iterator({ destroyOnReturn: false }) };
}
