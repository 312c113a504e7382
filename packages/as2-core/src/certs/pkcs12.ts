import { DIGESTS, type DigestAlgorithm, digestByOid } from "../algorithms.ts";
import { plainBytes, utf8 } from "../bytes/index.ts";
import {
	bmpPassword,
	decryptCbc,
	equalSecret,
	hmac,
	importPrivateKey,
	keyMatchesCertificate,
	type PrivateKey,
	pbkdf2,
	pkcs12Kdf,
} from "../crypto/index.ts";
import { As2Error, isAs2Error } from "../errors/index.ts";
import {
	BerError,
	CONTEXT,
	childrenOf,
	encodingOf,
	expectTag,
	is,
	octetsOf,
	oidOf,
	readRoot,
	smallIntegerOf,
	TAG,
	type Tlv,
} from "./ber-reader.ts";
import { readCertificateFields } from "./certificate-fields.ts";
import * as oids from "./oids.ts";

export interface Identity {
	privateKey: PrivateKey;
	/** DER certificate of `privateKey`. */
	certificate: Uint8Array;
	/** The other certificates (issuers), DER. */
	chain: Uint8Array[];
}

/** Iteration counts above this are an attack on our CPU, not a real file (OpenSSL uses 2048). */
const MAX_ITERATIONS = 10_000_000;

/**
 * Reads a PKCS#12 file (RFC 7292): OpenSSL 3's default (PBES2/PBKDF2/AES-256-CBC bags,
 * HMAC-SHA-256 MAC keyed by the PKCS#12 KDF), the legacy 3DES key + RC2-40 certificates form
 * (`openssl pkcs12 -export -legacy`, OpenSSL 1.x, Windows, Java keytool; RC2 is decrypted by
 * our own RFC 2268 code since Node's OpenSSL 3 lacks it), unencrypted bags. The MAC is
 * checked first: a mismatch is INVALID_KEY "wrong password". RC4-encrypted bags fail with
 * INVALID_CERTIFICATE saying the runtime lacks RC4.
 *
 * @example
 * const { privateKey, certificate, chain } = parsePkcs12(readFileSync("as2.p12"), "secret");
 */
export function parsePkcs12(der: Uint8Array, password: string): Identity {
	try {
		return parse(plainBytes(der), password);
	} catch (error) {
		if (error instanceof BerError) {
			throw new As2Error("INVALID_CERTIFICATE", `not a PKCS#12 file: ${error.message}`, { cause: error });
		}
		throw error;
	}
}

interface Secrets {
	/** BMPString form for the PKCS#12 KDF (RFC 7292 Appendix B.1). */
	bmp: Uint8Array;
	/** Octets for PBES2 (RFC 8018 §3: the password as given, UTF-8). */
	raw: Uint8Array;
	text: string;
}

function parse(der: Uint8Array, password: string): Identity {
	const pfx = expectTag(readRoot(der), TAG.SEQUENCE, "PFX");
	const [version, authSafe, macData] = childrenOf(der, pfx);
	if (smallIntegerOf(der, expectTag(version, TAG.INTEGER, "PFX.version")) !== 3) {
		throw new BerError("BER: PFX version is not 3");
	}
	const authSafeContent = dataContent(der, expectTag(authSafe, TAG.SEQUENCE, "authSafe"));
	const secrets = macData ? checkMac(der, macData, authSafeContent, password) : secretsOf(password, false);

	const keys: PrivateKey[] = [];
	const certificates: Uint8Array[] = [];
	const safe = readRoot(authSafeContent);
	for (const contentInfo of childrenOf(authSafeContent, expectTag(safe, TAG.SEQUENCE, "AuthenticatedSafe"))) {
		const [type] = childrenOf(authSafeContent, contentInfo);
		const contentType = oidOf(authSafeContent, expectTag(type, TAG.OID, "contentType"));
		let safeContents: Uint8Array;
		if (contentType === oids.id_data) safeContents = dataContent(authSafeContent, contentInfo);
		else if (contentType === oids.id_encryptedData)
			safeContents = decryptEncryptedData(authSafeContent, contentInfo, secrets);
		else
			throw new As2Error(
				"INVALID_CERTIFICATE",
				`PKCS#12 with ${contentType} content (public-key privacy mode) is not supported`,
			);
		readSafeContents(safeContents, secrets, keys, certificates, 0);
	}

	if (keys.length === 0) throw new As2Error("INVALID_KEY", "the PKCS#12 file holds no private key");
	if (certificates.length === 0) throw new As2Error("INVALID_CERTIFICATE", "the PKCS#12 file holds no certificate");
	for (const privateKey of keys) {
		const index = certificates.findIndex((certificate) => keyMatchesCertificate(privateKey, certificate));
		if (index >= 0) {
			const certificate = certificates[index]!;
			return { privateKey, certificate, chain: certificates.filter((_, i) => i !== index) };
		}
	}
	throw new As2Error("INVALID_KEY", "no certificate in the PKCS#12 file matches its private key");
}

