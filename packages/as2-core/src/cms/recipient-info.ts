import {
	DIGESTS,
	type DigestAlgorithm,
	digestByOid,
	type KeyEncryptionAlgorithm,
	OAEP_HASHES,
	oaepName,
} from "../algorithms.ts";
import { toDefiniteLength } from "../asn1/index.ts";
import { concatBytes, equalBytes, plainBytes } from "../bytes/index.ts";
import {
	BerError,
	CONTEXT,
	childrenOf,
	contentOf,
	encodingOf,
	expectTag,
	is,
	octetsOf,
	oidOf,
	readRoot,
	TAG,
	type Tlv,
	UNIVERSAL,
} from "../certs/ber-reader.ts";
import { type CertificateFields, readCertificateFields } from "../certs/certificate-fields.ts";
import {
	DER_NULL,
	type DerPart,
	der,
	derOctetString,
	derOid,
	derSmallInteger,
	encodeDer,
} from "../certs/der-writer.ts";
import { id_mgf1, id_pSpecified, id_RSAES_OAEP, rsaEncryption } from "../certs/oids.ts";
import {
	type KeyTransportScheme,
	type PrivateKey,
	publicKeyOfCertificate,
	randomBytes,
	unwrapKey,
	wrapKey,
} from "../crypto/index.ts";
import { As2Error } from "../errors/index.ts";

/**
 * One recipient of an EnvelopedData or AuthEnvelopedData.
 *
 * @example
 * const recipient: Recipient = { certificate: partnerCertDer, keyEncryption: "oaep" };
 */
export interface Recipient {
	/** DER X.509 certificate with an RSA (rsaEncryption) public key. */
	certificate: Uint8Array;
	/**
	 * Key transport: "rsa" is RSAES-PKCS1-v1_5 (RFC 3370 §4.2.1), what every AS2 product
	 * accepts; "oaep" is RSAES-OAEP with RFC 3560's defaults (SHA-1, MGF1-SHA-1);
	 * "oaep-sha256", "oaep-sha384", "oaep-sha512" use that hash for OAEP and MGF1. Default "rsa".
	 */
	keyEncryption?: KeyEncryptionAlgorithm;
	/**
	 * Overrides the OAEP hash (also used for MGF1) of `keyEncryption: "oaep"`. SHA-1 is written
	 * as the all-defaults empty parameters of RFC 4055 §4.1.
	 */
	oaepHash?: DigestAlgorithm;
	/**
	 * How the recipient is named: issuerAndSerialNumber (RFC 5652 §6.2.1, version 0, what
	 * every peer understands) or subjectKeyIdentifier (version 2, `openssl cms -keyid`).
	 * Default "issuer-serial".
	 */
	identifier?: "issuer-serial" | "subject-key-identifier";
}

function stripZeros(bytes: Uint8Array): Uint8Array {
	let i = 0;
	while (i < bytes.byteLength - 1 && bytes[i] === 0) i++;
	return bytes.subarray(i);
}

/** A KeyTransRecipientInfo, DER, with its version (0 for issuerAndSerialNumber, 2 for subjectKeyIdentifier). */
export interface BuiltRecipientInfo {
	readonly encoded: Uint8Array;
	readonly version: number;
}

/**
 * Wraps `cek` for one recipient as a KeyTransRecipientInfo (RFC 5652 §6.2.1). A
 * certificate we cannot read or whose key is not rsaEncryption is ENCRYPTION_FAILED.
 */
export function buildKeyTransRecipientInfo(recipient: Recipient, cek: Uint8Array): BuiltRecipientInfo {
	const fail = (message: string, cause?: unknown) =>
		new As2Error("ENCRYPTION_FAILED", `recipient certificate: ${message}`, { cause });
	let fields: CertificateFields;
	try {
		fields = readCertificateFields(recipient.certificate);
	} catch (error) {
		throw fail("not a readable DER X.509 certificate", error);
	}
	// RSA-PSS keys (RFC 4055 §1.2) are for signatures only; EC keys need KeyAgreeRecipientInfo.
	if (fields.keyAlgorithm !== rsaEncryption) {
		throw fail(`key algorithm ${fields.keyAlgorithm} cannot be used for RSA key transport`);
	}
	let publicKey: ReturnType<typeof publicKeyOfCertificate>;
	try {
		publicKey = publicKeyOfCertificate(recipient.certificate);
	} catch (error) {
		throw fail("cannot read the public key", error);
	}
	const useSki = recipient.identifier === "subject-key-identifier";
	if (useSki && !fields.subjectKeyIdentifier) throw fail("no subjectKeyIdentifier extension");

	const scheme = schemeOf(recipient);
	if (scheme.padding === "oaep" && !DIGESTS[scheme.hash]) {
		throw new As2Error("UNSUPPORTED_ALGORITHM", `unknown OAEP hash "${scheme.hash}"`);
	}
	let encryptedKey: Uint8Array;
	try {
		encryptedKey = wrapKey(publicKey, cek, scheme);
	} catch (error) {
		throw fail("RSA encryption failed", error);
	}
	const version = useSki ? 2 : 0;
	return {
		encoded: encodeDer(der(0x30, recipientPrefix(fields, version, scheme), derOctetString(encryptedKey))),
		version,
	};
}

