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
	const raw = incoming.rawHeaders;
	// The fields in their order, then a stable insertion sort by name (a dozen fields: no Map, no
	// list of names, no sort's work array: 6.7 KB of heap per received message before, issue #20),
	// then the repeated fields joined.
	const pairs: Array<[string, string]> = [];
	for (let i = 0; i + 1 < raw.length; i += 2) {
		const name = raw[i]!.toLowerCase();
		// HTTP/2 pseudo-headers are not fields (RFC 9113 §8.3), as @hono/node-server skips them.
		if (name.startsWith(":")) continue;
		const pair: [string, string] = [name, trimEdges(raw[i + 1]!)];
		let at = pairs.length;
		pairs.push(pair);
		for (; at > 0 && pairs[at - 1]![0] > name; at--) pairs[at] = pairs[at - 1]!;
		pairs[at] = pair;
	}
	let kept = 0;
	for (const pair of pairs) {
		const last = kept > 0 ? pairs[kept - 1]! : undefined;
		if (last && last[0] === pair[0] && pair[0] !== "set-cookie") last[1] = `${last[1]}, ${pair[1]}`;
		else pairs[kept++] = pair;
	}
	pairs.length = kept;
	return pairs;
}

/** Without its edge whitespace; the value itself (no new string) when it has none, as most do. */
function trimEdges(value: string): string {
	if (value.length === 0) return value;
	if (!isEdgeWhitespace(value.charCodeAt(0)) && !isEdgeWhitespace(value.charCodeAt(value.length - 1))) return value;
	return value.replace(EDGE_WHITESPACE, "");
}

function isEdgeWhitespace(code: number): boolean {
	return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}