function secretsOf(password: string, emptyAsNull: boolean): Secrets {
	return {
		// OpenSSL: an empty password may have been taken as "no password" (no BMP terminator).
		bmp: emptyAsNull ? new Uint8Array(0) : bmpPassword(password),
		raw: utf8(password),
		text: password,
	};
}

/** ContentInfo of type id-data: the OCTET STRING inside `[0] EXPLICIT`, BER segments joined. */
function dataContent(bytes: Uint8Array, contentInfo: Tlv): Uint8Array {
	const [type, explicit] = childrenOf(bytes, contentInfo);
	if (oidOf(bytes, expectTag(type, TAG.OID, "contentType")) !== oids.id_data) {
		throw new As2Error("INVALID_CERTIFICATE", "PKCS#12 in public-key integrity mode (signed) is not supported");
	}
	const inner = expectTag(childrenOf(bytes, expectTag(explicit, 0, "content", CONTEXT))[0], TAG.OCTET_STRING, "data");
	return octetsOf(bytes, inner);
}

/** RFC 7292 §4 MacData; the MAC key comes from the PKCS#12 KDF with ID 3 (Appendix B.3). */
function checkMac(bytes: Uint8Array, macData: Tlv, content: Uint8Array, password: string): Secrets {
	const [mac, saltTlv, iterationsTlv] = childrenOf(bytes, expectTag(macData, TAG.SEQUENCE, "MacData"));
	const [algorithm, digestTlv] = childrenOf(bytes, expectTag(mac, TAG.SEQUENCE, "mac"));
	const oid = oidOf(
		bytes,
		expectTag(childrenOf(bytes, expectTag(algorithm, TAG.SEQUENCE, "mac algorithm"))[0], TAG.OID, "mac algorithm"),
	);
	const digest = digestByOid(oid);
	if (!digest) throw new As2Error("INVALID_CERTIFICATE", `unsupported PKCS#12 MAC algorithm ${oid}`);
	const expected = octetsOf(bytes, expectTag(digestTlv, TAG.OCTET_STRING, "mac digest"));
	const salt = octetsOf(bytes, expectTag(saltTlv, TAG.OCTET_STRING, "macSalt"));
	const iterations = iterationsTlv ? smallIntegerOf(bytes, iterationsTlv) : 1;
	checkIterations(iterations);
	const candidates =
		password === "" ? [secretsOf(password, false), secretsOf(password, true)] : [secretsOf(password, false)];
	for (const secrets of candidates) {
		const key = pkcs12Kdf(digest, secrets.bmp, salt, iterations, 3, DIGESTS[digest].size);
		if (equalSecret(hmac(digest, key, content), expected)) return secrets;
	}
	throw new As2Error("INVALID_KEY", "wrong password: the PKCS#12 MAC does not verify");
}

function checkIterations(iterations: number): void {
	if (iterations < 1 || iterations > MAX_ITERATIONS) {
		throw new As2Error("INVALID_CERTIFICATE", `PKCS#12 iteration count ${iterations} is out of range`);
	}
}

/** RFC 5652 §8 EncryptedData holding SafeContents, encrypted under the password. */
function decryptEncryptedData(bytes: Uint8Array, contentInfo: Tlv, secrets: Secrets): Uint8Array {
	const explicit = expectTag(childrenOf(bytes, contentInfo)[1], 0, "content", CONTEXT);
	const encryptedData = expectTag(childrenOf(bytes, explicit)[0], TAG.SEQUENCE, "EncryptedData");
	const info = expectTag(childrenOf(bytes, encryptedData)[1], TAG.SEQUENCE, "EncryptedContentInfo");
	const [, algorithm, encrypted] = childrenOf(bytes, info);
	// encryptedContent [0] IMPLICIT OCTET STRING: primitive, or constructed segments in BER.
	if (!is(encrypted, CONTEXT, 0)) return new Uint8Array(0);
	const ciphertext = octetsOf(bytes, encrypted);
	return decryptWithPassword(
		bytes,
		expectTag(algorithm, TAG.SEQUENCE, "contentEncryptionAlgorithm"),
		ciphertext,
		secrets,
		"certificates",
	);
}

