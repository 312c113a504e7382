import { createPrivateKey, createPublicKey, type KeyObject, X509Certificate } from "node:crypto";
import { As2Error } from "../errors/index.ts";

/** Opaque key handles. They wrap node:crypto KeyObjects and never serialize their secret. */
export type PrivateKey = KeyObject & { readonly type: "private" };
export type PublicKey = KeyObject & { readonly type: "public" };

/**
 * Imports a private key from PEM (PKCS#1, PKCS#8, encrypted PKCS#8 with `passphrase`) or DER
 * (PKCS#8).
 */
export function importPrivateKey(input: string | Uint8Array, passphrase?: string): PrivateKey {
	try {
		const key =
			typeof input === "string" || looksLikePem(input)
				? createPrivateKey({
						key: typeof input === "string" ? input : Buffer.from(input).toString("latin1"),
						format: "pem",
						...(passphrase !== undefined ? { passphrase } : {}),
					})
				: createPrivateKey({ key: Buffer.from(input), format: "der", type: "pkcs8" });
		return key as PrivateKey;
	} catch (error) {
		throw new As2Error("INVALID_KEY", `cannot read the private key: ${(error as Error).message}`, { cause: error });
	}
}

const publicKeys = new WeakMap<Uint8Array, PublicKey>();

/** The public key of a DER certificate; cached per byte array (parsing costs ~0.1 ms). */
export function publicKeyOfCertificate(certificateDer: Uint8Array): PublicKey {
	const cached = publicKeys.get(certificateDer);
	if (cached) return cached;
	try {
		const key = new X509Certificate(Buffer.from(certificateDer)).publicKey as PublicKey;
		publicKeys.set(certificateDer, key);
		return key;
	} catch (error) {
		throw new As2Error("INVALID_CERTIFICATE", `cannot read the certificate: ${(error as Error).message}`, {
			cause: error,
		});
	}
}

export function importPublicKeySpki(spkiDer: Uint8Array): PublicKey {
	return createPublicKey({ key: Buffer.from(spkiDer), format: "der", type: "spki" }) as PublicKey;
}

/**
 * Whether a private key belongs to a certificate (same public key). workerd's
 * `X509Certificate.checkPrivateKey` answers false for a matching pair, so a false answer is
 * confirmed by comparing the key's public half with the certificate's, byte for byte.
 */
export function keyMatchesCertificate(key: PrivateKey, certificateDer: Uint8Array): boolean {
	const certificate = new X509Certificate(Buffer.from(certificateDer));
	if (certificate.checkPrivateKey(key)) return true;
	const spki = (publicKey: KeyObject) => publicKey.export({ format: "der", type: "spki" });
	return spki(createPublicKey(key)).equals(spki(certificate.publicKey));
}

/** RSA modulus size in bits; 0 for other key types. */
export function rsaKeyBits(key: KeyObject): number {
	return key.asymmetricKeyType === "rsa" || key.asymmetricKeyType === "rsa-pss"
		? (key.asymmetricKeyDetails?.modulusLength ?? 0)
		: 0;
}

export function exportPrivateKeyPem(key: PrivateKey, passphrase?: string): string {
	return key.export({
		format: "pem",
		type: "pkcs8",
		...(passphrase ? { cipher: "aes-256-cbc", passphrase } : {}),
	}) as string;
}

function looksLikePem(bytes: Uint8Array): boolean {
	return Buffer.from(bytes.subarray(0, 64)).toString("latin1").includes("-----BEGIN");
}
