import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openssl } from "../../test/helpers/openssl.ts";
import { fromHex, toHex } from "../bytes/index.ts";
import {
	contextTag,
	derAlgorithmIdentifier,
	derExplicit,
	derHeader,
	derInteger,
	derLength,
	derNull,
	derOctetString,
	derOid,
	derSequence,
	derSetOf,
	derTlv,
	TAG,
	tlvSize,
} from "./der.ts";
import { decodeOid, encodeOid } from "./oid.ts";

describe("DER lengths and headers (X.690 §10.1)", () => {
	it("uses the short form below 128 and the minimal long form above", () => {
		expect(toHex(derLength(0))).toBe("00");
		expect(toHex(derLength(127))).toBe("7f");
		expect(toHex(derLength(128))).toBe("8180");
		expect(toHex(derLength(255))).toBe("81ff");
		expect(toHex(derLength(256))).toBe("820100");
		expect(toHex(derLength(2 ** 31))).toBe("8480000000");
		expect(toHex(derLength(2 ** 40 + 1))).toBe("86010000000001");
		expect(() => derLength(-1)).toThrow();
		expect(() => derLength(1.5)).toThrow();
	});

	it("headers carry the identifier octet as given and tlvSize agrees", () => {
		expect(toHex(derHeader(TAG.SEQUENCE, 3))).toBe("3003");
		expect(toHex(derHeader(contextTag(0, false), 70_000))).toBe("8083011170");
		expect(toHex(derHeader(contextTag(0, true), 1))).toBe("a001");
		for (const n of [0, 1, 127, 128, 255, 256, 65_535, 65_536, 2 ** 31 + 7]) {
			expect(tlvSize(n)).toBe(derHeader(0x04, n).byteLength + n);
		}
		expect(() => derHeader(0x1f, 1)).toThrow();
	});
});

describe("DER values", () => {
	it("INTEGER is minimal two's complement; magnitudes get a 0x00 when the high bit is set", () => {
		expect(toHex(derInteger(0))).toBe("020100");
		expect(toHex(derInteger(127))).toBe("02017f");
		expect(toHex(derInteger(128))).toBe("02020080");
		expect(toHex(derInteger(256))).toBe("02020100");
		expect(toHex(derInteger(-1))).toBe("0201ff");
		expect(toHex(derInteger(-128))).toBe("020180");
		expect(toHex(derInteger(-129))).toBe("0202ff7f");
		expect(toHex(derInteger(fromHex("0000ff01")))).toBe("020300ff01");
		expect(toHex(derInteger(fromHex("7f")))).toBe("02017f");
	});

	it("OIDs encode and decode (X.690 §8.19), including large arcs", () => {
		for (const oid of [
			"1.2.840.113549.1.9.16.1.9",
			"2.16.840.1.101.3.4.1.46",
			"0.9.2342",
			"2.25.329800735698586629295641978511506172918",
		]) {
			expect(decodeOid(encodeOid(oid))).toBe(oid);
		}
		expect(toHex(derOid("1.2.840.113549.1.7.1"))).toBe("06092a864886f70d010701");
		expect(() => encodeOid("3.1")).toThrow();
		expect(() => encodeOid("1.40")).toThrow();
		expect(() => decodeOid(fromHex("2a86"))).toThrow();
		expect(() => decodeOid(fromHex("80012a"))).toThrow();
		expect(() => decodeOid(new Uint8Array(0))).toThrow();
	});

	it("SET OF sorts its elements by encoding (X.690 §11.6)", () => {
		const a = derOctetString(fromHex("02"));
		const b = derOctetString(fromHex("0101"));
		const c = derInteger(5);
		expect(toHex(derSetOf([a, b, c]))).toBe(`310a${toHex(c)}${toHex(a)}${toHex(b)}`);
	});

	it("a composite structure parses with openssl asn1parse as written", () => {
		const der = derSequence(
			derInteger(0),
			derAlgorithmIdentifier("2.16.840.1.101.3.4.1.2", derOctetString(new Uint8Array(16))),
			derAlgorithmIdentifier("1.2.840.113549.1.1.1", derNull()),
			derExplicit(0, derOctetString(new Uint8Array(300))),
		);
		const text = openssl(["asn1parse", "-inform", "DER", "-i"], der).toString();
		expect(text).toContain("aes-128-cbc");
		expect(text).toContain("rsaEncryption");
		expect(text).toContain("cont [ 0 ]");
		expect(text).toMatch(/hl=4 l= 300 prim: +OCTET STRING/);
	});
});

describe("DER lengths, headers and TLVs against the X.690 §8.1.3 rules (property)", () => {
	it("short form below 128, else 0x80|k and k big-endian octets without leading zero", () => {
		const reference = (n: number): number[] => {
			if (n < 0x80) return [n];
			const octets: number[] = [];
			for (let v = n; v > 0; v = Math.floor(v / 256)) octets.unshift(v % 256);
			return [0x80 | octets.length, ...octets];
		};
		fc.assert(
			fc.property(fc.oneof(fc.nat(300), fc.nat(), fc.maxSafeNat()), fc.nat(0x1e), (n, tag) => {
				expect([...derLength(n)]).toEqual(reference(n));
				expect([...derHeader(tag, n)]).toEqual([tag, ...reference(n)]);
				expect(tlvSize(n)).toBe(1 + reference(n).length + n);
			}),
			{ numRuns: 500 },
		);
		fc.assert(
			fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 4 }), (parts) => {
				const content = parts.flatMap((p) => [...p]);
				expect([...derTlv(0x30, ...parts)]).toEqual([0x30, ...reference(content.length), ...content]);
			}),
			{ numRuns: 200 },
		);
	});
});