const PKCS12_PBE: Record<string, { cipher: string; keySize: number; ivSize: number; name: string }> = {
	[oids.pbeWithSHAAnd3_KeyTripleDES_CBC]: { cipher: "des-ede3-cbc", keySize: 24, ivSize: 8, name: "3DES" },
	[oids.pbeWithSHAAnd2_KeyTripleDES_CBC]: { cipher: "des-ede-cbc", keySize: 16, ivSize: 8, name: "2-key 3DES" },
	[oids.pbeWithSHAAnd128BitRC2_CBC]: { cipher: "rc2-cbc", keySize: 16, ivSize: 8, name: "RC2-128" },
	[oids.pbewithSHAAnd40BitRC2_CBC]: { cipher: "rc2-40-cbc", keySize: 5, ivSize: 8, name: "RC2-40" },
	// RC4 (stream ciphers, no IV): only in OpenSSL 3's legacy provider.
	[oids.pbeWithSHAAnd128BitRC4]: { cipher: "rc4", keySize: 16, ivSize: 0, name: "RC4-128" },
	[oids.pbeWithSHAAnd40BitRC4]: { cipher: "rc4-40", keySize: 5, ivSize: 0, name: "RC4-40" },
};

const PBES2_CIPHERS: Record<string, { cipher: string; keySize: number }> = {
	[oids.aes128_CBC]: { cipher: "aes-128-cbc", keySize: 16 },
	[oids.aes192_CBC]: { cipher: "aes-192-cbc", keySize: 24 },
	[oids.aes256_CBC]: { cipher: "aes-256-cbc", keySize: 32 },
	[oids.des_EDE3_CBC]: { cipher: "des-ede3-cbc", keySize: 24 },
};

const PBKDF2_PRF: Record<string, DigestAlgorithm> = {
	[oids.id_hmacWithSHA1]: "sha1",
	[oids.id_hmacWithSHA256]: "sha256",
	[oids.id_hmacWithSHA384]: "sha384",
	[oids.id_hmacWithSHA512]: "sha512",
};

/** PKCS#12 PBE (RFC 7292 Appendix C) or PBES2 (RFC 8018 §6.2) decryption. */
function decryptWithPassword(
	bytes: Uint8Array,
	algorithm: Tlv,
	ciphertext: Uint8Array,
	secrets: Secrets,
	what: string,
): Uint8Array {
	const [oidTlv, paramsTlv] = childrenOf(bytes, algorithm);
	const oid = oidOf(bytes, expectTag(oidTlv, TAG.OID, "encryption algorithm"));
	const params = expectTag(paramsTlv, TAG.SEQUENCE, "encryption parameters");
	let cipher: string;
	let key: Uint8Array;
	let iv: Uint8Array;
	let name: string;
	const pbe = PKCS12_PBE[oid];
	if (pbe) {
		const [saltTlv, iterationsTlv] = childrenOf(bytes, params);
		const salt = octetsOf(bytes, expectTag(saltTlv, TAG.OCTET_STRING, "salt"));
		const iterations = smallIntegerOf(bytes, expectTag(iterationsTlv, TAG.INTEGER, "iterations"));
		checkIterations(iterations);
		key = pkcs12Kdf("sha1", secrets.bmp, salt, iterations, 1, pbe.keySize);
		iv = pbe.ivSize === 0 ? new Uint8Array(0) : pkcs12Kdf("sha1", secrets.bmp, salt, iterations, 2, pbe.ivSize);
		cipher = pbe.cipher;
		name = pbe.name;
	} else if (oid === oids.id_PBES2) {
		const [kdf, scheme] = childrenOf(bytes, params);
		const [kdfOid, kdfParams] = childrenOf(bytes, expectTag(kdf, TAG.SEQUENCE, "keyDerivationFunc"));
		if (oidOf(bytes, expectTag(kdfOid, TAG.OID, "kdf")) !== oids.id_PBKDF2) {
			throw new As2Error("INVALID_CERTIFICATE", "PBES2 with a key derivation other than PBKDF2 is not supported");
		}
		const [saltTlv, iterationsTlv, ...rest] = childrenOf(bytes, expectTag(kdfParams, TAG.SEQUENCE, "PBKDF2-params"));
		const salt = octetsOf(bytes, expectTag(saltTlv, TAG.OCTET_STRING, "salt"));
		const iterations = smallIntegerOf(bytes, expectTag(iterationsTlv, TAG.INTEGER, "iterationCount"));
		checkIterations(iterations);
		const prfTlv = rest.find((item) => is(item, 0, TAG.SEQUENCE));
		const prfOid = prfTlv
			? oidOf(bytes, expectTag(childrenOf(bytes, prfTlv)[0], TAG.OID, "prf"))
			: oids.id_hmacWithSHA1;
		const prf = PBKDF2_PRF[prfOid];
		const [schemeOid, ivTlv] = childrenOf(bytes, expectTag(scheme, TAG.SEQUENCE, "encryptionScheme"));
		const schemeId = oidOf(bytes, expectTag(schemeOid, TAG.OID, "encryptionScheme"));
		const target = PBES2_CIPHERS[schemeId];
		if (!prf || !target)
			throw new As2Error("INVALID_CERTIFICATE", `unsupported PBES2 algorithms (${prfOid}, ${schemeId})`);
		key = pbkdf2(secrets.raw, salt, iterations, target.keySize, prf);
		iv = octetsOf(bytes, expectTag(ivTlv, TAG.OCTET_STRING, "iv"));
		cipher = target.cipher;
		name = target.cipher;
	} else {
		throw new As2Error("INVALID_CERTIFICATE", `unsupported PKCS#12 encryption ${oid} for the ${what}`);
	}
	try {
		return decryptCbc(cipher, key, iv, ciphertext);
	} catch (error) {
		const message = (error as Error).message;
		if (/unsupported|unknown cipher|not supported/i.test(message)) {
			throw new As2Error(
				"INVALID_CERTIFICATE",
				`the ${what} of this PKCS#12 file are encrypted with ${name}, which this runtime's OpenSSL 3 only offers in its legacy provider; re-export the file with OpenSSL 3 defaults (\`openssl pkcs12 -export\`, AES-256) or as PEM`,
				{ cause: error },
			);
		}
		throw new As2Error("INVALID_KEY", `wrong password: cannot decrypt the ${what} of the PKCS#12 file`, {
			cause: error,
		});
	}
}

