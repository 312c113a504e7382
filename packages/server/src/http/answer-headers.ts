import { requestHeaderPairs } from "./request-header-pairs.ts";

/** @hono/node-server's Content-Type of an answer with a body and none of its own. */
const DEFAULT_CONTENT_TYPE = "text/plain; charset=UTF-8";

/**
 * The engine's answer fields (a sync MDN's, a refusal's) as the plain object @hono/node-server
 * hands to `writeHead` as it is. Given as pairs, it built a web `Headers` of them for every
 * answer and copied it back into such an object: some 50 us per received message in the
 * receiver's profile (issue #20). The head written is the same: the fields as `Headers` lists
 * them (names in lower case and order, a repeated name's values joined with ", "), its default
 * Content-Type when there is a body without one, then the body's Content-Length.
 */
export function answerHeaders(
	fields: ReadonlyArray<readonly [string, string]>,
	bodyLength: number | null,
): Record<string, string | number | string[]> {
	const head: Record<string, string | number | string[]> = {};
	const cookies: string[] = [];
	for (const [name, value] of requestHeaderPairs({ rawHeaders: fields.flat() })) {
		if (name === "set-cookie") cookies.push(value);
		else head[name] = value;
	}
	if (cookies.length > 0) head["set-cookie"] = cookies;
	if (bodyLength !== null) {
		head["content-type"] ??= DEFAULT_CONTENT_TYPE;
		head["Content-Length"] = bodyLength;
	}
	return head;
}
