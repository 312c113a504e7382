import { As2Error } from "@as2kit/core";
import type { Context, MiddlewareHandler } from "hono";
import { mediaType, unsupportedMediaType } from "../body.ts";

const JSON_ACCEPTING = /(^|,)\s*(application\/json|application\/\*|\*\/\*)\s*(;|,|$)/i;

/**
 * The API answers JSON: an Accept header that excludes it is 406, except on the paths that
 * `anyAccept` names (downloads in the payload's own type). A body in a media type the API
 * does not read is 415 before any work (interface spec, Transport: JSON, URL-encoded and
 * multipart forms).
 */
export function negotiate(options: { anyAccept?: (path: string) => boolean } = {}): MiddlewareHandler {
	// Not async: it only checks, then hands on `next()`'s own promise (context.ts, on promises).
	return (c, next) => {
		const accept = c.req.header("accept");
		if (accept && !JSON_ACCEPTING.test(accept) && !options.anyAccept?.(c.req.path)) {
			throw new As2Error("NOT_ACCEPTABLE", "this endpoint answers application/json");
		}
		if (carriesBody(c)) {
			const type = mediaType(c.req.header("content-type"));
			const readable =
				type === "application/json" ||
				type?.endsWith("+json") ||
				type === "application/x-www-form-urlencoded" ||
				type === "multipart/form-data";
			if (!readable) throw unsupportedMediaType(type);
		}
		return next();
	};
}

/**
 * Whether the request carries body bytes. RFC 9112 §6.3: a request without Content-Length
 * and Transfer-Encoding has no body, as curl and fetch send a bare DELETE or POST; on
 * @hono/node-server `Request.body` is a stream on every such request all the same, so it
 * says nothing there. Other runtimes (and in-process `app.request`) give a body only to a
 * request that has one. GET and HEAD first: `Request.body` builds a web stream on
 * @hono/node-server (body.ts).
 */
export function carriesBody(c: Context): boolean {
	if (c.req.method === "GET" || c.req.method === "HEAD") return false;
	const length = c.req.header("content-length");
	if (length !== undefined) return length.trim() !== "0";
	if (c.req.header("transfer-encoding") !== undefined) return true;
	return !isNodeRequest(c) && c.req.raw.body !== null;
}

function isNodeRequest(c: Context): boolean {
	return (c.env as { incoming?: unknown } | undefined)?.incoming !== undefined;
}
