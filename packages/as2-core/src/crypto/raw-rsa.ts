import { constants, publicDecrypt } from "node:crypto";
import type { PublicKey } from "./keys.ts";

/**
 * RSAVP1 (RFC 8017 §5.2.2): `signature`^e mod n as k octets, for verifying a signature over a
 * digest computed while streaming. OpenSSL does it as RSA_NO_PADDING; Deno 2's node:crypto
 * answers "Unknown padding" to that, so there it is done with BigInt from the key's JWK.
 * Throws when `signature` is not below the modulus (not a signature under this key).
 */
export function rsaPublicRaw(key: PublicKey, signature: Uint8Array, k: number): Uint8Array {
	try {
		return publicDecrypt({ key, padding: constants.RSA_NO_PADDING }, signature);
	} catch (error) {
		const result = rsavp1(key, signature, k);
		if (!result) throw error;
		return result;
	}
}

/** RSAVP1 in BigInt arithmetic; undefined when `signature` is not below the modulus. */
export function rsavp1(key: PublicKey, signature: Uint8Array, k: number): Uint8Array | undefined {
	const jwk = key.export({ format: "jwk" });
	if (!jwk.n || !jwk.e) return undefined;
	const n = bigIntOf(Buffer.from(jwk.n, "base64url"));
	const s = bigIntOf(signature);
	if (s >= n) return undefined;
	return octetsOf(modPow(s, bigIntOf(Buffer.from(jwk.e, "base64url")), n), k);
}

function bigIntOf(bytes: Uint8Array): bigint {
	return bytes.byteLength === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString("hex")}`);
}

function octetsOf(value: bigint, k: number): Uint8Array {
	return Buffer.from(value.toString(16).padStart(k * 2, "0"), "hex");
}

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
	let result = 1n;
	let b = base % modulus;
	for (let e = exponent; e > 0n; e >>= 1n) {
		if (e & 1n) result = (result * b) % modulus;
		b = (b * b) % modulus;
	}
	return result;
}
