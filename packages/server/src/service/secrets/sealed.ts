import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";

/**
 * Seals a secret for storage (private keys, webhook secrets, partner passwords) with
 * AES-256-GCM under a key derived from the master key: `v1.<iv>.<tag>.<ciphertext>` in
 * base64url. `context` is bound as additional data, so a sealed value copied to another
 * row or purpose does not open.
 */
export function seal(key: Uint8Array, plaintext: Uint8Array | string, context: string): string {
	const iv = randomBytes(12);
	const cipher = createCipheriv("aes-256-gcm", key, iv);
	cipher.setAAD(Buffer.from(context));
	const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
	return [
		VERSION,
		iv.toString("base64url"),
		cipher.getAuthTag().toString("base64url"),
		body.toString("base64url"),
	].join(".");
}

/** Opens a sealed value; throws when the key, the context or the bytes differ. */
export function open(key: Uint8Array, sealed: string, context: string): Buffer {
	const [version, iv, tag, body] = sealed.split(".");
	if (version !== VERSION || !iv || !tag || body === undefined) throw new Error("not a sealed value");
	const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
	decipher.setAAD(Buffer.from(context));
	decipher.setAuthTag(Buffer.from(tag, "base64url"));
	return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]);
}
