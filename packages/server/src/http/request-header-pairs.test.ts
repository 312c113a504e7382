import { describe, expect, it } from "vitest";
import { requestHeaderPairs } from "./request-header-pairs.ts";

/** What the route read before: the fields through a web `Headers`, as @hono/node-server builds it. */
function throughWebHeaders(rawHeaders: string[]): Array<[string, string]> {
	const headers = new Headers();
	for (let i = 0; i < rawHeaders.length; i += 2) {
		if (!rawHeaders[i]!.startsWith(":")) headers.append(rawHeaders[i]!, rawHeaders[i + 1]!);
	}
	return [...headers];
}

describe("requestHeaderPairs", () => {
	it.each([
		[
			"an AS2 request's fields, in the partner's case and order",
			[
				"Host",
				"127.0.0.1:8443",
				"AS2-Version",
				"1.2",
				"AS2-From",
				'"Alpha Corp"',
				"AS2-To",
				"BETA",
				"Message-ID",
				"<1@alpha>",
				"Disposition-Notification-To",
				"mdn@alpha",
				"Content-Type",
				'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"',
				"Content-Length",
				"3907",
				"Connection",
				"keep-alive",
			],
		],
		[
			"a repeated field, joined in its order; a repeated AS2-To stays two values",
			["AS2-To", "BETA", "accept", "a/b", "as2-to", "GAMMA", "Accept", "c/d"],
		],
		[
			"Set-Cookie kept apart, sorted among the others",
			["X-Z", "1", "Set-Cookie", "a=1", "set-cookie", "b=2", "Cookie", "c=3"],
		],
		["values without their edge whitespace", ["Subject", " \t hello  world \t", "Empty", ""]],
		["HTTP/2 pseudo-headers left out", [":authority", "example.com", "X-A", "1"]],
		["no fields", []],
	])("lists %s as a web Headers does", (_, rawHeaders) => {
		expect(requestHeaderPairs({ rawHeaders })).toEqual(throughWebHeaders(rawHeaders));
	});
});
