import { constants, publicEncrypt } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { ContentEncryptionAlgorithm, DigestAlgorithm } from "../src/algorithms.ts";
import { type PackOptions, pack } from "../src/as2/pack.ts";
import { BUFFERED_MAX_BYTES, type ByteSource, collect } from "../src/bytes/index.ts";
import type { KeyTransportScheme, PublicKey } from "../src/crypto/index.ts";
import { parties } from "./helpers/identities.ts";
import { streamingSource, unpackBothWays } from "./helpers/paths.ts";

/**
 * pack() and unpack() take a buffered path for small bodies in memory and a streaming path
 * otherwise. For the same inputs both must give the same bytes and the same reading: here
 * the randomness of pack (boundaries, keys, IVs, RSA padding) is made repeatable so the two
 * bodies can be compared byte for byte.
 */

let seed = 0;
/**
 * Set while unpacking damaged messages: a key that fails to unwrap is replaced by a random
 * one (RFC 3218 §2.3.2) and what the garbage it decrypts to looks like decides between
 * DECRYPTION_FAILED and MALFORMED_MIME, so every reading must get the same "random" key.
 */
let constantRandom = false;
function nextByte(): number {
	if (constantRandom) return 0x5a;
	seed = (seed * 1103515245 + 12345) >>> 0;
	return (seed >>> 16) & 0xff;
}
function repeatableBytes(n: number): Uint8Array {
	return Uint8Array.from({ length: n }, nextByte);
}

vi.mock("../src/crypto/digest.ts", async (importOriginal) => {
	const actual = await importOriginal<typeof import("../src/crypto/digest.ts")>();
	return { ...actual, randomBytes: (n: number) => repeatableBytes(n) };
});

// pack() reads a small streamed payload into memory and takes its buffered path: here it is
// kept streaming, so that the streaming path (every payload over BUFFERED_MAX_BYTES) is
// compared with the buffered one on small inputs too.
vi.mock("../src/bytes/index.ts", async (importOriginal) => {
	const actual = await importOriginal<typeof import("../src/bytes/index.ts")>();
	return { ...actual, inMemoryIfSmall: async (source: ByteSource) => source };
});

// RSAES-PKCS1-v1_5 (RFC 8017 §7.2.1) with a repeatable non-zero padding string.
vi.mock("../src/crypto/key-transport.ts", async (importOriginal) => {
	const actual = await importOriginal<typeof import("../src/crypto/key-transport.ts")>();
	return {
		...actual,
		wrapKey: (publicKey: PublicKey, key: Uint8Array, scheme: KeyTransportScheme) => {
			if (scheme.padding !== "pkcs1") throw new Error("only PKCS#1 v1.5 is repeatable here");
			const k = 256;
			const em = new Uint8Array(k);
			em[1] = 2;
			for (let i = 2; i < k - key.byteLength - 1; i++) em[i] = (nextByte() % 255) + 1;
			em.set(key, k - key.byteLength);
			return new Uint8Array(publicEncrypt({ key: publicKey, padding: constants.RSA_NO_PADDING }, em));
		},
	};
});

const { alice, bob, aliceSigner, bobIdentity } = parties();

interface Layers {
	sign?: DigestAlgorithm;
	cipher?: ContentEncryptionAlgorithm;
	compress?: "before-sign" | "after-sign";
	transferEncoding: "binary" | "base64";
	contentType: string;
}

function packOptions(layers: Layers): Omit<PackOptions, "payload"> {
	return {
		contentType: layers.contentType,
		filename: "po.x12",
		from: "ALICE",
		to: "BOB",
		messageId: "paths-1@as2kit.test",
		date: new Date("2026-01-02T03:04:05Z"),
		transferEncoding: layers.transferEncoding,
		...(layers.sign
			? { sign: { ...aliceSigner, digest: layers.sign, signingTime: new Date("2026-01-02T03:04:05Z") } }
			: {}),
		...(layers.cipher ? { encrypt: { certificates: [bob.certDer], algorithm: layers.cipher } } : {}),
		...(layers.compress ? { compress: layers.compress } : {}),
		mdn: { mode: "sync", signed: ["sha256"] },
	};
}

