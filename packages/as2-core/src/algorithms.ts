import { As2Error } from "./errors/index.ts";

/** Digest algorithms: our name, OID (RFC 5754, RFC 3370), Node hash name, RFC 5751 §3.4.3.2 micalg. */
export type DigestAlgorithm = "sha1" | "sha256" | "sha384" | "sha512";

export const DIGESTS: Readonly<
	Record<DigestAlgorithm, { oid: string; nodeName: string; micalg: string; size: number; specName: string }>
> = {
	sha1: { oid: "1.3.14.3.2.26", nodeName: "sha1", micalg: "sha-1", size: 20, specName: "SHA1withRSA" },
	sha256: { oid: "2.16.840.1.101.3.4.2.1", nodeName: "sha256", micalg: "sha-256", size: 32, specName: "SHA256withRSA" },
	sha384: { oid: "2.16.840.1.101.3.4.2.2", nodeName: "sha384", micalg: "sha-384", size: 48, specName: "SHA384withRSA" },
	sha512: { oid: "2.16.840.1.101.3.4.2.3", nodeName: "sha512", micalg: "sha-512", size: 64, specName: "SHA512withRSA" },
};

export const DIGEST_ALGORITHMS = Object.keys(DIGESTS) as DigestAlgorithm[];

/**
 * Tolerant micalg reading (as2-anchors §D5): `sha1`, `SHA1`, `sha-1`, `sha_256`, `sha2_256`,
 * `sha2-256`, `SHA256`, `sha`, an OID … Returns undefined for unknown values (md5 included:
 * we neither send nor accept MD5 MICs).
 */
export function parseMicalg(value: string | undefined): DigestAlgorithm | undefined {
	if (!value) return undefined;
	const v = value.trim().toLowerCase().replace(/^"|"$/g, "");
	const byOid = digestByOid(v);
	if (byOid) return byOid;
	const compact = v.replace(/[-_\s]/g, "");
	if (compact === "sha" || compact === "sha1") return "sha1";
	const m = /^sha2?(256|384|512)$/.exec(compact);
	return m ? (`sha${m[1]}` as DigestAlgorithm) : undefined;
}

const DIGEST_OF_OID = new Map(Object.entries(DIGESTS).map(([name, d]) => [d.oid, name as DigestAlgorithm]));

export function digestByOid(oid: string): DigestAlgorithm | undefined {
	return DIGEST_OF_OID.get(oid);
}

/** Signature schemes: RSA PKCS#1 v1.5 (RFC 3370 §3.2) or RSASSA-PSS (RFC 4056). */
export type SignatureScheme = "pkcs1" | "pss";

/** Content-encryption algorithms (RFC 3370 §5, RFC 3565, RFC 5084). */
export type ContentEncryptionAlgorithm = "3des" | "aes128" | "aes192" | "aes256" | "aes128-gcm" | "aes256-gcm";

export const CIPHERS: Readonly<
	Record<
		ContentEncryptionAlgorithm,
		{ oid: string; nodeName: string; keySize: number; ivSize: number; aead: boolean; specName?: string }
	>
> = {
	"3des": {
		oid: "1.2.840.113549.3.7",
		nodeName: "des-ede3-cbc",
		keySize: 24,
		ivSize: 8,
		aead: false,
		specName: "3DES",
	},
	aes128: {
		oid: "2.16.840.1.101.3.4.1.2",
		nodeName: "aes-128-cbc",
		keySize: 16,
		ivSize: 16,
		aead: false,
		specName: "AES128_CBC",
	},
	aes192: {
		oid: "2.16.840.1.101.3.4.1.22",
		nodeName: "aes-192-cbc",
		keySize: 24,
		ivSize: 16,
		aead: false,
		specName: "AES192_CBC",
	},
	aes256: {
		oid: "2.16.840.1.101.3.4.1.42",
		nodeName: "aes-256-cbc",
		keySize: 32,
		ivSize: 16,
		aead: false,
		specName: "AES256_CBC",
	},
	"aes128-gcm": { oid: "2.16.840.1.101.3.4.1.6", nodeName: "aes-128-gcm", keySize: 16, ivSize: 12, aead: true },
	"aes256-gcm": { oid: "2.16.840.1.101.3.4.1.46", nodeName: "aes-256-gcm", keySize: 32, ivSize: 12, aead: true },
};

export const CONTENT_ENCRYPTION_ALGORITHMS = Object.keys(CIPHERS) as ContentEncryptionAlgorithm[];

/** Legacy ciphers we only decrypt (RC2 in our own implementation, DES with the runtime's legacy provider). */
export const RC2_CBC_OID = "1.2.840.113549.3.2";
export const DES_CBC_OID = "1.3.14.3.2.7";

/**
 * Key transport (RFC 3370 §4.2.1, RFC 3560). `oaep` is RSAES-OAEP with RFC 3560's default
 * parameters (SHA-1, MGF1-SHA-1: what `openssl cms -keyopt rsa_padding_mode:oaep` sends and
 * what every OAEP-capable AS2 product reads); `oaep-sha256` … name the hash used for OAEP and
 * MGF1 alike (RFC 4055 §4.1 RSAES-OAEP-params).
 */
export type KeyEncryptionAlgorithm = "rsa" | "oaep" | "oaep-sha256" | "oaep-sha384" | "oaep-sha512";

/** The OAEP (and MGF1) hash of each OAEP key-transport name. */
export const OAEP_HASHES: Readonly<Record<Exclude<KeyEncryptionAlgorithm, "rsa">, DigestAlgorithm>> = {
	oaep: "sha1",
	"oaep-sha256": "sha256",
	"oaep-sha384": "sha384",
	"oaep-sha512": "sha512",
};

export const KEY_ENCRYPTION_ALGORITHMS: readonly KeyEncryptionAlgorithm[] = [
	"rsa",
	...Object.keys(OAEP_HASHES),
] as KeyEncryptionAlgorithm[];

/** The key-transport name of an OAEP hash (SHA-1 is plain `oaep`, RFC 3560's defaults). */
export function oaepName(hash: DigestAlgorithm): KeyEncryptionAlgorithm {
	return hash === "sha1" ? "oaep" : `oaep-${hash}`;
}

/** Accepts our names and the spec's (`SHA256withRSA`, `AES128_CBC`, `3DES`) case-insensitively. */
export function parseDigestName(name: string): DigestAlgorithm {
	const direct = parseMicalg(name.replace(/withrsa(encryption)?$/i, ""));
	if (direct) return direct;
	throw new As2Error("UNSUPPORTED_ALGORITHM", `unknown digest algorithm "${name}"`);
}

export function parseCipherName(name: string): ContentEncryptionAlgorithm {
	const n = name.trim().toLowerCase().replace(/_/g, "-");
	const aliases: Record<string, ContentEncryptionAlgorithm> = {
		"3des": "3des",
		"des-ede3": "3des",
		"des-ede3-cbc": "3des",
		tripledes: "3des",
		aes128: "aes128",
		"aes128-cbc": "aes128",
		"aes-128-cbc": "aes128",
		aes192: "aes192",
		"aes192-cbc": "aes192",
		"aes-192-cbc": "aes192",
		aes256: "aes256",
		"aes256-cbc": "aes256",
		"aes-256-cbc": "aes256",
		"aes128-gcm": "aes128-gcm",
		"aes-128-gcm": "aes128-gcm",
		"aes256-gcm": "aes256-gcm",
		"aes-256-gcm": "aes256-gcm",
	};
	const found = aliases[n];
	if (!found) throw new As2Error("UNSUPPORTED_ALGORITHM", `unknown encryption algorithm "${name}"`);
	return found;
}
