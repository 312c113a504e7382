import {
	IssuerAndSerialNumber,
	type KeyTransRecipientInfo,
	RecipientIdentifier,
	RecipientInfos,
} from "@peculiar/asn1-cms";
import { id_mgf1, id_pSpecified, id_RSAES_OAEP, id_rsaEncryption } from "@peculiar/asn1-rsa";
import { AsnParser, AsnSerializer } from "@peculiar/asn1-schema";
import {
	AlgorithmIdentifier,
	Certificate,
	id_ce_subjectKeyIdentifier,
	SubjectKeyIdentifier,
} from "@peculiar/asn1-x509";
import { DIGESTS, type DigestAlgorithm, digestByOid } from "../algorithms.ts";
import {
	childrenOf,
	derExplicit,
	derInteger,
	derOctetString,
	derSequence,
	parseTlv,
	TAG,
	toDefiniteLength,
} from "../asn1/index.ts";
import { concatBytes, equalBytes } from "../bytes/index.ts";
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
	 * accepts; "oaep" is RSAES-OAEP (RFC 3560). Default "rsa".
	 */
	keyEncryption?: "rsa" | "oaep";
	/**
	 * OAEP hash, also used for MGF1. Default "sha256" (what `openssl cms -keyopt
	 * rsa_oaep_md:sha256` sends); "sha1" is written as the all-defaults empty parameters of
	 * RFC 4055 §4.1 for old peers.
	 */
	oaepHash?: DigestAlgorithm;
	/**
	 * How the recipient is named: issuerAndSerialNumber (RFC 5652 §6.2.1, version 0, what
	 * every peer understands) or subjectKeyIdentifier (version 2, `openssl cms -keyid`).
	 * Default "issuer-serial".
	 */
	identifier?: "issuer-serial" | "subject-key-identifier";
}

/** The names of a certificate a RecipientIdentifier can carry. */
interface CertificateIdentity {
	readonly certificate: Certificate;
	readonly issuer: Uint8Array;
	readonly serial: Uint8Array;
	readonly subjectKeyIdentifier: Uint8Array | undefined;
}

/** Parsing a certificate with AsnParser costs ~0.3 ms: once per certificate byte array. */
const identities = new WeakMap<Uint8Array, CertificateIdentity>();

function identityOf(der: Uint8Array): CertificateIdentity {
	let identity = identities.get(der);
	if (!identity) {
		identity = parseIdentity(der);
		identities.set(der, identity);
	}
	return identity;
}

