import { constants, privateDecrypt, publicEncrypt } from "node:crypto";
import { DIGESTS, type DigestAlgorithm } from "../algorithms.ts";
import { randomBytes } from "./digest.ts";
import type { PrivateKey, PublicKey } from "./keys.ts";
import { rsaKeyBits } from "./keys.ts";
import { decodeOaep } from "./oaep-decode.ts";

/**
 * RSA key transport for CMS KeyTransRecipientInfo: RSAES-PKCS1-v1_5 (RFC 3370 §4.2.1,
 * RFC 8017 §7.2) or RSAES-OAEP (RFC 3560, RFC 8017 §7.1). MGF1 uses the OAEP hash, which
 * is what OpenSSL and Node do when no separate MGF1 hash is given; a received `mgfHash`
 * other than `hash` is decrypted (never sent).
 */
export type KeyTransportScheme =
	| { readonly padding: "pkcs1" }
	| {
			readonly padding: "oaep";
			readonly hash: DigestAlgorithm;
			readonly mgfHash?: DigestAlgorithm;
			readonly label?: Uint8Array;
	  };

/** Encrypts a content-encryption key to a recipient's RSA public key. */
export function wrapKey(publicKey: PublicKey, key: Uint8Array, scheme: KeyTransportScheme): Uint8Array {
	if (scheme.padding === "pkcs1") {
		return publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, key);
	}
	if (scheme.mgfHash && scheme.mgfHash !== scheme.hash) throw new Error("OAEP with a separate MGF1 hash is not sent");
	return publicEncrypt(
		{
			key: publicKey,
			padding: constants.RSA_PKCS1_OAEP_PADDING,
			oaepHash: DIGESTS[scheme.hash].nodeName,
			...(scheme.label ? { oaepLabel: scheme.label } : {}),
		},
		key,
	);
}

export interface UnwrappedKey {
	/** The recovered key, or a random key of the expected length when `valid` is false. */
	readonly key: Uint8Array;
	/** Whether the decryption and padding were good and the key had the expected length. */
	readonly valid: boolean;
}

/**
 * Decrypts a wrapped content-encryption key of `keyLength` bytes.
 *
 * PKCS#1 v1.5 is done as raw RSA plus our own unpadding: Node 20 refuses
 * `privateDecrypt` with RSA_PKCS1_PADDING (CVE-2023-46809, the Marvin attack). Whatever
 * goes wrong, the caller gets a random key of the right length rather than an early
 * error (RFC 3218 §2.3.2): the failure then shows as a content-decryption error, and a
 * Bleichenbacher attacker learns nothing from which step failed. `valid` is for choosing
 * among several recipients and for reporting that content-decryption failure; it must not
 * produce a different error or an earlier one.
 */
export function unwrapKey(
	privateKey: PrivateKey,
	encryptedKey: Uint8Array,
	scheme: KeyTransportScheme,
	keyLength: number,
): UnwrappedKey {
	const random = randomBytes(keyLength);
	const mixedOaep = scheme.padding === "oaep" && scheme.mgfHash !== undefined && scheme.mgfHash !== scheme.hash;
	if (scheme.padding === "oaep" && !mixedOaep) {
		let key: Uint8Array | undefined;
		try {
			key = privateDecrypt(
				{
					key: privateKey,
					padding: constants.RSA_PKCS1_OAEP_PADDING,
					oaepHash: DIGESTS[scheme.hash].nodeName,
					...(scheme.label ? { oaepLabel: scheme.label } : {}),
				},
				encryptedKey,
			);
		} catch {
			key = undefined;
		}
		return key !== undefined && key.byteLength === keyLength ? { key, valid: true } : { key: random, valid: false };
	}
	const k = Math.ceil(rsaKeyBits(privateKey) / 8);
	if (k === 0 || encryptedKey.byteLength > k) return { key: random, valid: false };
	// RFC 8017 §7.2.2 step 1: the ciphertext is k octets; some encoders drop leading zeros,
	// and only theirs is copied into k octets (a length is public: no oracle in the branch).
	const c = encryptedKey.byteLength === k ? encryptedKey : leftPadded(encryptedKey, k);
	let em: Uint8Array;
	try {
		em = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, c);
	} catch {
		// c ≥ n: a property of the public ciphertext, not of the plaintext.
		return { key: random, valid: false };
	}
	if (scheme.padding === "oaep") {
		return decodeOaep(
			em,
			{ hash: scheme.hash, mgfHash: scheme.mgfHash!, ...(scheme.label ? { label: scheme.label } : {}) },
			keyLength,
			random,
		);
	}
	return decodePkcs1v15(em, keyLength, random);
}

function leftPadded(bytes: Uint8Array, length: number): Uint8Array {
	const out = new Uint8Array(length);
	out.set(bytes, length - bytes.byteLength);
	return out;
}

/**
 * EME-PKCS1-v1_5 decoding (RFC 8017 §7.2.2 step 3) of an `em` of k octets expecting a
 * message of exactly `keyLength` octets: 0x00 ‖ 0x02 ‖ PS (≥ 8 non-zero octets) ‖ 0x00 ‖ M.
 * Every octet is examined and the result selected with masks rather than branches, so the
 * running time does not depend on where the padding is wrong ("constant-time-ish": this
 * is JavaScript).
 */
export function decodePkcs1v15(em: Uint8Array, keyLength: number, fallback: Uint8Array): UnwrappedKey {
	const k = em.byteLength;
	const separator = k - keyLength - 1;
	// Lengths are public: the separator must leave room for 0x00 0x02 and eight PS octets.
	if (separator < 10 || fallback.byteLength !== keyLength) return { key: fallback, valid: false };
	let bad = em[0]! | (em[1]! ^ 0x02) | em[separator]!;
	for (let i = 2; i < separator; i++) bad |= ((em[i]! - 1) >>> 31) & 1;
	// 0xff when bad === 0, else 0x00.
	const mask = (((bad | -bad) >>> 31) - 1) & 0xff;
	const key = new Uint8Array(keyLength);
	for (let i = 0; i < keyLength; i++) {
		key[i] = (em[separator + 1 + i]! & mask) | (fallback[i]! & ~mask & 0xff);
	}
	return { key, valid: mask === 0xff };
}
