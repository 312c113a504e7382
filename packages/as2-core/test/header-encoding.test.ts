import { describe, expect, it } from "vitest";
import { serializeHeaders } from "../src/mime/index.ts";
import { packed, received, withHeader } from "./helpers/messages.ts";

const SUBJECT = "Bestellung Müller 注文 ✓";
/** Python's email.header.Header(SUBJECT, "utf-8").encode(), charset in upper case. */
const SUBJECT_ON_THE_WIRE = "=?UTF-8?B?QmVzdGVsbHVuZyBNw7xsbGVyIOazqOaWhyDinJM=?=";
/** How Node's HTTP parser hands a raw header value over: one char per octet. */
const asOctets = (bytes: Buffer) => bytes.toString("latin1");

const subjectOf = (headers: Array<[string, string]>) => headers.find(([n]) => n === "Subject")?.[1];

describe("the Subject header (RFC 2047)", () => {
	it("goes out as an encoded-word, every header octet US-ASCII, and reads back as the text", async () => {
		const message = await packed({ subject: SUBJECT });
		expect(subjectOf(message.headers)).toBe(SUBJECT_ON_THE_WIRE);
		expect([...serializeHeaders(message.headers)].every((octet) => octet < 0x80)).toBe(true);
		const { message: read } = await received(message.headers, message.body);
		expect(read.subject).toBe(SUBJECT);
	});

	it("sends a Latin-1 subject encoded too, not as raw 8-bit octets", async () => {
		const message = await packed({ subject: "Grüße aus Köln" });
		// Python writes the same (B is shorter here).
		expect(subjectOf(message.headers)).toBe("=?UTF-8?B?R3LDvMOfZSBhdXMgS8O2bG4=?=");
		expect((await received(message.headers, message.body)).message.subject).toBe("Grüße aus Köln");
	});

	it("sends a US-ASCII subject as it is", async () => {
		const message = await packed({ subject: "PO 4711" });
		expect(subjectOf(message.headers)).toBe("PO 4711");
	});

	it.each([
		["raw UTF-8 (OpenAS2, most Java senders)", asOctets(Buffer.from(SUBJECT, "utf8")), SUBJECT],
		["raw Latin-1", asOctets(Buffer.from("Grüße", "latin1")), "Grüße"],
		["Q-encoded ISO-8859-1", "=?ISO-8859-1?Q?Gr=FC=DFe?=", "Grüße"],
		["B-encoded UTF-8 in two words", "=?utf-8?b?QmVzdGVsbHVuZyBNw7xsbGVy?= =?utf-8?b?IOazqOaWhyDinJM=?=", SUBJECT],
	])("reads an inbound subject sent as %s", async (_, wire, text) => {
		const message = await packed();
		const { message: read } = await received(withHeader(message.headers, "Subject", wire), message.body);
		expect(read.subject).toBe(text);
	});
});

describe("custom headers", () => {
	it("go out as given when they are printable US-ASCII", async () => {
		const message = await packed({ headers: { "X-Order-Ref": "PO-4711 / batch 7" } });
		expect(message.headers).toContainEqual(["X-Order-Ref", "PO-4711 / batch 7"]);
	});

	it.each([
		["beyond Latin-1", { "X-Ref": "注文" }],
		["Latin-1", { "X-Ref": "Müller" }],
		["a line break (header injection)", { "X-Ref": "a\r\nAS2-To: EVE" }],
		["a NUL", { "X-Ref": "a\0b" }],
		["a name that is no token", { "X Ref": "a" }],
		["an empty name", { "": "a" }],
	])("are refused with INVALID_AS2_HEADERS when they hold %s, before anything is sent", async (_, headers) => {
		await expect(packed({ headers })).rejects.toMatchObject({ code: "INVALID_AS2_HEADERS" });
	});
});
