import { DIGESTS, type DigestAlgorithm } from "../algorithms.ts";
import { digestBytes } from "./digest.ts";
import type { UnwrappedKey } from "./key-transport.ts";

/** MGF1 (RFC 8017 Appendix B.2.1): `length` octets of Hash(seed ‖ C) for C = 0, 1, … */
function mgf1(hash: DigestAlgorithm, seed: Uint8Array, length: number): Uint8Array {
	const out = new Uint8Array(length);
	const input = new Uint8Array(seed.byteLength + 4);
	input.set(seed);
	for (let counter = 0, offset = 0; offset < length; counter++) {
		new DataView(input.buffer).setUint32(seed.byteLength, counter);
		const block = digestBytes(hash, input);
		out.set(block.subarray(0, Math.min(block.byteLength, length - offset)), offset);
		offset += block.byteLength;
	}
	return out;
}

/**
 * EME-OAEP decoding (RFC 8017 §7.1.2 step 3) of an `em` of k octets with MGF1 on a hash other
 * than the OAEP hash, which the runtime's RSA-OAEP cannot do: Java's `OAEPWithSHA-256AndMGF1Padding`
 * sends SHA-256 with MGF1-SHA-1, and `openssl cms -keyopt rsa_mgf1_md:…` any pair (RFC 4055 §4.1).
 * As in {@link decodePkcs1v15}, every octet is examined and the key selected with masks, and a
 * failure yields `fallback` (RFC 3218 §2.3.2), not an early error.
 */
export function decodeOaep(
	em: Uint8Array,
	scheme: { hash: DigestAlgorithm; mgfHash: DigestAlgorithm; label?: Uint8Array },
	keyLength: number,
	fallback: Uint8Array,
): UnwrappedKey {
	const k = em.byteLength;
	const hLen = DIGESTS[scheme.hash].size;
	const separatorMax = k - keyLength - 1;
	// Lengths are public: room for Y, seed, lHash, the 0x01 and the key.
	if (k < 2 * hLen + 2 + keyLength || fallback.byteLength !== keyLength) return { key: fallback, valid: false };
	const maskedSeed = em.subarray(1, 1 + hLen);
	const maskedDb = em.subarray(1 + hLen);
	const seedMask = mgf1(scheme.mgfHash, maskedDb, hLen);
	const seed = maskedSeed.map((b, i) => b ^ seedMask[i]!);
	const dbMask = mgf1(scheme.mgfHash, seed, maskedDb.byteLength);
	const db = maskedDb.map((b, i) => b ^ dbMask[i]!);
	const lHash = digestBytes(scheme.hash, scheme.label ?? new Uint8Array(0));
	let bad = em[0]!;
	for (let i = 0; i < hLen; i++) bad |= db[i]! ^ lHash[i]!;
	// The key is the last keyLength octets: DB = lHash ‖ PS (zeros) ‖ 0x01 ‖ key.
	const separator = separatorMax - 1 - hLen; // index of the 0x01 in db
	for (let i = hLen; i < separator; i++) bad |= db[i]!;
	bad |= db[separator]! ^ 0x01;
	const mask = (((bad | -bad) >>> 31) - 1) & 0xff;
	const key = new Uint8Array(keyLength);
	for (let i = 0; i < keyLength; i++) key[i] = (db[separator + 1 + i]! & mask) | (fallback[i]! & ~mask & 0xff);
	return { key, valid: mask === 0xff };
}
