import { toBase64 } from "../bytes/index.ts";
import { importPublicKeySpki, keyMatchesCertificate, type PrivateKey, type PublicKey } from "../crypto/index.ts";
import { As2Error } from "../errors/index.ts";
import type { CertificateFields } from "./certificate-fields.ts";
import { DER_NULL, der, derOid, encodeDer } from "./der-writer.ts";
import { id_RSASSA_PSS, rsaEncryption } from "./oids.ts";

/** Importing a key costs ~0.1 ms: keep the recent ones, keyed by the public key bits. */
const CACHE_SIZE = 512;
const cache = new Map<string, PublicKey>();
/** The same keys by the (cached) fields of a certificate: partners' certificates are read once. */
const byFields = new WeakMap<CertificateFields, PublicKey>();

/**
 * The certificate's RSA public key, for raw RSA operations. An RSA-PSS SubjectPublicKeyInfo
 * (RFC 4055 §1.2) is re-wrapped as `rsaEncryption`: the RSAPublicKey is the same, and
 * OpenSSL refuses raw public decryption with an RSA-PSS key object.
 */
export function rsaPublicKeyOf(fields: CertificateFields): PublicKey {
	if (fields.keyAlgorithm !== rsaEncryption && fields.keyAlgorithm !== id_RSASSA_PSS) {
		throw new As2Error("UNSUPPORTED_ALGORITHM", `the certificate's key is not RSA (${fields.keyAlgorithm})`);
	}
	const known = byFields.get(fields);
	if (known) return known;
	const id = toBase64(fields.publicKey);
	const cached = cache.get(id);
	if (cached) {
		cache.delete(id);
		cache.set(id, cached);
		byFields.set(fields, cached);
		return cached;
	}
	const spki =
		fields.keyAlgorithm === rsaEncryption
			? fields.spki
			: encodeDer(der(0x30, der(0x30, derOid(rsaEncryption), DER_NULL), der(0x03, Uint8Array.of(0), fields.publicKey)));
	let key: PublicKey;
	try {
		key = importPublicKeySpki(spki);
	} catch (error) {
		throw new As2Error("INVALID_CERTIFICATE", `cannot read the certificate's public key: ${(error as Error).message}`, {
			cause: error,
		});
	}
	cache.set(id, key);
	byFields.set(fields, key);
	if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
	return key;
}

const matches = new WeakMap<PrivateKey, WeakMap<Uint8Array, boolean>>();

/**
 * Whether a private key belongs to a certificate, cached per (key, certificate bytes) pair:
 * the check parses the certificate with OpenSSL (~0.1 ms), too slow for every message.
 */
export function privateKeyMatches(key: PrivateKey, certificate: Uint8Array): boolean {
	let perKey = matches.get(key);
	if (!perKey) {
		perKey = new WeakMap();
		matches.set(key, perKey);
	}
	let result = perKey.get(certificate);
	if (result === undefined) {
		try {
			result = keyMatchesCertificate(key, certificate);
		} catch {
			result = false;
		}
		perKey.set(certificate, result);
	}
	return result;
}
