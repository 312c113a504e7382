import { createHmac, hkdfSync, randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A bearer secret: `prefix` then 40 base62 characters (~238 bits). */
export function generateToken(prefix: string): string {
	const bytes = randomBytes(40);
	let out = prefix;
	// 256 % 62 leaves a bias of under 2% on a few symbols: harmless at 238 bits.
	for (const byte of bytes) out += BASE62[byte % 62];
	return out;
}

/**
 * Keyed hash of a bearer secret (decisions.md: API keys and session tokens only as keyed
 * hashes). A fast hash suffices because the secrets are random; the key means a stolen
 * database alone cannot confirm guesses.
 */
export function hashToken(tokenKey: Uint8Array, token: string): string {
	return createHmac("sha256", tokenKey).update(token).digest("hex");
}

/** A purpose-bound subkey of the master key (HKDF-SHA-256, RFC 5869). */
export function deriveKey(masterKey: Uint8Array, purpose: string): Uint8Array {
	return new Uint8Array(hkdfSync("sha256", masterKey, new Uint8Array(0), `as2kit ${purpose}`, 32));
}
