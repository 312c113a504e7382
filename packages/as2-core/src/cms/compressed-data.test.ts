import { constants, deflateRawSync, deflateSync } from "node:zlib";
import pako from "pako";
import { describe, expect, it } from "vitest";
import { cpuStopwatch } from "../../test/helpers/cpu-time.ts";
import { openssl } from "../../test/helpers/openssl.ts";
import { derHeader, derOctetString, derOid, derSequence, encodeOid, TAG } from "../asn1/index.ts";
import {
	type ByteSource,
	type Chunks,
	chunksOf,
	collect,
	concatBytes,
	equalBytes,
	sourceFromBytes,
	utf8,
} from "../bytes/index.ts";
import { randomBytes } from "../crypto/index.ts";
import { isAs2Error } from "../errors/index.ts";
import { compress, decompress } from "./compressed-data.ts";
import { id_alg_zlibCompress, id_ct_compressedData, id_data } from "./content-info.ts";

const text = utf8(
	Array.from({ length: 4000 }, (_, i) => `UNH+${i}+ORDERS:D:96A:UN'BGM+220+PO${i}+9'DTM+137:20260101:102'\r\n`).join(
		"",
	),
);
const binary = randomBytes(70_001);

/** `openssl cms -compress` needs an OpenSSL built with zlib; Debian's is not. */
const opensslHasZlib = (() => {
	try {
		openssl(["cms", "-compress", "-binary", "-outform", "DER"], utf8("probe"));
		return true;
	} catch {
		return false;
	}
})();

async function* byteByByte(bytes: Uint8Array): Chunks {
	for (let i = 0; i < bytes.byteLength; i++) yield bytes.subarray(i, i + 1);
}

async function inflated(der: Uint8Array | Chunks, opts?: Parameters<typeof decompress>[1]): Promise<Uint8Array> {
	return collect(await decompress(der instanceof Uint8Array ? chunksOf(der) : der, opts));
}

async function outcome(der: Uint8Array | Chunks, opts?: Parameters<typeof decompress>[1]): Promise<string> {
	try {
		await inflated(der, opts);
		return "ok";
	} catch (error) {
		if (!isAs2Error(error)) throw error;
		return error.code;
	}
}

/** BER with indefinite lengths: tag, 0x80, parts, end-of-contents. */
const indefinite = (tag: number, ...parts: Uint8Array[]) =>
	concatBytes([Uint8Array.of(tag, 0x80), ...parts, Uint8Array.of(0, 0)]);

/** A CompressedData around a zlib stream, as a vendor streaming BER would send it. */
function berCompressedData(zlibStream: Uint8Array, segment = 1000): Uint8Array {
	const segments: Uint8Array[] = [];
	for (let i = 0; i < zlibStream.byteLength; i += segment)
		segments.push(derOctetString(zlibStream.subarray(i, i + segment)));
	return indefinite(
		TAG.SEQUENCE,
		derOid(id_ct_compressedData),
		indefinite(
			0xa0,
			indefinite(
				TAG.SEQUENCE,
				Uint8Array.of(2, 1, 0),
				derSequence(derOid(id_alg_zlibCompress)),
				indefinite(TAG.SEQUENCE, derOid(id_data), indefinite(0xa0, indefinite(0x24, ...segments))),
			),
		),
	);
}