function parseIdentity(der: Uint8Array): CertificateIdentity {
	const certificate = AsnParser.parse(der, Certificate);
	const tbs = certificate.tbsCertificate;
	const ski = tbs.extensions?.find((e) => e.extnID === id_ce_subjectKeyIdentifier);
	return {
		certificate,
		issuer: new Uint8Array(AsnSerializer.serialize(tbs.issuer)),
		serial: stripZeros(new Uint8Array(tbs.serialNumber)),
		subjectKeyIdentifier: ski ? new Uint8Array(AsnParser.parse(ski.extnValue, SubjectKeyIdentifier).buffer) : undefined,
	};
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
	let identity: CertificateIdentity;
	try {
		identity = identityOf(recipient.certificate);
	} catch (error) {
		throw fail("not a readable DER X.509 certificate", error);
	}
	const spki = identity.certificate.tbsCertificate.subjectPublicKeyInfo.algorithm.algorithm;
	// RSA-PSS keys (RFC 4055 §1.2) are for signatures only; EC keys need KeyAgreeRecipientInfo.
	if (spki !== id_rsaEncryption) throw fail(`key algorithm ${spki} cannot be used for RSA key transport`);
	let publicKey: ReturnType<typeof publicKeyOfCertificate>;
	try {
		publicKey = publicKeyOfCertificate(recipient.certificate);
	} catch (error) {
		throw fail("cannot read the public key", error);
	}

	const useSki = recipient.identifier === "subject-key-identifier";
	let rid: RecipientIdentifier;
	if (useSki) {
		if (!identity.subjectKeyIdentifier) throw fail("no subjectKeyIdentifier extension");
		rid = new RecipientIdentifier({ subjectKeyIdentifier: new SubjectKeyIdentifier(identity.subjectKeyIdentifier) });
	} else {
		const tbs = identity.certificate.tbsCertificate;
		rid = new RecipientIdentifier({
			issuerAndSerialNumber: new IssuerAndSerialNumber({ issuer: tbs.issuer, serialNumber: tbs.serialNumber }),
		});
	}

	const scheme: KeyTransportScheme =
		recipient.keyEncryption === "oaep"
			? { padding: "oaep", hash: recipient.oaepHash ?? "sha256" }
			: { padding: "pkcs1" };
	if (
		recipient.keyEncryption !== undefined &&
		recipient.keyEncryption !== "rsa" &&
		recipient.keyEncryption !== "oaep"
	) {
		throw new As2Error("UNSUPPORTED_ALGORITHM", `unknown key encryption "${recipient.keyEncryption}"`);
	}
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
	// KeyTransRecipientInfo ::= SEQUENCE { version, rid, keyEncryptionAlgorithm, encryptedKey }
	// (RFC 5652 §6.2.1). All but encryptedKey depend only on the certificate and the scheme:
	// serialized once and kept, as AsnSerializer dominated the cost of small messages.
	const key = `${version}|${scheme.padding}|${scheme.padding === "oaep" ? scheme.hash : ""}`;
	let perCertificate = recipientPrefixes.get(recipient.certificate);
	if (!perCertificate) {
		perCertificate = new Map();
		recipientPrefixes.set(recipient.certificate, perCertificate);
	}
	let prefix = perCertificate.get(key);
	if (!prefix) {
		prefix = concatBytes([
			derInteger(version),
			new Uint8Array(AsnSerializer.serialize(rid)),
			new Uint8Array(AsnSerializer.serialize(keyEncryptionAlgorithm(scheme))),
		]);
		perCertificate.set(key, prefix);
	}
	return { encoded: derSequence(prefix, derOctetString(encryptedKey)), version };
}

const recipientPrefixes = new WeakMap<Uint8Array, Map<string, Uint8Array>>();

/**
 * rsaEncryption with NULL parameters (RFC 3370 §4.2.1), or id-RSAES-OAEP with
 * RSAES-OAEP-params (RFC 3560 §3, RFC 4055 §4.1): SHA-1 is all defaults, hence an empty
 * SEQUENCE; other hashes name the hash and MGF1 with it, hash parameters absent (as OpenSSL).
 */
function keyEncryptionAlgorithm(scheme: KeyTransportScheme): AlgorithmIdentifier {
	if (scheme.padding === "pkcs1") return new AlgorithmIdentifier({ algorithm: id_rsaEncryption, parameters: null });
	if (scheme.hash === "sha1") {
		return new AlgorithmIdentifier({ algorithm: id_RSAES_OAEP, parameters: toArrayBuffer(derSequence()) });
	}
	const hash = new Uint8Array(
		AsnSerializer.serialize(new AlgorithmIdentifier({ algorithm: DIGESTS[scheme.hash].oid })),
	);
	const mgf = new Uint8Array(
		AsnSerializer.serialize(new AlgorithmIdentifier({ algorithm: id_mgf1, parameters: toArrayBuffer(hash) })),
	);
	const params = derSequence(derExplicit(0, hash), derExplicit(1, mgf));
	return new AlgorithmIdentifier({ algorithm: id_RSAES_OAEP, parameters: toArrayBuffer(params) });
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
	return bytes.slice().buffer;
}

/** A KeyTransRecipientInfo as received. */
export interface ReceivedKeyTrans {
	readonly info: KeyTransRecipientInfo;
	/** `undefined` when the key encryption algorithm is not one we support. */
	readonly scheme: KeyTransportScheme | undefined;
	readonly keyEncryptionOid: string;
}

/** Reads RecipientInfos (RFC 5652 §6.2; BER accepted); keeps the KeyTransRecipientInfos. */
export function parseRecipientInfos(ber: Uint8Array): ReceivedKeyTrans[] {
	let infos: RecipientInfos;
	try {
		infos = AsnParser.parse(toDefiniteLength(ber), RecipientInfos);
	} catch (error) {
		throw new As2Error("MALFORMED_CMS", "cannot read RecipientInfos", { cause: error });
	}
	const out: ReceivedKeyTrans[] = [];
	for (const info of infos) {
		const ktri = info.ktri;
		if (!ktri) continue;
		const alg = ktri.keyEncryptionAlgorithm;
		out.push({ info: ktri, scheme: readScheme(alg), keyEncryptionOid: alg.algorithm });
	}
	return out;
}

