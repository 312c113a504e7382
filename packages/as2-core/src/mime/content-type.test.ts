import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isAs2Error } from "../errors/index.ts";
import { formatHeaderValue, parseContentType, parseHeaderParams } from "./content-type.ts";

function code(fn: () => unknown): string {
	try {
		fn();
	} catch (error) {
		if (isAs2Error(error)) return error.code;
		throw error;
	}
	throw new Error("did not throw");
}

describe("parseContentType", () => {
	it("reads type, subtype and parameters case-insensitively", () => {
		expect(
			parseContentType('Multipart/Signed; Protocol="application/pkcs7-signature"; MICALG=SHA-256; boundary="Ab=_1"'),
		).toEqual({
			type: "multipart",
			subtype: "signed",
			mediaType: "multipart/signed",
			params: { protocol: "application/pkcs7-signature", micalg: "SHA-256", boundary: "Ab=_1" },
		});
	});

	it("tolerates spaces around ';' and '=', empty parameters and a trailing ';'", () => {
		const ct = parseContentType('  application/EDI-X12 ;  charset = utf-8 ;; name="a.edi" ; ');
		expect(ct.mediaType).toBe("application/edi-x12");
		expect(ct.params).toEqual({ charset: "utf-8", name: "a.edi" });
	});

	it("reads quoted strings with backslash escapes and bare values with tspecials", () => {
		const ct = parseContentType('text/plain; a="x \\"y\\" \\\\ z;w"; boundary=----=_Part_0_12.34; b="unterminated');
		expect(ct.params).toEqual({ a: 'x "y" \\ z;w', boundary: "----=_Part_0_12.34", b: "unterminated" });
	});

	it("skips parameters without a value and keeps the first of duplicates", () => {
		expect(parseContentType("text/plain; flag; charset=a; charset=b").params).toEqual({ charset: "a" });
	});

	it("keeps the last two segments of a doubled type (application/application/edifact)", () => {
		const ct = parseContentType("application/application/EDIFACT; charset=us-ascii");
		expect(ct).toMatchObject({ type: "application", subtype: "edifact", mediaType: "application/edifact" });
		expect(ct.params.charset).toBe("us-ascii");
		expect(parseContentType("text / plain").mediaType).toBe("text/plain");
		expect(parseContentType("text/plain (a report); charset=x").mediaType).toBe("text/plain");
	});

	it("defaults an empty value to text/plain; charset=us-ascii (RFC 2045 §5.2)", () => {
		expect(parseContentType("")).toEqual({
			type: "text",
			subtype: "plain",
			mediaType: "text/plain",
			params: { charset: "us-ascii" },
		});
		expect(parseContentType("   ").mediaType).toBe("text/plain");
	});

	it("rejects values without a readable type/subtype", () => {
		for (const bad of ["garbage", "text/", "/plain", "text/pl ain", "te(xt/plain", "; charset=utf-8", "a/b/"]) {
			expect(
				code(() => parseContentType(bad)),
				bad,
			).toBe("MALFORMED_MIME");
		}
	});

	it("joins RFC 2231 §3 continuations", () => {
		const ct = parseContentType(
			'message/external-body; access-type=URL;\r\n URL*0="ftp://";\r\n URL*1="cs.utk.edu/pub/moore/bulk-mailer/bulk-mailer.tar"',
		);
		expect(ct.params).toEqual({
			"access-type": "URL",
			url: "ftp://cs.utk.edu/pub/moore/bulk-mailer/bulk-mailer.tar",
		});
	});

	it("decodes RFC 2231 §4 extended values", () => {
		const ct = parseContentType("application/x-stuff; title*=us-ascii'en-us'This%20is%20%2A%2A%2Afun%2A%2A%2A");
		expect(ct.params.title).toBe("This is ***fun***");
	});

	it("joins RFC 2231 §4.1 mixed encoded and plain sections", () => {
		const ct = parseContentType(
			"application/x-stuff; title*0*=us-ascii'en'This%20is%20even%20more%20; title*1*=%2A%2A%2Afun%2A%2A%2A%20; title*2=\"isn't it!\"",
		);
		expect(ct.params.title).toBe("This is even more ***fun*** isn't it!");
	});
});