/** Packs the payload both ways from the same random state; both bodies must be identical. */
async function packBothWays(payload: Uint8Array, layers: Layers) {
	seed = 42;
	const buffered = await pack({ ...packOptions(layers), payload });
	const bufferedBody = await collect(buffered.body.open());
	seed = 42;
	const streaming = await pack({ ...packOptions(layers), payload: streamingSource(payload) });
	const streamingBody = await collect(streaming.body.open());

	expect(buffered.body.bytes, "pack took its buffered path").toBeDefined();
	expect(streaming.body.bytes, "pack took its streaming path").toBeUndefined();
	expect(buffered.headers.entries()).toEqual(streaming.headers.entries());
	expect(buffered.body.size).toBe(streaming.body.size);
	expect(Buffer.from(bufferedBody).equals(Buffer.from(streamingBody))).toBe(true);
	expect(bufferedBody.byteLength).toBe(buffered.body.size);
	expect(await buffered.mic()).toEqual(await streaming.mic());
	return { headers: buffered.headers.entries(), body: bufferedBody, mic: await buffered.mic() };
}

const unpackOptions = { identities: [bobIdentity], partnerCertificates: [alice.certDer] };

const LAYERS: Layers[] = [undefined, "sha1", "sha256", "sha512"]
	.flatMap((sign) =>
		[undefined, "3des", "aes256", "aes128-gcm"].flatMap((cipher) =>
			[undefined, "before-sign", "after-sign"].flatMap((compress) =>
				(["binary", "base64"] as const).flatMap((transferEncoding) =>
					["application/edi-x12", "text/plain"].map(
						(contentType) => ({ sign, cipher, compress, transferEncoding, contentType }) as Layers,
					),
				),
			),
		),
	)
	.filter((l) => !(l.compress === "after-sign" && !l.sign));

const TEXT = new TextEncoder().encode("ISA*00*~\nGS*PO\r\nST*850\rSE*2~\n\n".repeat(120));

describe("buffered and streaming paths agree", () => {
	it.each(LAYERS)("pack and unpack: %o", async (layers) => {
		const packed = await packBothWays(TEXT, layers);
		const outcome = await unpackBothWays({ ...unpackOptions, headers: packed.headers }, packed.body);
		expect(outcome).toMatchObject({ ok: true, report: { mic: packed.mic } });
	});

	it("any payload, layers and chunking (property)", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.oneof(fc.uint8Array({ maxLength: 3000 }), fc.uint8Array({ minLength: 20000, maxLength: 40000 })),
				fc.constantFrom(...LAYERS),
				async (payload, layers) => {
					const packed = await packBothWays(payload, layers);
					const outcome = await unpackBothWays({ ...unpackOptions, headers: packed.headers }, packed.body);
					// RFC 5751 §3.1.1: signed text goes in canonical CRLF form.
					const text = Buffer.from(payload).toString("latin1");
					const expected =
						layers.sign && layers.contentType === "text/plain" ? text.replace(/\r\n|\r|\n/g, "\r\n") : text;
					expect(outcome).toMatchObject({ ok: true, payload: Buffer.from(expected, "latin1").toString("hex") });
				},
			),
			{ numRuns: 40 },
		);
	});

	it("a body over BUFFERED_MAX_BYTES streams in both entry points", async () => {
		const payload = repeatableBytes(BUFFERED_MAX_BYTES + 1);
		const message = await pack({ ...packOptions({ transferEncoding: "binary", contentType: "a/b" }), payload });
		expect(message.body.bytes).toBeUndefined();
		const body = await collect(message.body.open());
		await unpackBothWays({ ...unpackOptions, headers: message.headers }, body, { buffered: "may-fall-back" });
	});
});

describe("buffered and streaming paths fail alike", () => {
	it("damaged messages (flipped, cut, inserted bytes) get the same outcome from both (property)", async () => {
		const messages = [];
		for (const layers of LAYERS.filter((_, i) => i % 7 === 0)) messages.push(await packBothWays(TEXT, layers));
		constantRandom = true;
		const damage = fc.tuple(fc.constantFrom("flip", "cut", "insert"), fc.nat(), fc.integer({ min: 1, max: 255 }));
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom(...messages),
				fc.array(damage, { minLength: 1, maxLength: 2 }),
				async (message, damages) => {
					let body = Buffer.from(message.body);
					for (const [kind, where, value] of damages) {
						const at = where % body.length;
						if (kind === "flip") body[at] = body[at]! ^ value;
						else if (kind === "cut") body = body.subarray(0, at);
						else body = Buffer.concat([body.subarray(0, at), Buffer.of(value), body.subarray(at)]);
						if (body.length === 0) break;
					}
					await unpackBothWays({ ...unpackOptions, headers: message.headers }, new Uint8Array(body), {
						buffered: "may-fall-back",
					});
				},
			),
			{ numRuns: 300 },
		);
		constantRandom = false;
	});
});