function readScheme(alg: AlgorithmIdentifier): KeyTransportScheme | undefined {
	if (alg.algorithm === id_rsaEncryption) return { padding: "pkcs1" };
	if (alg.algorithm !== id_RSAES_OAEP) return undefined;
	try {
		return readOaepParams(alg.parameters ? new Uint8Array(alg.parameters) : undefined);
	} catch {
		return undefined;
	}
}

/**
 * RSAES-OAEP-params (RFC 8017 Appendix A.2.1, RFC 4055 §4.1): `[0]` hash DEFAULT sha1, `[1]`
 * maskGen DEFAULT mgf1SHA1, `[2]` pSource DEFAULT pSpecifiedEmpty; absent parameters mean
 * all defaults. Node applies one hash to OAEP and MGF1, so both must agree.
 */
function readOaepParams(parameters: Uint8Array | undefined): KeyTransportScheme | undefined {
	let hash: DigestAlgorithm = "sha1";
	let mgfHash: DigestAlgorithm | undefined = "sha1";
	let label: Uint8Array | undefined;
	if (parameters && !(parameters.byteLength === 2 && parameters[0] === TAG.NULL)) {
		for (const field of childrenOf(parseTlv(parameters))) {
			const inner = AsnParser.parse(field.content, AlgorithmIdentifier);
			const params = inner.parameters ? new Uint8Array(inner.parameters) : undefined;
			if (field.header.tag === 0xa0) {
				const h = digestByOid(inner.algorithm);
				if (!h) return undefined;
				hash = h;
			} else if (field.header.tag === 0xa1) {
				if (inner.algorithm !== id_mgf1 || !params) return undefined;
				mgfHash = digestByOid(AsnParser.parse(params, AlgorithmIdentifier).algorithm);
			} else if (field.header.tag === 0xa2) {
				if (inner.algorithm !== id_pSpecified) return undefined;
				const value = params ? parseTlv(params) : undefined;
				if (value && value.header.tag !== TAG.OCTET_STRING) return undefined;
				label = value && value.content.byteLength > 0 ? value.content : undefined;
			} else {
				return undefined;
			}
		}
	}
	if (mgfHash !== hash) return undefined;
	return label ? { padding: "oaep", hash, label } : { padding: "oaep", hash };
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
	readonly keyEncryption: "rsa" | "oaep";
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
	let identity: CertificateIdentity | undefined;
	if (certificate) {
		try {
			identity = identityOf(certificate);
		} catch (error) {
			throw new As2Error("INVALID_CERTIFICATE", "cannot read our certificate", { cause: error });
		}
	}
	const named = identity ? usable.filter((r) => names(r.info.rid, identity)) : [];
	const candidates = (named.length > 0 ? named : usable).slice(0, MAX_KEY_TRANSPORT_ATTEMPTS);
	let chosen: ContentKey | undefined;
	for (const candidate of candidates) {
		const scheme = candidate.scheme!;
		const result = unwrapKey(privateKey, new Uint8Array(candidate.info.encryptedKey.buffer), scheme, keyLength);
		if (result.valid && !chosen) {
			chosen = { key: result.key, valid: true, keyEncryption: scheme.padding === "oaep" ? "oaep" : "rsa" };
		}
	}
	const first = candidates[0]!.scheme!;
	return (
		chosen ?? { key: randomBytes(keyLength), valid: false, keyEncryption: first.padding === "oaep" ? "oaep" : "rsa" }
	);
}

function names(rid: RecipientIdentifier, identity: CertificateIdentity): boolean {
	if (rid.subjectKeyIdentifier) {
		return (
			identity.subjectKeyIdentifier !== undefined &&
			equalBytes(new Uint8Array(rid.subjectKeyIdentifier.buffer), identity.subjectKeyIdentifier)
		);
	}
	const ias = rid.issuerAndSerialNumber;
	if (!ias) return false;
	return (
		equalBytes(stripZeros(new Uint8Array(ias.serialNumber)), identity.serial) &&
		equalBytes(new Uint8Array(AsnSerializer.serialize(ias.issuer)), identity.issuer)
	);
}
