import { describe, expect, it } from "vitest";
import { answerHeaders } from "./answer-headers.ts";

/** What @hono/node-server wrote before, given the pairs: a web `Headers` copied into an object. */
function throughWebHeaders(fields: Array<[string, string]>, bodyLength: number | null) {
	const head: Record<string, unknown> = {};
	const cookies: string[] = [];
	for (const [name, value] of new Headers(fields)) {
		if (name === "set-cookie") cookies.push(value);
		else head[name] = value;
	}
	if (cookies.length > 0) head["set-cookie"] = cookies;
	if (bodyLength !== null) {
		head["content-type"] ??= "text/plain; charset=UTF-8";
		head["Content-Length"] = bodyLength;
	}
	return head;
}

describe("answerHeaders", () => {
	it.each<[string, Array<[string, string]>, number | null]>([
		[
			"a sync MDN's fields",
			[
				["AS2-Version", "1.2"],
				["AS2-From", '"Beta Corp"'],
				["AS2-To", "ALPHA"],
				["Message-ID", "<mdn-1@beta>"],
				["Content-Type", 'multipart/signed; protocol="application/pkcs7-signature"; micalg=sha-256; boundary="b1"'],
				["MIME-Version", "1.0"],
			],
			3596,
		],
		[
			"a refusal with Retry-After",
			[
				["Content-Type", "text/plain; charset=utf-8"],
				["Retry-After", "7"],
			],
			52,
		],
		["a body without a Content-Type", [["X-Note", "a"]], 3],
		["no body", [["Retry-After", "1"]], null],
		[
			"a repeated name, values with edge whitespace, and cookies",
			[
				["Warning", " 199 - first "],
				["warning", "199 - second\t"],
				["Set-Cookie", "a=1"],
				["set-cookie", "b=2"],
			],
			1,
		],
	])("writes the head a web Headers made: %s", (_title, fields, bodyLength) => {
		const expected = Object.entries(throughWebHeaders(fields, bodyLength));
		expect(Object.entries(answerHeaders(fields, bodyLength))).toEqual(expected);
	});
});