function readSafeContents(
	bytes: Uint8Array,
	secrets: Secrets,
	keys: PrivateKey[],
	certificates: Uint8Array[],
	depth: number,
): void {
	if (depth > 4) throw new BerError("BER: SafeContents nested too deep");
	for (const bag of childrenOf(bytes, expectTag(readRoot(bytes), TAG.SEQUENCE, "SafeContents"))) {
		const [idTlv, valueTlv] = childrenOf(bytes, expectTag(bag, TAG.SEQUENCE, "SafeBag"));
		const bagId = oidOf(bytes, expectTag(idTlv, TAG.OID, "bagId"));
		const value = expectTag(
			childrenOf(bytes, expectTag(valueTlv, 0, "bagValue", CONTEXT))[0],
			TAG.SEQUENCE,
			"bagValue",
		);
		switch (bagId) {
			case oids.keyBag:
				keys.push(importPrivateKey(new Uint8Array(encodingOf(bytes, value))));
				break;
			case oids.pkcs8ShroudedKeyBag:
				keys.push(decryptShroudedKey(bytes, value, secrets));
				break;
			case oids.certBag: {
				const [certId, certValue] = childrenOf(bytes, value);
				if (oidOf(bytes, expectTag(certId, TAG.OID, "certId")) !== oids.x509Certificate) break;
				const inner = expectTag(
					childrenOf(bytes, expectTag(certValue, 0, "certValue", CONTEXT))[0],
					TAG.OCTET_STRING,
					"certificate",
				);
				const certificate = new Uint8Array(octetsOf(bytes, inner));
				readCertificateFields(certificate);
				certificates.push(certificate);
				break;
			}
			case "1.2.840.113549.1.12.10.1.6": // safeContentsBag (RFC 7292 §4.2.6)
				readSafeContents(encodingOf(bytes, value), secrets, keys, certificates, depth + 1);
				break;
			default:
				break; // CRL and secret bags: not ours.
		}
	}
}

/** RFC 5208 EncryptedPrivateKeyInfo under the same password. */
function decryptShroudedKey(bytes: Uint8Array, value: Tlv, secrets: Secrets): PrivateKey {
	const [algorithm, data] = childrenOf(bytes, value);
	const plain = decryptWithPassword(
		bytes,
		expectTag(algorithm, TAG.SEQUENCE, "encryptionAlgorithm"),
		octetsOf(bytes, expectTag(data, TAG.OCTET_STRING, "encryptedData")),
		secrets,
		"private key",
	);
	try {
		return importPrivateKey(plain);
	} catch (error) {
		if (isAs2Error(error)) throw new As2Error("INVALID_KEY", `wrong password: ${error.message}`, { cause: error });
		throw error;
	}
}
