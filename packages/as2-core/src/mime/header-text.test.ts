import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cpuStopwatch } from "../../test/helpers/cpu-time.ts";
import { decodeHeaderText } from "./decode-header-text.ts";
import { encodeHeaderText } from "./encode-header-text.ts";

// biome-ignore lint/suspicious/noControlCharactersInRegex: C0 controls and DEL, which the decoder replaces
const CONTROL = /[\u0000-\u001f\u007f]/;
const WORD = /^=\?UTF-8\?([BQ])\?([^?\s]*)\?=$/;
/** How a header value reaches us: its octets, one char each (Node's HTTP parser, parseHeaderBlock). */
const octets = (bytes: Uint8Array | string) =>
	Buffer.from(typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes).toString("latin1");

describe("encodeHeaderText (RFC 2047)", () => {
	it.each([
		// The expected values are what Python's email.header.Header(text, "utf-8").encode() writes,
		// an independent encoder that also picks the shorter of Q and B (its charset is lower case).
		["Bestellung Müller 注文 ✓", "=?UTF-8?B?QmVzdGVsbHVuZyBNw7xsbGVyIOazqOaWhyDinJM=?="],
		["Müller", "=?UTF-8?Q?M=C3=BCller?="],
		["Bestellung Müller", "=?UTF-8?Q?Bestellung_M=C3=BCller?="],
		["Rechnung für März", "=?UTF-8?Q?Rechnung_f=C3=BCr_M=C3=A4rz?="],
		["注文書", "=?UTF-8?B?5rOo5paH5pu4?="],
		["Ünïcödé ✓ 🚚", "=?UTF-8?B?w5xuw69jw7Zkw6kg4pyTIPCfmpo=?="],
		["Grüße", "=?UTF-8?B?R3LDvMOfZQ==?="],
		// Looks like an encoded-word: encoded, so that the receiver reads it as written.
		["a=?b?=c", "=?UTF-8?B?YT0/Yj89Yw==?="],
	])("%s → %s", (text, expected) => {
		expect(encodeHeaderText(text)).toBe(expected);
		expect(decodeHeaderText(expected)).toBe(text);
	});

	it("leaves printable US-ASCII as it is", () => {
		expect(encodeHeaderText("PO 4711 (urgent) ?= ok")).toBe("PO 4711 (urgent) ?= ok");
		expect(encodeHeaderText("")).toBe("");
	});

	it("writes only printable ASCII, in words of at most 75 characters that each hold whole characters", () => {
		const text = `Lieferschein für die Bestellung Nr. 4711 — Müller & Söhne GmbH, ${"注文書🚚".repeat(20)}`;
		const encoded = encodeHeaderText(text);
		expect(encoded).toMatch(/^[\x20-\x7e]+$/);
		const words = encoded.split(" ");
		expect(words.length).toBeGreaterThan(3);
		for (const word of words) {
			expect(word.length).toBeLessThanOrEqual(75);
			const [, encoding, payload] = WORD.exec(word)!;
			const bytes =
				encoding === "B"
					? Buffer.from(payload!, "base64")
					: Buffer.from(payload!.replace(/_/g, " ").replace(/=([0-9A-F]{2})/g, "%$1"), "latin1");
			const raw = encoding === "B" ? bytes : Buffer.from(decodeURIComponent(bytes.toString("latin1")), "utf8");
			// A fatal decoder throws on a character split across two words (§5).
			expect(() => new TextDecoder("utf-8", { fatal: true }).decode(raw)).not.toThrow();
		}
		expect(decodeHeaderText(encoded)).toBe(text);
	});

	it("round-trips any text without control characters", () => {
		fc.assert(
			fc.property(
				fc.string({ unit: "binary", maxLength: 300 }).filter((s) => !CONTROL.test(s)),
				(text) => {
					const encoded = encodeHeaderText(text);
					expect(encoded).toMatch(/^[\x20-\x7e]*$/);
					for (const word of encoded.split(" ")) if (WORD.test(word)) expect(word.length).toBeLessThanOrEqual(75);
					expect(decodeHeaderText(encoded)).toBe(text);
				},
			),
			{ numRuns: 500 },
		);
	});

	it("writes a lone surrogate as U+FFFD instead of failing", () => {
		expect(decodeHeaderText(encodeHeaderText("a\ud800b"))).toBe("a\ufffdb");
	});
});

