import { constants, generateKeyPairSync, privateDecrypt, publicEncrypt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { equalBytes } from "../bytes/index.ts";
import { decodeOaep } from "./oaep-decode.ts";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const cek = new Uint8Array(24).map((_, i) => i + 7);
const fallback = new Uint8Array(24).fill(0xee);

/** The EME-OAEP block the runtime wrote (its MGF1 uses the OAEP hash), recovered by raw RSA. */
function encodedBlock(hash: string, label?: Uint8Array): Uint8Array {
	const c = publicEncrypt(
		{
			key: publicKey,
			padding: constants.RSA_PKCS1_OAEP_PADDING,
			oaepHash: hash,
			...(label ? { oaepLabel: label } : {}),
		},
		cek,
	);
	return new Uint8Array(privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, c));
}

describe("EME-OAEP decoding (RFC 8017 §7.1.2)", () => {
	it("decodes what the runtime's OAEP encoded, for each hash and with a label", () => {
		for (const hash of ["sha1", "sha256", "sha384", "sha512"] as const) {
			const out = decodeOaep(encodedBlock(hash), { hash, mgfHash: hash }, 24, fallback);
			expect(out.valid).toBe(true);
			expect(equalBytes(out.key, cek)).toBe(true);
		}
		const label = new Uint8Array([1, 2, 3]);
		expect(
			decodeOaep(encodedBlock("sha256", label), { hash: "sha256", mgfHash: "sha256", label }, 24, fallback).valid,
		).toBe(true);
		expect(decodeOaep(encodedBlock("sha256", label), { hash: "sha256", mgfHash: "sha256" }, 24, fallback).valid).toBe(
			false,
		);
	});

	it("any damaged octet, another MGF1 hash or another key length gives the fallback key, not an error", () => {
		const em = encodedBlock("sha256");
		for (let i = 0; i < em.byteLength; i += 7) {
			const damaged = em.slice();
			damaged[i]! ^= 0x01;
			const out = decodeOaep(damaged, { hash: "sha256", mgfHash: "sha256" }, 24, fallback);
			expect(out.valid, `octet ${i}`).toBe(false);
			expect(equalBytes(out.key, fallback)).toBe(true);
		}
		expect(decodeOaep(em, { hash: "sha256", mgfHash: "sha1" }, 24, fallback).valid).toBe(false);
		expect(decodeOaep(em, { hash: "sha256", mgfHash: "sha256" }, 16, fallback.subarray(0, 16)).valid).toBe(false);
		expect(decodeOaep(em.subarray(0, 40), { hash: "sha512", mgfHash: "sha512" }, 24, fallback).valid).toBe(false);
	});
});