function schemeOf(recipient: Recipient): KeyTransportScheme {
	const name = recipient.keyEncryption ?? "rsa";
	if (name === "rsa") return { padding: "pkcs1" };
	const hash = Object.hasOwn(OAEP_HASHES, name) ? OAEP_HASHES[name] : undefined;
	if (!hash) throw new As2Error("UNSUPPORTED_ALGORITHM", `unknown key encryption "${name}"`);
	return { padding: "oaep", hash: name === "oaep" ? (recipient.oaepHash ?? hash) : hash };
}

const recipientPrefixes = new WeakMap<CertificateFields, Map<string, Uint8Array>>();

/**
 * `version, rid, keyEncryptionAlgorithm` of a KeyTransRecipientInfo (RFC 5652 §6.2.1): they
 * depend only on the certificate and the scheme, so they are encoded once and kept.
 * The rid copies the certificate's own issuer and serialNumber encodings (as OpenSSL does).
 */
function recipientPrefix(fields: CertificateFields, version: number, scheme: KeyTransportScheme): Uint8Array {
	const key = `${version}|${scheme.padding}|${scheme.padding === "oaep" ? scheme.hash : ""}`;
	let perCertificate = recipientPrefixes.get(fields);
	if (!perCertificate) {
		perCertificate = new Map();
		recipientPrefixes.set(fields, perCertificate);
	}
	let prefix = perCertificate.get(key);
	if (!prefix) {
		// RecipientIdentifier ::= CHOICE { issuerAndSerialNumber, subjectKeyIdentifier [0] IMPLICIT }
		const rid = version === 2 ? der(0x80, fields.subjectKeyIdentifier!) : der(0x30, fields.issuer, fields.serialTlv);
		prefix = concatBytes([derSmallInteger(version), encodeDer(rid), encodeDer(keyEncryptionAlgorithm(scheme))]);
		perCertificate.set(key, prefix);
	}
	return prefix;
}

/**
 * rsaEncryption with NULL parameters (RFC 3370 §4.2.1), or id-RSAES-OAEP with
 * RSAES-OAEP-params (RFC 3560 §3, RFC 4055 §4.1): SHA-1 is all defaults, hence an empty
 * SEQUENCE; other hashes name the hash and MGF1 with it, hash parameters absent (as OpenSSL).
 */
function keyEncryptionAlgorithm(scheme: KeyTransportScheme): DerPart {
	if (scheme.padding === "pkcs1") return der(0x30, derOid(rsaEncryption), DER_NULL);
	if (scheme.hash === "sha1") return der(0x30, derOid(id_RSAES_OAEP), der(0x30));
	const hash = der(0x30, derOid(DIGESTS[scheme.hash].oid));
	const mgf = der(0x30, derOid(id_mgf1), hash);
	return der(0x30, derOid(id_RSAES_OAEP), der(0x30, der(0xa0, hash), der(0xa1, mgf)));
}

/** RFC 5652 §6.2.1 RecipientIdentifier, as received. */
export type RecipientIdentifier =
	| { readonly issuer: Uint8Array; readonly serial: Uint8Array; readonly subjectKeyIdentifier?: undefined }
	| { readonly subjectKeyIdentifier: Uint8Array };

/** A KeyTransRecipientInfo as received. */
export interface ReceivedKeyTrans {
	readonly rid: RecipientIdentifier;
	readonly encryptedKey: Uint8Array;
	/** `undefined` when the key encryption algorithm is not one we support. */
	readonly scheme: KeyTransportScheme | undefined;
	readonly keyEncryptionOid: string;
}

/**
 * Reads RecipientInfos (RFC 5652 §6.2; BER accepted: indefinite lengths, constructed OCTET
 * STRINGs); keeps the KeyTransRecipientInfos. Structure errors are MALFORMED_CMS.
 */
export function parseRecipientInfos(ber: Uint8Array): ReceivedKeyTrans[] {
	const bytes = plainBytes(ber);
	try {
		const out: ReceivedKeyTrans[] = [];
		for (const info of childrenOf(bytes, expectTag(readRoot(bytes), TAG.SET, "RecipientInfos"))) {
			// RecipientInfo ::= CHOICE { ktri SEQUENCE, kari [1], kekri [2], pwri [3], ori [4] }
			if (is(info, UNIVERSAL, TAG.SEQUENCE)) out.push(readKeyTrans(bytes, info));
		}
		return out;
	} catch (error) {
		if (error instanceof BerError || error instanceof As2Error) {
			throw new As2Error("MALFORMED_CMS", "cannot read RecipientInfos", { cause: error });
		}
		throw error;
	}
}

