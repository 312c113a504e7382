import { constants, generateKeyPairSync, publicEncrypt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { equalBytes } from "../bytes/index.ts";
import { decodePkcs1v15, unwrapKey, wrapKey } from "./key-transport.ts";
import type { PrivateKey, PublicKey } from "./keys.ts";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const priv = privateKey as PrivateKey;
const pub = publicKey as PublicKey;
const cek = new Uint8Array(32).map((_, i) => i + 1);

describe("RSA key transport", () => {
	it("PKCS#1 v1.5 wraps with node and unwraps with raw RSA plus our unpadding (Node 20 refuses PKCS1 privateDecrypt)", () => {
		const wrapped = wrapKey(pub, cek, { padding: "pkcs1" });
		const out = unwrapKey(priv, wrapped, { padding: "pkcs1" }, 32);
		expect(out.valid).toBe(true);
		expect(equalBytes(out.key, cek)).toBe(true);
		// A ciphertext with its leading zero octets dropped still decrypts.
		let short: Uint8Array | undefined;
		for (let i = 0; i < 5000 && !short; i++) {
			const w = wrapKey(pub, cek, { padding: "pkcs1" });
			if (w[0] === 0) short = w.subarray(1);
		}
		expect(short).toBeDefined();
		expect(equalBytes(unwrapKey(priv, short!, { padding: "pkcs1" }, 32).key, cek)).toBe(true);
	});

	it("RFC 3218 §2.3.2: a wrong length or bad padding yields a random key of the expected length, no error", () => {
		const wrapped = wrapKey(pub, cek, { padding: "pkcs1" });
		const wrongLength = unwrapKey(priv, wrapped, { padding: "pkcs1" }, 16);
		expect(wrongLength.valid).toBe(false);
		expect(wrongLength.key.byteLength).toBe(16);
		const tampered = wrapped.slice();
		tampered[10]! ^= 1;
		const bad = unwrapKey(priv, tampered, { padding: "pkcs1" }, 32);
		expect(bad.valid).toBe(false);
		expect(bad.key.byteLength).toBe(32);
		expect(unwrapKey(priv, new Uint8Array(300), { padding: "pkcs1" }, 32).valid).toBe(false);
		expect(unwrapKey(priv, new Uint8Array(256).fill(0xff), { padding: "pkcs1" }, 32).valid).toBe(false);
	});

	it("OAEP with SHA-1, SHA-256 and a label", () => {
		for (const scheme of [
			{ padding: "oaep", hash: "sha1" },
			{ padding: "oaep", hash: "sha256" },
			{ padding: "oaep", hash: "sha384", label: new Uint8Array([1, 2, 3]) },
		] as const) {
			const wrapped = wrapKey(pub, cek, scheme);
			expect(equalBytes(unwrapKey(priv, wrapped, scheme, 32).key, cek)).toBe(true);
			expect(unwrapKey(priv, wrapped, { padding: "oaep", hash: "sha512" }, 32).valid).toBe(false);
		}
		const viaNode = publicEncrypt({ key: pub, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, cek);
		expect(unwrapKey(priv, viaNode, { padding: "oaep", hash: "sha256" }, 32).valid).toBe(true);
	});

	it("EME-PKCS1-v1_5 decoding checks every rule of RFC 8017 §7.2.2", () => {
		const fallback = new Uint8Array(4).fill(0xee);
		const em = (parts: number[]) => Uint8Array.from(parts);
		const ps = new Array(8).fill(0x11);
		expect(decodePkcs1v15(em([0, 2, ...ps, 0, 1, 2, 3, 4]), 4, fallback)).toEqual({
			key: em([1, 2, 3, 4]),
			valid: true,
		});
		for (const bad of [
			[1, 2, ...ps, 0, 1, 2, 3, 4], // first octet
			[0, 1, ...ps, 0, 1, 2, 3, 4], // block type
			[0, 2, ...ps.slice(1), 0, 1, 2, 3, 4], // PS of 7 octets
			[0, 2, 0x11, 0, ...ps.slice(2), 0x22, 1, 2, 3, 4], // zero inside PS
			[0, 2, ...ps, 0x33, 1, 2, 3, 4], // no separator where the length says
		]) {
			const out = decodePkcs1v15(em(bad), 4, fallback);
			expect(out.valid).toBe(false);
			expect(out.key).toEqual(fallback);
		}
	});
});