describe("decodeHeaderText", () => {
	it.each([
		// RFC 2047 §8, the examples.
		["=?US-ASCII?Q?Keith_Moore?=", "Keith Moore"],
		["=?ISO-8859-1?Q?Keld_J=F8rn_Simonsen?=", "Keld Jørn Simonsen"],
		["=?ISO-8859-1?Q?Andr=E9?= Pirard", "André Pirard"],
		[
			"=?ISO-8859-1?B?SWYgeW91IGNhbiByZWFkIHRoaXMgeW8=?= =?ISO-8859-2?B?dSB1bmRlcnN0YW5kIHRoZSBleGFtcGxlLg==?=",
			"If you can read this you understand the example.",
		],
		["=?ISO-8859-1?Q?a?=", "a"],
		["=?ISO-8859-1?Q?a?= b", "a b"],
		["=?ISO-8859-1?Q?a?= =?ISO-8859-1?Q?b?=", "ab"],
		["=?ISO-8859-1?Q?a?=  =?ISO-8859-1?Q?b?=", "ab"],
		["=?ISO-8859-1?Q?a?=\r\n    =?ISO-8859-1?Q?b?=", "ab"],
		["=?ISO-8859-1?Q?a_b?=", "a b"],
		["=?ISO-8859-1?Q?a?= =?ISO-8859-2?Q?_b?=", "a b"],
	])("%j → %j", (encoded, text) => {
		expect(decodeHeaderText(encoded)).toBe(text);
	});

	it("reads what senders get wrong: lower case, a language, a character split across words, other charsets", () => {
		expect(decodeHeaderText("=?utf-8?q?M=c3=bcller?=")).toBe("Müller");
		expect(decodeHeaderText("=?UTF-8*de?Q?Gr=C3=BC=C3=9Fe?=")).toBe("Grüße");
		// "ü" is C3 BC; this sender cut between the two octets.
		expect(decodeHeaderText("=?UTF-8?Q?M=C3?= =?UTF-8?Q?=BCller?=")).toBe("Müller");
		expect(decodeHeaderText("=?UTF-8?B?w5w=?==?UTF-8?B?w5w=?=")).toBe("ÜÜ");
		expect(decodeHeaderText("=?ISO-8859-2?Q?=A3=F3d=BC?=")).toBe("Łódź");
		expect(decodeHeaderText("=?Shift_JIS?B?ko2Vtg==?=")).toBe("注文");
	});

	it("reads raw 8-bit octets as UTF-8 when they are valid UTF-8, as Latin-1 otherwise", () => {
		expect(decodeHeaderText(octets("Bestellung Müller 注文 ✓"))).toBe("Bestellung Müller 注文 ✓");
		expect(decodeHeaderText(octets(Uint8Array.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72])))).toBe("Müller");
		expect(decodeHeaderText(`${octets("Grüße")} =?UTF-8?Q?M=C3=BCller?=`)).toBe("Grüße Müller");
		// Already text (a caller's string): left as it is.
		expect(decodeHeaderText("Müller 注文")).toBe("Müller 注文");
	});

	it("leaves what is not an encoded-word, or does not decode, as it is", () => {
		for (const text of ["=?UTF-8?X?abc?=", "=?UTF-8?B?not base64!?=", "=?UTF-8?Q?a b?=", "=??Q?a?=", "a =? b ?= c"]) {
			expect(decodeHeaderText(text)).toBe(text);
		}
		expect(decodeHeaderText("=?UTF-8?Q?100=_sure?=")).toBe("100= sure");
	});

	it("turns control characters into a space (CR, LF, tab) or U+FFFD, so that no NUL is stored", () => {
		expect(decodeHeaderText("=?UTF-8?Q?a=00b=0D=0Ac=09d=7F?=")).toBe("a\ufffdb  c d\ufffd");
		expect(decodeHeaderText("a\0b")).toBe("a\ufffdb");
	});

	it("is linear in its input", () => {
		const hostile = `${"=?UTF-8?Q?".repeat(20_000)} ${"=?a?Q?b?= ".repeat(20_000)}`;
		const cpuMs = cpuStopwatch();
		decodeHeaderText(hostile);
		expect(cpuMs()).toBeLessThan(2_000);
	});
});