/** KeyTransRecipientInfo ::= SEQUENCE { version, rid, keyEncryptionAlgorithm, encryptedKey } */
function readKeyTrans(bytes: Uint8Array, info: Tlv): ReceivedKeyTrans {
	const [version, ridTlv, algorithmTlv, keyTlv, extra] = childrenOf(bytes, info);
	expectTag(version, TAG.INTEGER, "KeyTransRecipientInfo version");
	if (extra) throw new BerError("BER: KeyTransRecipientInfo has more than four fields");
	let rid: RecipientIdentifier;
	if (is(ridTlv, UNIVERSAL, TAG.SEQUENCE)) {
		const [issuer, serial] = childrenOf(bytes, ridTlv);
		rid = {
			issuer: encodingOf(bytes, expectTag(issuer, TAG.SEQUENCE, "issuer")),
			serial: contentOf(bytes, expectTag(serial, TAG.INTEGER, "serialNumber")),
		};
	} else if (is(ridTlv, CONTEXT, 0)) {
		rid = { subjectKeyIdentifier: octetsOf(bytes, ridTlv) };
	} else {
		throw new BerError("BER: KeyTransRecipientInfo rid missing or of the wrong type");
	}
	const algorithm = readAlgorithm(bytes, algorithmTlv, "keyEncryptionAlgorithm");
	const encryptedKey = octetsOf(bytes, expectTag(keyTlv, TAG.OCTET_STRING, "encryptedKey"));
	return { rid, encryptedKey, scheme: readScheme(bytes, algorithm), keyEncryptionOid: algorithm.oid };
}

interface Algorithm {
	readonly oid: string;
	readonly parameters: Tlv | undefined;
}

/** AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL } */
function readAlgorithm(bytes: Uint8Array, tlv: Tlv | undefined, what: string): Algorithm {
	const [oid, parameters, extra] = childrenOf(bytes, expectTag(tlv, TAG.SEQUENCE, what));
	if (extra) throw new BerError(`BER: ${what} has more than two fields`);
	return { oid: oidOf(bytes, expectTag(oid, TAG.OID, `${what} algorithm`)), parameters };
}

function readScheme(bytes: Uint8Array, algorithm: Algorithm): KeyTransportScheme | undefined {
	if (algorithm.oid === rsaEncryption) return { padding: "pkcs1" };
	if (algorithm.oid !== id_RSAES_OAEP) return undefined;
	try {
		return readOaepParams(bytes, algorithm.parameters);
	} catch {
		return undefined;
	}
}

/**
 * RSAES-OAEP-params (RFC 8017 Appendix A.2.1, RFC 4055 §4.1): `[0]` hash DEFAULT sha1, `[1]`
 * maskGen DEFAULT mgf1SHA1, `[2]` pSource DEFAULT pSpecifiedEmpty; absent parameters mean
 * all defaults. An MGF1 hash other than the OAEP hash (Java's OAEPWithSHA-256AndMGF1Padding:
 * MGF1-SHA-1) is kept for the decoder.
 */
function readOaepParams(bytes: Uint8Array, parameters: Tlv | undefined): KeyTransportScheme | undefined {
	let hash: DigestAlgorithm = "sha1";
	let mgfHash: DigestAlgorithm | undefined = "sha1";
	let label: Uint8Array | undefined;
	if (parameters && !is(parameters, UNIVERSAL, TAG.NULL)) {
		for (const field of childrenOf(bytes, parameters)) {
			if (field.cls !== CONTEXT || !field.constructed) return undefined;
			const inner = readAlgorithm(bytes, childrenOf(bytes, field)[0], "RSAES-OAEP-params field");
			if (field.number === 0) {
				const h = digestByOid(inner.oid);
				if (!h) return undefined;
				hash = h;
			} else if (field.number === 1) {
				if (inner.oid !== id_mgf1 || !inner.parameters) return undefined;
				mgfHash = digestByOid(readAlgorithm(bytes, inner.parameters, "MGF1 hash").oid);
			} else if (field.number === 2) {
				if (inner.oid !== id_pSpecified) return undefined;
				const value = inner.parameters;
				if (value && !is(value, UNIVERSAL, TAG.OCTET_STRING)) return undefined;
				const octets = value ? octetsOf(bytes, value) : undefined;
				label = octets && octets.byteLength > 0 ? octets : undefined;
			} else {
				return undefined;
			}
		}
	}
	if (!mgfHash) return undefined;
	return {
		padding: "oaep",
		hash,
		...(mgfHash !== hash ? { mgfHash } : {}),
		...(label ? { label } : {}),
	};
}

