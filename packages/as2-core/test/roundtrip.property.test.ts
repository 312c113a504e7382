import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { ContentEncryptionAlgorithm, DigestAlgorithm } from "../src/algorithms.ts";
import { type PackOptions, pack } from "../src/as2/pack.ts";
import { unpack, unpackBuffered } from "../src/as2/unpack.ts";
import { BUFFERED_MAX_BYTES, type ByteSource, collect } from "../src/bytes/index.ts";
import { parties } from "./helpers/identities.ts";
import { streamed, streamingSource } from "./helpers/paths.ts";

// pack() reads a small streamed payload into memory: kept streaming here, so that small
// payloads also go through the streaming path (every payload over BUFFERED_MAX_BYTES).
vi.mock("../src/bytes/index.ts", async (importOriginal) => {
	const actual = await importOriginal<typeof import("../src/bytes/index.ts")>();
	return { ...actual, inMemoryIfSmall: async (source: ByteSource) => source };
});

const { aliceSigner, bobIdentity, alice } = parties();

interface Layers {
	sign?: DigestAlgorithm;
	cipher?: ContentEncryptionAlgorithm;
	compress?: "before-sign" | "after-sign";
	transferEncoding: "binary" | "base64";
}

/**
 * Packs on both of pack()'s paths (payload as bytes: buffered; as a stream: streaming) and
 * reads each message on both of unpack()'s readers; every reading must give the same
 * payload and the MIC the sender computed. Returns the payload read.
 */
async function roundTrip(payload: Uint8Array, layers: Layers, extra: Partial<PackOptions> = {}) {
	const outs: Uint8Array[] = [];
	for (const source of [payload, streamingSource(payload)]) {
		const message = await pack({
			payload: source,
			contentType: "application/octet-stream",
			from: "ALICE",
			to: "BOB",
			transferEncoding: layers.transferEncoding,
			...(layers.sign ? { sign: { ...aliceSigner, digest: layers.sign } } : {}),
			...(layers.cipher ? { encrypt: { certificates: [bobIdentity.certificate], algorithm: layers.cipher } } : {}),
			...(layers.compress ? { compress: layers.compress } : {}),
			...extra,
		});
		const body = await collect(message.body.open());
		const options = { headers: message.headers, identities: [bobIdentity], partnerCertificates: [alice.certDer] };
		const direct = await unpackBuffered({ ...options, body });
		if (body.byteLength <= BUFFERED_MAX_BYTES) expect(direct, "the buffered reader reads it itself").toBeDefined();
		for (const input of [body, streamed(body, 7919)]) {
			const received = await unpack({ ...options, body: input });
			outs.push(await collect(received.payload));
			const report = await received.complete();
			expect(report.mic).toEqual(await message.mic());
		}
	}
	for (const out of outs) expect(Buffer.from(out).equals(Buffer.from(outs[0]!))).toBe(true);
	return { out: outs[0]! };
}

const layersArbitrary: fc.Arbitrary<Layers> = fc.record({
	sign: fc.constantFrom(undefined, "sha1", "sha256", "sha512"),
	cipher: fc.constantFrom(undefined, "3des", "aes128", "aes256", "aes128-gcm", "aes256-gcm"),
	compress: fc.constantFrom(undefined, "before-sign", "after-sign"),
	transferEncoding: fc.constantFrom("binary", "base64"),
}) as fc.Arbitrary<Layers>;

const textWithMixedLineEndings = fc
	.array(fc.tuple(fc.string({ maxLength: 40 }), fc.constantFrom("\r\n", "\n", "\r", "")), { maxLength: 60 })
	.map((lines) => new TextEncoder().encode(lines.map(([l, eol]) => l + eol).join("")));

const payloadArbitrary = fc.oneof(
	fc.uint8Array({ maxLength: 20_000 }),
	textWithMixedLineEndings,
	fc.constant(new Uint8Array(0)),
	fc.integer({ min: 0, max: 255 }).map((b) => Uint8Array.of(b)),
);

describe("property: any payload round-trips byte-exact through any layer combination, on both paths", () => {
	it("random payloads × random layers", async () => {
		await fc.assert(
			fc.asyncProperty(payloadArbitrary, layersArbitrary, async (payload, layers) => {
				const { out } = await roundTrip(payload, layers);
				expect(Buffer.from(out).equals(Buffer.from(payload))).toBe(true);
			}),
			{ numRuns: 80 },
		);
	});

	it("text/plain is byte-exact with canonicalization off, and CRLF-canonical when signed with it on", async () => {
		await fc.assert(
			fc.asyncProperty(textWithMixedLineEndings, async (text) => {
				const layers: Layers = { sign: "sha256", transferEncoding: "binary" };
				const exact = await roundTrip(text, layers, { contentType: "text/plain", canonicalizeText: false });
				expect(Buffer.from(exact.out).equals(Buffer.from(text))).toBe(true);
				const canonical = await roundTrip(text, layers, { contentType: "text/plain" });
				const expected = Buffer.from(text)
					.toString("latin1")
					.replace(/\r\n|\r|\n/g, "\r\n");
				expect(Buffer.from(canonical.out).toString("latin1")).toBe(expected);
			}),
			{ numRuns: 25 },
		);
	});

	it("a several-MB payload through every combination", async () => {
		const big = new Uint8Array(3 * 1024 * 1024 + 17);
		for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
		for (const sign of [undefined, "sha256"] as const) {
			for (const cipher of [undefined, "aes256", "aes256-gcm"] as const) {
				for (const compress of [undefined, "before-sign", "after-sign"] as const) {
					const { out } = await roundTrip(big, { sign, cipher, compress, transferEncoding: "binary" });
					expect(Buffer.from(out).equals(Buffer.from(big))).toBe(true);
				}
			}
		}
	});
});
