import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BerError, childrenOf, octetsOf, oidOf, readRoot, readTlv, TAG, timeOf } from "./ber-reader.ts";
import { der, derOid, derTime, encodeDer, sizeOf } from "./der-writer.ts";

const bytes = (...b: number[]) => new Uint8Array(b);

describe("BER reader", () => {
	it("reads indefinite lengths and joins constructed OCTET STRING segments (X.690 §8.1.3.6, §8.7.3)", () => {
		// SEQUENCE (indef) { OCTET STRING (constructed, indef) { "ab", "c" } }
		const ber = bytes(0x30, 0x80, 0x24, 0x80, 0x04, 0x02, 0x61, 0x62, 0x04, 0x01, 0x63, 0x00, 0x00, 0x00, 0x00);
		const root = readRoot(ber);
		// The outer element's own header, not the last one read inside it (one header is reused).
		expect(root).toMatchObject({
			cls: 0,
			number: TAG.SEQUENCE,
			constructed: true,
			indefinite: true,
			end: ber.byteLength,
		});
		const [octets] = childrenOf(ber, root);
		expect(octets).toMatchObject({ number: TAG.OCTET_STRING, constructed: true, indefinite: true, contentStart: 4 });
		expect(new TextDecoder().decode(octetsOf(ber, octets!))).toBe("abc");
	});

	it("reads high tag numbers and long lengths", () => {
		const content = new Uint8Array(300).fill(7);
		const ber = bytes(0x9f, 0x81, 0x00, 0x82, 0x01, 0x2c, ...content);
		expect(readRoot(ber)).toMatchObject({ cls: 2, number: 128, contentStart: 6, end: 306 });
	});

	it("round-trips OIDs and both time types with the DER writer", () => {
		for (const oid of ["1.2.840.113549.1.9.52", "2.16.840.1.101.3.4.2.3", "2.999.1", "0.9.2342.19200300.100.1.25"]) {
			const encoded = derOid(oid);
			expect(oidOf(encoded, readRoot(encoded))).toBe(oid);
		}
		for (const iso of [
			"2026-11-23T11:20:50Z",
			"2050-01-01T00:00:00Z",
			"1949-12-31T23:59:59Z",
			"1950-01-01T00:00:00Z",
		]) {
			const encoded = derTime(new Date(iso));
			const tlv = readRoot(encoded);
			expect(tlv.number).toBe(iso.startsWith("2050") || iso.startsWith("1949") ? TAG.GENERALIZED_TIME : TAG.UTC_TIME);
			expect(timeOf(encoded, tlv)).toEqual(new Date(iso));
		}
		// BER time forms: no seconds, offsets, fractions.
		const utc = new TextEncoder().encode("0106011200+0100");
		expect(timeOf(bytes(0x17, utc.byteLength, ...utc), readRoot(bytes(0x17, utc.byteLength, ...utc)))).toEqual(
			new Date("2001-06-01T11:00:00Z"),
		);
		const gen = new TextEncoder().encode("20010601120000.5Z");
		const genTlv = bytes(0x18, gen.byteLength, ...gen);
		expect(timeOf(genTlv, readRoot(genTlv))).toEqual(new Date("2001-06-01T12:00:00.500Z"));
	});

	it("sizes a DER tree before writing it", () => {
		const tree = der(0x30, new Uint8Array(200), der(0x04, new Uint8Array(70000)));
		expect(encodeDer(tree).byteLength).toBe(sizeOf(tree));
		expect(readRoot(encodeDer(tree)).end).toBe(sizeOf(tree));
	});

	it("rejects truncation, overruns, primitive indefinite lengths and deep nesting with BerError", () => {
		for (const bad of [
			bytes(),
			bytes(0x30),
			bytes(0x30, 0x05, 0x01),
			bytes(0x04, 0x80, 0x00, 0x00),
			bytes(0x30, 0x80, 0x04, 0x01, 0x00),
			bytes(0x30, 0x89, 1, 1, 1, 1, 1, 1, 1, 1, 1),
			bytes(0x30, 0x02, 0x04, 0x05),
			new Uint8Array(1000).map((_, i) => (i % 2 === 0 ? 0x30 : 0x80)),
		]) {
			expect(() => {
				const root = readRoot(bad);
				childrenOf(bad, root);
			}).toThrow(BerError);
		}
	});

	it("throws nothing but BerError on random input (property)", () => {
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 64 }), (input) => {
				try {
					const walk = (tlv: ReturnType<typeof readTlv>, depth: number): void => {
						if (tlv.constructed && depth < 10) for (const child of childrenOf(input, tlv)) walk(child, depth + 1);
						else if (tlv.number === TAG.OID && tlv.cls === 0) oidOf(input, tlv);
					};
					walk(readTlv(input, 0), 0);
				} catch (error) {
					if (!(error instanceof BerError)) throw error;
				}
			}),
			{ numRuns: 2000 },
		);
	});
});
