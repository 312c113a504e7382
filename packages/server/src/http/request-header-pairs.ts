import type { IncomingMessage } from "node:http";

/** RFC 9110 §5.5: the whitespace a field value does not begin or end with. */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/**
 * A Node request's header fields as a web `Headers` lists them — names in lower case and in
 * order, the values of a repeated field joined with ", " (RFC 9110 §5.3), each Set-Cookie
 * apart — read from `rawHeaders` without building the `Headers`: on @hono/node-server,
 * iterating `Request.headers` first copies every field into one through its validators, about
 * 1 % of the CPU of a received AS2 message (issue #20).
 */
export function requestHeaderPairs(incoming: Pick<IncomingMessage, "rawHeaders">): Array<[string, string]> {
	const byName = new Map<string, string>();
	const cookies: string[] = [];
	const raw = incoming.rawHeaders;
	for (let i = 0; i + 1 < raw.length; i += 2) {
		const name = raw[i]!.toLowerCase();
		// HTTP/2 pseudo-headers are not fields (RFC 9113 §8.3), as @hono/node-server skips them.
		if (name.startsWith(":")) continue;
		const value = raw[i + 1]!.replace(EDGE_WHITESPACE, "");
		if (name === "set-cookie") cookies.push(value);
		else {
			const earlier = byName.get(name);
			byName.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
		}
	}
	const pairs: Array<[string, string]> = [];
	for (const name of [...byName.keys(), ...(cookies.length > 0 ? ["set-cookie"] : [])].sort()) {
		if (name === "set-cookie") for (const cookie of cookies) pairs.push([name, cookie]);
		else pairs.push([name, byName.get(name)!]);
	}
	return pairs;
}
