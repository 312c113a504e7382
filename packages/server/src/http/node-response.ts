import type { ServerResponse } from "node:http";
import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";

/**
 * Sets a field of the answer on @hono/node-server's Node response, before the app answers:
 * Node merges it into whatever head is written later (an answer, an error, a stream, an early
 * 413). Set with `c.header` instead, it makes Hono build a web `Headers` for the answer, which
 * @hono/node-server then iterates back into a plain object for `writeHead`: 3 us of each
 * request's CPU for the three X-RateLimit-* fields of every `/v1` answer (issue #20, "The API
 * layer (stop 31)"). Where there is no Node response (`app.request`, other runtimes) or its
 * head is already written, the field goes on the web answer as before.
 */
export function setAnswerField(c: Context, name: string, value: string): void {
	const outgoing = nodeResponseOf(c);
	if (outgoing) outgoing.setHeader(name, value);
	else c.header(name, value);
}

/** @hono/node-server's Node response of this request while its head is not written; null elsewhere. */
export function nodeResponseOf(c: Context): ServerResponse | null {
	const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
	if (!outgoing || typeof outgoing.setHeader !== "function" || outgoing.headersSent) return null;
	return outgoing;
}
