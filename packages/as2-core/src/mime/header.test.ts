import { describe, expect, it } from "vitest";
import { isAs2Error } from "../errors/index.ts";
import { MimeHeaders, parseHeaderBlock, serializeHeaders } from "./header.ts";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const text = (data: Uint8Array) => Buffer.from(data).toString("latin1");

function malformed(fn: () => unknown): string {
	try {
		fn();
	} catch (error) {
		if (isAs2Error(error)) return error.code;
		throw error;
	}
	throw new Error("did not throw");
}

describe("MimeHeaders", () => {
	it("looks names up case-insensitively and keeps the original spelling and order", () => {
		const h = new MimeHeaders([
			["AS2-From", "alice"],
			["Received", "one"],
			["received", "two"],
		]);
		expect(h.get("as2-from")).toBe("alice");
		expect(h.get("RECEIVED")).toBe("one");
		expect(h.getAll("Received")).toEqual(["one", "two"]);
		expect(h.has("as2-FROM")).toBe(true);
		expect(h.has("AS2-To")).toBe(false);
		expect(h.get("AS2-To")).toBeUndefined();
		expect(h.entries()).toEqual([
			["AS2-From", "alice"],
			["Received", "one"],
			["received", "two"],
		]);
		expect([...h]).toEqual(h.entries());
		expect(h.size).toBe(3);
	});

	it("set replaces every field of that name in place of the first", () => {
		const h = new MimeHeaders([
			["A", "1"],
			["X-Dup", "a"],
			["B", "2"],
			["x-dup", "b"],
		]);
		h.set("X-DUP", "c");
		expect(h.entries()).toEqual([
			["A", "1"],
			["X-DUP", "c"],
			["B", "2"],
		]);
		h.set("New", "n");
		expect(h.entries().at(-1)).toEqual(["New", "n"]);
	});

	it("append adds, delete removes all of a name", () => {
		const h = new MimeHeaders();
		h.append("X", "1").append("x", "2").append("Y", "3");
		expect(h.getAll("X")).toEqual(["1", "2"]);
		h.delete("X");
		expect(h.entries()).toEqual([["Y", "3"]]);
	});

	it("entries is a copy", () => {
		const h = new MimeHeaders([["A", "1"]]);
		const list = h.entries();
		list[0]![1] = "changed";
		list.push(["B", "2"]);
		expect(h.entries()).toEqual([["A", "1"]]);
	});
});

describe("parseHeaderBlock", () => {
	it("reads fields, trims values and stops at the blank line", () => {
		const h = parseHeaderBlock(
			bytes("Content-Type:  text/plain  \r\nMessage-ID: <a@b>\r\n\r\nX-Body: not a header\r\n"),
		);
		expect(h.entries()).toEqual([
			["Content-Type", "text/plain"],
			["Message-ID", "<a@b>"],
		]);
	});

	it("unfolds continuation lines keeping the white space (RFC 5322 §2.2.3)", () => {
		const h = parseHeaderBlock(
			bytes(
				'Content-Type: multipart/signed;\r\n\tprotocol="application/pkcs7-signature";\r\n  micalg=sha-256\r\nSubject: x\r\n',
			),
		);
		expect(h.get("content-type")).toBe('multipart/signed;\tprotocol="application/pkcs7-signature";  micalg=sha-256');
		expect(h.get("subject")).toBe("x");
	});

	it("accepts LF-only and mixed line ends", () => {
		const h = parseHeaderBlock(bytes("A: 1\nB: 2\r\nC:3\n folded\n\nbody"));
		expect(h.entries()).toEqual([
			["A", "1"],
			["B", "2"],
			["C", "3 folded"],
		]);
	});

	it("accepts white space before the colon (RFC 5322 §4.5.3) and empty values", () => {
		const h = parseHeaderBlock(bytes("Subject \t: hi\r\nX-Empty:\r\n"));
		expect(h.entries()).toEqual([
			["Subject", "hi"],
			["X-Empty", ""],
		]);
	});

	it("keeps every octet as one latin1 char", () => {
		const raw = new Uint8Array([...bytes("X-Name: "), 0xe9, 0xff, 0x80]);
		expect(parseHeaderBlock(raw).get("x-name")).toBe("\u00e9\u00ff\u0080");
	});

	it("rejects a line without a colon, an empty name, and a leading continuation", () => {
		expect(malformed(() => parseHeaderBlock(bytes("Content-Type text/plain\r\n")))).toBe("MALFORMED_MIME");
		expect(malformed(() => parseHeaderBlock(bytes("A: 1\r\nthis is body text\r\n")))).toBe("MALFORMED_MIME");
		expect(malformed(() => parseHeaderBlock(bytes(": value\r\n")))).toBe("MALFORMED_MIME");
		expect(malformed(() => parseHeaderBlock(bytes(" folded: first\r\n")))).toBe("MALFORMED_MIME");
	});

	it("an empty block has no fields", () => {
		expect(parseHeaderBlock(bytes("")).size).toBe(0);
		expect(parseHeaderBlock(bytes("\r\n")).size).toBe(0);
	});
});

describe("serializeHeaders", () => {
	it("writes Name: value CRLF in order with the original case", () => {
		const out = serializeHeaders(
			new MimeHeaders([
				["AS2-Version", "1.2"],
				["content-type", "text/plain"],
			]),
		);
		expect(text(out)).toBe("AS2-Version: 1.2\r\ncontent-type: text/plain\r\n");
		expect(text(serializeHeaders([["A", "1"]]))).toBe("A: 1\r\n");
		expect(serializeHeaders([]).byteLength).toBe(0);
	});

	it("never folds, however long the value", () => {
		const value = `x; ${"y".repeat(2000)}; z="${" ".repeat(100)}"`;
		expect(text(serializeHeaders([["X-Long", value]]))).toBe(`X-Long: ${value}\r\n`);
	});

	it("refuses line breaks in values and bad names (header injection)", () => {
		expect(() => serializeHeaders([["Subject", "hi\r\nBcc: x"]])).toThrow(TypeError);
		expect(() => serializeHeaders([["Subject", "hi\nthere"]])).toThrow(TypeError);
		expect(() => serializeHeaders([["Subject", "hi\rthere"]])).toThrow(TypeError);
		expect(() => serializeHeaders([["Bad Name", "x"]])).toThrow(TypeError);
		expect(() => serializeHeaders([["A:B", "x"]])).toThrow(TypeError);
	});

	it("round-trips latin1 octets and writes characters beyond U+00FF as UTF-8", () => {
		const latin = serializeHeaders([["X", "\u00e9"]]);
		expect([...latin.subarray(3, 4)]).toEqual([0xe9]);
		expect(parseHeaderBlock(latin).get("x")).toBe("\u00e9");
		expect(Buffer.from(serializeHeaders([["Subject", "€ 5"]])).toString("utf8")).toBe("Subject: € 5\r\n");
	});
});