describe("parseHeaderParams", () => {
	it("splits Content-Disposition (RFC 2183)", () => {
		expect(parseHeaderParams('attachment; filename="order 42.x12"; size=120')).toEqual({
			value: "attachment",
			params: { filename: "order 42.x12", size: "120" },
		});
		expect(parseHeaderParams("inline")).toEqual({ value: "inline", params: {} });
	});

	// Issue #16, defect 7: header values arrive one char per octet (latin1); OpenAS2, browsers
	// and curl send a file name's UTF-8 bytes raw in the quoted form.
	it("reads a plain filename's raw bytes as UTF-8 when they are valid UTF-8, as Latin-1 otherwise", () => {
		const raw = (text: string, encoding: BufferEncoding) => Buffer.from(text, encoding).toString("latin1");
		const utf8 = raw('attachment; filename="Bestellung-äöü 注文.x12"', "utf8");
		expect(parseHeaderParams(utf8).params.filename).toBe("Bestellung-äöü 注文.x12");
		const latin1 = raw('attachment; filename="Bestellung-äöü.x12"', "latin1");
		expect(parseHeaderParams(latin1).params.filename).toBe("Bestellung-äöü.x12");
		expect(
			parseHeaderParams(raw('form-data; name="f"; filename*0="M\u00fc"; filename*1="ller"', "utf8")).params,
		).toEqual({
			name: "f",
			filename: "Müller",
		});
		// The Content-Type `name` too; an RFC 2231 value is decoded by its own charset, first.
		expect(parseContentType(raw('application/edi-x12; name="Müller.x12"', "utf8")).params.name).toBe("Müller.x12");
		expect(
			parseHeaderParams(raw(`attachment; filename="x"; filename*=iso-8859-1''%C3%A4`, "utf8")).params.filename,
		).toBe("Ã¤");
		// Tokens keep their octets: a boundary is matched byte for byte.
		expect(parseContentType(raw('multipart/mixed; boundary="ä"', "utf8")).params.boundary).toBe("\u00c3\u00a4");
	});

	it("decodes UTF-8 and ISO-8859-1 extended values", () => {
		expect(parseHeaderParams("attachment; filename*=UTF-8''%E2%82%AC%20rates.edi").params.filename).toBe("€ rates.edi");
		expect(parseHeaderParams("attachment; filename*=iso-8859-1'de'M%FCller.txt").params.filename).toBe("Müller.txt");
		// ISO-8859-1 is not windows-1252: 0x80 stays U+0080.
		expect(parseHeaderParams("a; x*=ISO-8859-1''%80").params.x).toBe("\u0080");
	});

	it("decodes continued extended values as one byte sequence (a UTF-8 char split over sections)", () => {
		expect(parseHeaderParams("a; f*0*=utf-8''%E2%82; f*1*=%AC; f*2=.txt").params.f).toBe("€.txt");
	});

	it("prefers the RFC 2231 form over the plain one (RFC 6266 §4.3)", () => {
		expect(
			parseHeaderParams("attachment; filename=\"fallback.txt\"; filename*=utf-8''%C3%A9.txt").params.filename,
		).toBe("é.txt");
		expect(parseHeaderParams("attachment; filename=plain; filename*0=a; filename*1=b").params.filename).toBe("ab");
	});

	it("tolerates broken extended values: no charset quotes, bad escapes, unknown charset, gaps", () => {
		expect(parseHeaderParams("a; x*=100%25%zz").params.x).toBe("100%%zz");
		expect(parseHeaderParams("a; x*=x-unknown''abc%41").params.x).toBe("abcA");
		expect(parseHeaderParams("a; x*0=a; x*2=c").params.x).toBe("a");
		expect(parseHeaderParams("a; x*1=b").params.x).toBeUndefined();
	});
});

describe("formatHeaderValue", () => {
	it("writes tokens bare and quotes the rest, escaping quote and backslash", () => {
		expect(formatHeaderValue("application/pkcs7-mime", { "smime-type": "enveloped-data", name: "smime.p7m" })).toBe(
			"application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m",
		);
		expect(formatHeaderValue("attachment", { filename: "order 42.x12" })).toBe('attachment; filename="order 42.x12"');
		expect(formatHeaderValue("x", { a: 'say "hi" \\ bye', b: "", c: "a;b", d: "----=_as2kit_1" })).toBe(
			'x; a="say \\"hi\\" \\\\ bye"; b=""; c="a;b"; d="----=_as2kit_1"',
		);
	});

	it("skips undefined parameters and leaves a bare value alone", () => {
		expect(formatHeaderValue("multipart/report", { "report-type": undefined })).toBe("multipart/report");
	});

	it("writes non-ASCII and control characters in the RFC 2231 form, on one line", () => {
		expect(formatHeaderValue("attachment", { filename: "€ rates.edi" })).toBe(
			"attachment; filename*=utf-8''%E2%82%AC%20rates.edi",
		);
		expect(formatHeaderValue("a", { x: "line\r\nInjected: 1" })).toBe("a; x*=utf-8''line%0D%0AInjected%3A%201");
	});

	it("refuses invalid parameter names", () => {
		expect(() => formatHeaderValue("a", { "bad name": "x" })).toThrow(TypeError);
		expect(() => formatHeaderValue("a", { "x*": "x" })).toThrow(TypeError);
	});

	it("parseHeaderParams reads back whatever formatHeaderValue writes", () => {
		fc.assert(
			fc.property(
				fc.dictionary(
					fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
					fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" })),
				),
				(params) => {
					const line = formatHeaderValue("x/y", params);
					expect(line).not.toMatch(/[\r\n]/);
					expect(parseHeaderParams(line)).toEqual({ value: "x/y", params });
				},
			),
			{ numRuns: 300 },
		);
	});
});