describe("compress", () => {
	it("writes RFC 3274 CompressedData in DER, with the declared size, the same on every open()", async () => {
		const source = await compress(sourceFromBytes(text));
		const der = await collect(source.open());
		expect(der.byteLength).toBe(source.size);
		expect(equalBytes(await collect(source.open()), der)).toBe(true);
		const parsed = openssl(["asn1parse", "-inform", "DER", "-i"], der).toString();
		expect(parsed).toContain("id-smime-ct-compressedData");
		expect(parsed).toContain("zlib compression");
		expect(parsed).toContain("pkcs7-data");
		expect(parsed).not.toContain("inf");
		expect(parsed).toMatch(/d=3 +hl=2 l= +1 prim: +INTEGER +:00/);
		// eContent [0] EXPLICIT OCTET STRING: inflate it with an independent implementation (pako).
		const match = /(\d+):d=5 +hl=(\d) +l= *(\d+) prim: +OCTET STRING/.exec(parsed);
		expect(match).not.toBeNull();
		const [, offset, hl, length] = match!.map(Number) as [number, number, number, number];
		const zlibStream = der.subarray(offset + hl, offset + hl + length);
		expect(equalBytes(pako.inflate(zlibStream), text)).toBe(true);
		expect(der.byteLength).toBeLessThan(text.byteLength / 5);
	});

	it("output depends only on the bytes, not on how the source chunks them", async () => {
		const whole = await collect((await compress(sourceFromBytes(text), { level: 9 })).open());
		const oneByOne = await compress({ size: text.byteLength, open: () => byteByByte(text) }, { level: 9 });
		expect(equalBytes(await collect(oneByOne.open()), whole)).toBe(true);
	});

	it("round-trips empty, text and incompressible content at several levels", async () => {
		for (const data of [new Uint8Array(0), text, binary]) {
			for (const level of [0, 1, 6, 9]) {
				const der = await collect((await compress(sourceFromBytes(data), { level })).open());
				expect(equalBytes(await inflated(der), data)).toBe(true);
			}
		}
		await expect(compress(sourceFromBytes(text), { level: 12 })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
	});

	it("fails the stream if a large source changes between passes", async () => {
		// Above 1 MiB the content is compressed twice (counting pass, then sending pass).
		const size = 2 << 20;
		let pass = 0;
		const fickle: ByteSource = {
			size,
			async *open() {
				pass++;
				yield pass === 1 ? new Uint8Array(size) : randomBytes(size);
			},
		};
		const source = await compress(fickle);
		await expect(collect(source.open())).rejects.toMatchObject({ code: "INTERNAL_ERROR" });
	});
});

describe.runIf(opensslHasZlib)("openssl cms -compress / -uncompress (OpenSSL built with zlib)", () => {
	it("ours → openssl", async () => {
		const der = await collect((await compress(sourceFromBytes(text))).open());
		const out = openssl(["cms", "-uncompress", "-inform", "DER", "-binary"], der);
		expect(equalBytes(out, text)).toBe(true);
	});
	it("openssl → ours, DER and BER", async () => {
		for (const stream of [[], ["-stream"]]) {
			const der = new Uint8Array(openssl(["cms", "-compress", "-binary", "-outform", "DER", ...stream], text));
			expect(equalBytes(await inflated(der), text)).toBe(true);
		}
	});
});

describe("decompress", () => {
	it.skipIf(opensslHasZlib)("this OpenSSL has no zlib: structure is checked with asn1parse, content with pako", () => {
		expect(() => openssl(["cms", "-compress", "-binary", "-outform", "DER"], text)).toThrow(
			/unsupported compression algorithm/,
		);
	});

	it("reads BER: indefinite lengths and a constructed OCTET STRING, even fed 1 byte at a time", async () => {
		const ber = berCompressedData(deflateSync(text));
		expect(openssl(["asn1parse", "-inform", "DER"], ber).toString()).toContain("inf");
		expect(equalBytes(await inflated(ber), text)).toBe(true);
		const small = berCompressedData(deflateSync(text.subarray(0, 2000)), 100);
		expect(equalBytes(await inflated(byteByByte(small)), text.subarray(0, 2000))).toBe(true);
	});

	it("reads pako's zlib streams (another deflate implementation)", async () => {
		const ber = berCompressedData(pako.deflate(binary, { level: 9 }), 4096);
		expect(equalBytes(await inflated(ber), binary)).toBe(true);
	});

	it("corrupt or truncated zlib data is DECOMPRESSION_FAILED; broken structure MALFORMED_CMS", async () => {
		const good = deflateSync(text);
		const corrupt = good.slice();
		corrupt[100]! ^= 0x55;
		corrupt[101]! ^= 0xaa;
		expect(await outcome(berCompressedData(corrupt))).toBe("DECOMPRESSION_FAILED");
		expect(await outcome(berCompressedData(good.subarray(0, good.byteLength - 10)))).toBe("DECOMPRESSION_FAILED");
		expect(await outcome(berCompressedData(utf8("not zlib at all")))).toBe("DECOMPRESSION_FAILED");
		const der = await collect((await compress(sourceFromBytes(text))).open());
		for (let cut = 0; cut < der.byteLength; cut += 211) {
			expect(["MALFORMED_CMS", "DECOMPRESSION_FAILED"]).toContain(await outcome(der.subarray(0, cut)));
		}
		expect(await outcome(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x00]))).toBe("MALFORMED_CMS");
	});

	it("an algorithm other than zlib is UNSUPPORTED_ALGORITHM", async () => {
		const ber = berCompressedData(deflateSync(text));
		const zlibOid = encodeOid(id_alg_zlibCompress);
		const at = Buffer.from(ber).indexOf(Buffer.from(zlibOid));
		const other = ber.slice();
		other[at + zlibOid.byteLength - 1] = 9;
		expect(await outcome(other)).toBe("UNSUPPORTED_ALGORITHM");
	});

	/** `megabytes` MiB of zeros as independently flushed deflate segments (~1 KiB each), streamed. */
	function zeroBomb(megabytes: number): { chunks: () => Chunks; fed: () => number; segmentSize: number } {
		const segment = deflateRawSync(new Uint8Array(1 << 20), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
		const total = megabytes * 2 ** 20;
		// Adler-32 of zeros (RFC 1950 §8.2): a stays 1, b adds 1 per byte.
		const adler = ((total % 65521) * 65536 + 1) >>> 0;
		const trailer = Uint8Array.of(0x03, 0x00, adler >>> 24, (adler >>> 16) & 0xff, (adler >>> 8) & 0xff, adler & 0xff);
		const zlibSize = 2 + segment.byteLength * megabytes + trailer.byteLength;
		const octets = derHeader(TAG.OCTET_STRING, zlibSize);
		const encap = concatBytes([derOid(id_data), derHeader(0xa0, octets.byteLength + zlibSize), octets]);
		const body = concatBytes([
			Uint8Array.of(2, 1, 0),
			derSequence(derOid(id_alg_zlibCompress)),
			derHeader(TAG.SEQUENCE, encap.byteLength + zlibSize),
			encap,
		]);
		const compressedData = derHeader(TAG.SEQUENCE, body.byteLength + zlibSize);
		const explicit = derHeader(0xa0, compressedData.byteLength + body.byteLength + zlibSize);
		const type = derOid(id_ct_compressedData);
		const rest = type.byteLength + explicit.byteLength + compressedData.byteLength + body.byteLength + zlibSize;
		const head = concatBytes([
			derHeader(TAG.SEQUENCE, rest),
			type,
			explicit,
			compressedData,
			body,
			Uint8Array.of(0x78, 0xda),
		]);
		let fed = 0;
		return {
			segmentSize: segment.byteLength,
			fed: () => fed,
			async *chunks() {
				fed = 0;
				yield head;
				for (let i = 0; i < megabytes; i++) {
					fed += segment.byteLength;
					yield segment;
				}
				yield trailer;
			},
		};
	}

	it("the zero bomb used below is a well-formed CompressedData", async () => {
		const small = zeroBomb(3);
		const out = await inflated(small.chunks(), { maxRatio: 1e9 });
		expect(out.byteLength).toBe(3 * 2 ** 20);
		expect(out.every((b) => b === 0)).toBe(true);
	});

	it("stops a 1 GiB zip bomb fast, in bounded memory, by ratio and by size", async () => {
		const bomb = zeroBomb(1024);
		const base = process.memoryUsage();
		const cpuMs = cpuStopwatch();
		expect(await outcome(bomb.chunks())).toBe("DECOMPRESSION_FAILED");
		expect(cpuMs()).toBeLessThan(5000);
		// Up to 256 KiB is read ahead to try the one-shot path for small messages.
		expect(bomb.fed()).toBeLessThan(256 * 1024 + 64 * bomb.segmentSize);

		const err = await decompress(bomb.chunks(), { maxOutputBytes: 32 * 2 ** 20, maxRatio: 1e9 })
			.then(collect)
			.catch((e: unknown) => e);
		expect(err).toMatchObject({ code: "DECOMPRESSION_FAILED", message: expect.stringContaining("exceeds") });
		expect(bomb.fed()).toBeLessThan(256 * 1024 + 64 * bomb.segmentSize);
		expect(process.memoryUsage().arrayBuffers - base.arrayBuffers).toBeLessThan(64 * 2 ** 20);
	});
});
