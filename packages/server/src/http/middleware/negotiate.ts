import { As2Error } from "@as2kit/core";
import type { MiddlewareHandler } from "hono";
import { mediaType } from "../body.ts";

const JSON_ACCEPTING = /(^|,)\s*(application\/json|application\/\*|\*\/\*)\s*(;|,|$)/i;

/**
 * The API answers JSON: an Accept header that excludes it is 406, except on the paths that
 * `anyAccept` names (downloads in the payload's own type). A body in a media type the API
 * does not read is 415 before any work (interface spec, Transport: JSON, URL-encoded and
 * multipart forms).
 */
export function negotiate(options: { anyAccept?: (path: string) => boolean } = {}): MiddlewareHandler {
	return async (c, next) => {
		const accept = c.req.header("accept");
		if (accept && !JSON_ACCEPTING.test(accept) && !options.anyAccept?.(c.req.path)) {
			throw new As2Error("NOT_ACCEPTABLE", "this endpoint answers application/json");
		}
		// GET and HEAD first: `Request.body` builds a web stream on @hono/node-server (body.ts).
		const hasBody =
			c.req.method !== "GET" &&
			c.req.method !== "HEAD" &&
			(c.req.header("content-length") !== undefined ? c.req.header("content-length") !== "0" : !!c.req.raw.body);
		if (hasBody) {
			const type = mediaType(c.req.header("content-type"));
			const readable =
				type === "application/json" ||
				type?.endsWith("+json") ||
				type === "application/x-www-form-urlencoded" ||
				type === "multipart/form-data";
			if (!readable) {
				throw new As2Error(
					"UNSUPPORTED_MEDIA_TYPE",
					"send application/json, application/x-www-form-urlencoded or multipart/form-data",
				);
			}
		}
		await next();
	};
}
