import { describe, expect, it } from "vitest";
import { errorCode as code } from "../../test/helpers/error-code.ts";
import { ByteReader, type Chunks, chunksOf, collect, concatBytes, equalBytes, fromHex, toHex } from "../bytes/index.ts";
import { decodeHeader } from "./ber-header.ts";
import { BerReader } from "./ber-reader.ts";
import { toDefiniteLength } from "./definite-length.ts";
import { derHeader, derOctetString, derSequence, TAG } from "./der.ts";

const ind = (tag: number, ...parts: Uint8Array[]) =>
	concatBytes([Uint8Array.of(tag, 0x80), ...parts, Uint8Array.of(0, 0)]);

async function* chunked(bytes: Uint8Array, size: number): Chunks {
	for (let i = 0; i < bytes.byteLength; i += size) yield bytes.subarray(i, i + size);
}

const readerOf = (bytes: Uint8Array, size = 1) => new BerReader(new ByteReader(chunked(bytes, size)));

describe("BER headers (X.690 §8.1.2, §8.1.3)", () => {
	it("decodes short, long, indefinite, high tag numbers; asks for more when cut", () => {
		expect(decodeHeader(fromHex("3003"))).toMatchObject({ tag: 0x30, constructed: true, length: 3, headerLength: 2 });
		expect(decodeHeader(fromHex("24800400"))).toMatchObject({ tag: 0x24, length: undefined, headerLength: 2 });
		expect(decodeHeader(fromHex("8082ffff"))).toMatchObject({
			tagClass: 2,
			tagNumber: 0,
			constructed: false,
			length: 65_535,
		});
		expect(decodeHeader(fromHex("0481050000"))).toMatchObject({ length: 5, headerLength: 3 }); // non-minimal: BER allows it
		expect(decodeHeader(fromHex("bf8a3b00"))).toMatchObject({ tagClass: 2, tagNumber: 1339, headerLength: 4 });
		expect(decodeHeader(fromHex("3082ff"))).toBeUndefined();
		expect(decodeHeader(fromHex("30"))).toBeUndefined();
	});

	it("rejects what no encoder may send", () => {
		for (const hex of ["0480", "30ff", "3089010203040506070809", "3088ffffffffffffffff", "1f80"]) {
			expect(() => decodeHeader(fromHex(hex))).toThrow(expect.objectContaining({ code: "MALFORMED_CMS" }));
		}
	});
});

