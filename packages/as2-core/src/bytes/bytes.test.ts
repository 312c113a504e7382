import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromLatin1, latin1 } from "./bytes.ts";

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