/**
 * RSA decryptions per identity and message. Real AS2 messages carry one to three
 * recipients; a hostile one could carry thousands of 256-octet keys in 1 MiB, a second of
 * private-key operations each.
 */
export const MAX_KEY_TRANSPORT_ATTEMPTS = 16;

/** What {@link unwrapContentKey} chose. */
export interface ContentKey {
	readonly key: Uint8Array;
	/** False when no recipient yielded a well-formed key: `key` is random (RFC 3218 §2.3.2). */
	readonly valid: boolean;
	/** The key transport of the recipient used, OAEP named by its hash. */
	readonly keyEncryption: ReceivedKeyEncryption;
}

/**
 * Recovers the content-encryption key. With `certificate`, the recipients it names (by
 * issuerAndSerialNumber or subjectKeyIdentifier) are tried; when none names it, or
 * without a certificate, every RSA recipient is tried, up to {@link MAX_KEY_TRANSPORT_ATTEMPTS}
 * (a partner who renewed a certificate on the same key, or who put the wrong issuer in,
 * still gets through). All candidates are
 * always decrypted, so the work done does not reveal which one succeeded. When none
 * succeeds the key is random (RFC 3218 §2.3.2) and the caller reports the failure when the
 * content fails to decrypt.
 */
export function unwrapContentKey(
	recipients: ReadonlyArray<ReceivedKeyTrans>,
	privateKey: PrivateKey,
	certificate: Uint8Array | undefined,
	keyLength: number,
): ContentKey {
	const usable = recipients.filter((r) => r.scheme !== undefined);
	if (usable.length === 0) {
		if (recipients.length > 0) {
			const oids = [...new Set(recipients.map((r) => r.keyEncryptionOid))].join(", ");
			throw new As2Error("UNSUPPORTED_ALGORITHM", `unsupported key encryption algorithm ${oids}`);
		}
		throw new As2Error("DECRYPTION_FAILED", "the message has no RSA key transport recipient");
	}
	let fields: CertificateFields | undefined;
	if (certificate) {
		try {
			fields = readCertificateFields(certificate);
		} catch (error) {
			throw new As2Error("INVALID_CERTIFICATE", "cannot read our certificate", { cause: error });
		}
	}
	const named = fields ? usable.filter((r) => names(r.rid, fields)) : [];
	const candidates = (named.length > 0 ? named : usable).slice(0, MAX_KEY_TRANSPORT_ATTEMPTS);
	let chosen: ContentKey | undefined;
	for (const candidate of candidates) {
		const scheme = candidate.scheme!;
		const result = unwrapKey(privateKey, candidate.encryptedKey, scheme, keyLength);
		if (result.valid && !chosen) {
			chosen = { key: result.key, valid: true, keyEncryption: keyEncryptionName(scheme) };
		}
	}
	const first = candidates[0]!.scheme!;
	return chosen ?? { key: randomBytes(keyLength), valid: false, keyEncryption: keyEncryptionName(first) };
}

function keyEncryptionName(scheme: KeyTransportScheme): ReceivedKeyEncryption {
	if (scheme.padding === "pkcs1") return "rsa";
	return scheme.mgfHash && scheme.mgfHash !== scheme.hash
		? `oaep-${scheme.hash}-mgf1-${scheme.mgfHash}`
		: oaepName(scheme.hash);
}

/**
 * The key transport a received message used: one of ours, or OAEP whose MGF1 hash differs
 * from its hash (`oaep-sha256-mgf1-sha1`), which we read but never send.
 */
export type ReceivedKeyEncryption = KeyEncryptionAlgorithm | `oaep-${DigestAlgorithm}-mgf1-${DigestAlgorithm}`;

function names(rid: RecipientIdentifier, fields: CertificateFields): boolean {
	if (rid.subjectKeyIdentifier !== undefined) {
		return (
			fields.subjectKeyIdentifier !== undefined && equalBytes(rid.subjectKeyIdentifier, fields.subjectKeyIdentifier)
		);
	}
	if (!equalBytes(stripZeros(rid.serial), stripZeros(fields.serial))) return false;
	// The issuer as the sender encoded it; a BER sender's indefinite lengths are normalised first.
	return equalBytes(rid.issuer, fields.issuer) || equalBytes(definiteOrEmpty(rid.issuer), fields.issuer);
}

function definiteOrEmpty(ber: Uint8Array): Uint8Array {
	try {
		return toDefiniteLength(ber);
	} catch {
		return new Uint8Array(0);
	}
}
