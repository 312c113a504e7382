import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { concatBytes, fromLatin1, joinLatin1, latin1 } from "./bytes.ts";

describe("latin1", () => {
	it("keeps the low byte of every char, short or long text (property)", () => {
		fc.assert(
			fc.property(fc.string({ unit: "binary", maxLength: 600 }), (text) => {
				const expected = Uint8Array.from({ length: text.length }, (_, i) => text.charCodeAt(i) & 0xff);
				expect(latin1(text)).toEqual(expected);
			}),
			{ numRuns: 500 },
		);
	});

	it("round-trips every octet with fromLatin1", () => {
		const all = Uint8Array.from({ length: 20000 }, (_, i) => (i * 7) & 0xff);
		expect(latin1(fromLatin1(all))).toEqual(all);
	});
});

describe("fromLatin1", () => {
	it("gives one char per octet, short or long (property)", () => {
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
				expect(fromLatin1(bytes)).toBe(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
			}),
			{ numRuns: 300 },
		);
	});
});

describe("joinLatin1", () => {
	it("is the concatenation of each string's latin1 octets and each array (property)", () => {
		const part = fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), fc.uint8Array({ maxLength: 300 }));
		fc.assert(
			fc.property(fc.array(part, { maxLength: 6 }), (parts) => {
				const expected = concatBytes(parts.map((p) => (typeof p === "string" ? latin1(p) : p)));
				expect(joinLatin1(parts)).toEqual(expected);
			}),
			{ numRuns: 300 },
		);
	});
});