describe("BerReader", () => {
	it("walks, captures, streams and skips a BER structure fed 1 byte at a time", async () => {
		for (const size of [1, 3, 1000]) {
			const ber = readerOf(sample(), size);
			ber.enter(await ber.expect(TAG.SEQUENCE, "outer"));
			expect(toHex(await ber.readElement(16, "int"))).toBe("020100");
			await ber.enterExplicit(0, "[0]");
			const octets = await ber.readHeader();
			expect(toHex(await collect(ber.octetString(octets)))).toBe("010203");
			await ber.leave();
			expect(toHex(await ber.readElement(16, "seq"))).toBe("30020500");
			expect(await ber.hasMore()).toBe(true);
			await ber.skipElement();
			expect(await ber.hasMore()).toBe(false);
			await ber.leave();
			expect(await ber.input.atEnd()).toBe(true);
		}
	});

	it("captures an indefinite element as received and leaves skip what was not read", async () => {
		const ber = readerOf(sample(), 2);
		ber.enter(await ber.readHeader());
		await ber.skipElement();
		const raw = await ber.readElement(100, "[0]");
		expect(raw[1]).toBe(0x80);
		expect(toHex(toDefiniteLength(raw))).toBe("a0050403010203");
		await ber.leave();
		expect(await ber.input.atEnd()).toBe(true);
	});

	it("streams definite-length constructed OCTET STRINGs and primitive ones without copying", async () => {
		const payload = new Uint8Array(200_000).map((_, i) => i % 251);
		const segments = [payload.subarray(0, 70_000), payload.subarray(70_000, 70_001), payload.subarray(70_001)].map(
			derOctetString,
		);
		const body = concatBytes(segments);
		const constructed = concatBytes([derHeader(0x24, body.byteLength), body]);
		for (const bytes of [constructed, derOctetString(payload)]) {
			const ber = new BerReader(new ByteReader(chunksOf(bytes, 65_536)));
			const out = await collect(ber.octetString(await ber.readHeader()));
			expect(equalBytes(out, payload)).toBe(true);
		}
	});

	it("caps buffered elements with MESSAGE_TOO_LARGE before reading them", async () => {
		const big = derOctetString(new Uint8Array(5000));
		expect(await code(readerOf(big, 4096).readElement(4096, "x"))).toBe("MESSAGE_TOO_LARGE");
		const huge = fromHex("04850100000000"); // claims 2^32 bytes, sends none
		expect(await code(readerOf(huge).readElement(1 << 20, "x"))).toBe("MESSAGE_TOO_LARGE");
		const nested = ind(TAG.SEQUENCE, ind(TAG.SEQUENCE, derOctetString(new Uint8Array(3000))));
		expect(await code(readerOf(nested, 512).readElement(2000, "x"))).toBe("MESSAGE_TOO_LARGE");
	});

	it("rejects truncation, children overrunning their parent, deep nesting and bad segments", async () => {
		expect(await code(readerOf(sample().subarray(0, 20)).readElement(1000, "x"))).toBe("MALFORMED_CMS");
		const overrun = fromHex("300404050101");
		const r = readerOf(overrun);
		r.enter(await r.readHeader());
		expect(await code(r.readHeader())).toBe("MALFORMED_CMS");
		const deep = concatBytes(Array.from({ length: 200 }, () => fromHex("3080")));
		expect(await code(readerOf(deep, 7).readElement(1 << 20, "x"))).toBe("MALFORMED_CMS");
		const d = readerOf(deep, 7);
		expect(
			await code(
				(async () => {
					for (;;) d.enter(await d.readHeader());
				})(),
			),
		).toBe("MALFORMED_CMS");
		const badSegment = ind(0x24, fromHex("020101"));
		const s = readerOf(badSegment);
		expect(await code(collect(s.octetString(await s.readHeader())))).toBe("MALFORMED_CMS");
		const cut = ind(0x24, derOctetString(new Uint8Array(10))).subarray(0, 8);
		const t = readerOf(cut);
		expect(await code(collect(t.octetString(await t.readHeader())))).toBe("MALFORMED_CMS");
		expect(await code(readerOf(new Uint8Array(0)).readHeader())).toBe("MALFORMED_CMS");
	});
});

describe("toDefiniteLength", () => {
	it("rewrites indefinite and non-minimal lengths and joins constructed OCTET STRINGs", () => {
		expect(toHex(toDefiniteLength(sample()))).toBe(
			toHex(
				derSequence(
					fromHex("020100"),
					concatBytes([fromHex("a005"), derOctetString(fromHex("010203"))]),
					derSequence(fromHex("0500")),
					fromHex("31030101ff"),
				),
			),
		);
		expect(toHex(toDefiniteLength(fromHex("048102abcd")))).toBe("0402abcd");
		expect(() => toDefiniteLength(fromHex("3080020100"))).toThrow(expect.objectContaining({ code: "MALFORMED_CMS" }));
		expect(() => toDefiniteLength(fromHex("020100ff"))).toThrow(expect.objectContaining({ code: "MALFORMED_CMS" }));
		const deep = concatBytes([
			...Array.from({ length: 100 }, () => fromHex("3080")),
			...Array.from({ length: 100 }, () => fromHex("0000")),
		]);
		expect(() => toDefiniteLength(deep)).toThrow(expect.objectContaining({ code: "MALFORMED_CMS" }));
	});
});

function sample(): Uint8Array {
	return ind(
		TAG.SEQUENCE,
		fromHex("020100"),
		ind(
			0xa0,
			ind(
				0x24,
				derOctetString(fromHex("0102")),
				ind(0x24, derOctetString(fromHex("03"))),
				derOctetString(new Uint8Array(0)),
			),
		),
		derSequence(fromHex("0500")),
		ind(0x31, fromHex("0101ff")),
	);
}
