import { equalBytes } from "../bytes/index.ts";
import { As2Error } from "../errors/index.ts";
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
	timeOf,
} from "./ber-reader.ts";
import { id_ce_subjectKeyIdentifier } from "./oids.ts";

/**
 * The fields of an X.509 certificate (RFC 5280 §4.1) that signing and verification need,
 * as views into the DER. Reading them costs microseconds; results are cached per byte array.
 */
export interface CertificateFields {
	readonly der: Uint8Array;
	/** Contents octets of the serialNumber INTEGER (two's complement, as encoded). */
	readonly serial: Uint8Array;
	/** The serialNumber INTEGER, tag and length included. */
	readonly serialTlv: Uint8Array;
	/** The issuer Name, tag and length included. */
	readonly issuer: Uint8Array;
	readonly subject: Uint8Array;
	readonly notBefore: Date;
	readonly notAfter: Date;
	/** SubjectPublicKeyInfo, tag and length included. */
	readonly spki: Uint8Array;
	/** OID of the SubjectPublicKeyInfo algorithm. */
	readonly keyAlgorithm: string;
	/** The subjectPublicKey BIT STRING contents (e.g. RSAPublicKey after the unused-bits octet). */
	readonly publicKey: Uint8Array;
	readonly subjectKeyIdentifier?: Uint8Array;
}

const cache = new WeakMap<Uint8Array, CertificateFields>();

/** Reads a DER certificate; INVALID_CERTIFICATE when it is not one. */
export function readCertificateFields(der: Uint8Array): CertificateFields {
	const cached = cache.get(der);
	if (cached) return cached;
	let fields: CertificateFields;
	try {
		fields = parse(der);
	} catch (error) {
		if (error instanceof BerError) {
			throw new As2Error("INVALID_CERTIFICATE", `not an X.509 certificate: ${error.message}`, { cause: error });
		}
		throw error;
	}
	cache.set(der, fields);
	return fields;
}

function parse(der: Uint8Array): CertificateFields {
	const root = expectTag(readRoot(der), TAG.SEQUENCE, "Certificate");
	const [tbsTlv, signatureAlgorithm, signatureValue] = childrenOf(der, root);
	const tbs = expectTag(tbsTlv, TAG.SEQUENCE, "tbsCertificate");
	expectTag(signatureAlgorithm, TAG.SEQUENCE, "signatureAlgorithm");
	expectTag(signatureValue, TAG.BIT_STRING, "signatureValue");
	const items = childrenOf(der, tbs);
	let i = 0;
	if (is(items[0], CONTEXT, 0)) i++; // [0] EXPLICIT Version DEFAULT v1
	const serial = expectTag(items[i++], TAG.INTEGER, "serialNumber");
	expectTag(items[i++], TAG.SEQUENCE, "signature");
	const issuer = expectTag(items[i++], TAG.SEQUENCE, "issuer");
	const validity = expectTag(items[i++], TAG.SEQUENCE, "validity");
	const subject = expectTag(items[i++], TAG.SEQUENCE, "subject");
	const spki = expectTag(items[i++], TAG.SEQUENCE, "subjectPublicKeyInfo");
	const [notBefore, notAfter] = childrenOf(der, validity);
	if (!notBefore || !notAfter) throw new BerError("BER: validity incomplete");
	const [algorithm, subjectPublicKey] = childrenOf(der, spki);
	const algorithmOid = childrenOf(der, expectTag(algorithm, TAG.SEQUENCE, "SubjectPublicKeyInfo.algorithm"))[0];
	const keyBits = contentOf(der, expectTag(subjectPublicKey, TAG.BIT_STRING, "subjectPublicKey"));
	let subjectKeyIdentifier: Uint8Array | undefined;
	for (; i < items.length; i++) {
		const item = items[i]!;
		if (!is(item, CONTEXT, 3)) continue;
		const extensions = expectTag(childrenOf(der, item)[0], TAG.SEQUENCE, "extensions");
		for (const extension of childrenOf(der, extensions)) {
			const parts = childrenOf(der, extension);
			const id = parts[0];
			const value = parts[parts.length - 1];
			if (!id || !value || oidOf(der, id) !== id_ce_subjectKeyIdentifier) continue;
			// RFC 5280 §4.2.1.2: extnValue wraps a KeyIdentifier OCTET STRING.
			const inner = octetsOf(der, expectTag(value, TAG.OCTET_STRING, "extnValue"));
			const keyId = expectTag(readRoot(inner), TAG.OCTET_STRING, "SubjectKeyIdentifier");
			subjectKeyIdentifier = inner.subarray(keyId.contentStart, keyId.contentEnd);
		}
	}
	const fields: CertificateFields = {
		der,
		serial: contentOf(der, serial),
		serialTlv: encodingOf(der, serial),
		issuer: encodingOf(der, issuer),
		subject: encodingOf(der, subject),
		notBefore: timeOf(der, notBefore),
		notAfter: timeOf(der, notAfter),
		spki: encodingOf(der, spki),
		keyAlgorithm: oidOf(der, expectTag(algorithmOid, TAG.OID, "algorithm")),
		publicKey: keyBits.subarray(1),
		...(subjectKeyIdentifier ? { subjectKeyIdentifier } : {}),
	};
	return fields;
}

/** RFC 5652 §5.3 SignerIdentifier match by issuerAndSerialNumber (encodings compared as sent). */
export function matchesIssuerAndSerial(fields: CertificateFields, issuer: Uint8Array, serial: Uint8Array): boolean {
	return (
		equalBytes(stripIntegerPadding(fields.serial), stripIntegerPadding(serial)) && equalBytes(fields.issuer, issuer)
	);
}

/**
 * Some encoders pad serial numbers with a redundant leading zero octet; compare the
 * minimal two's complement forms.
 */
function stripIntegerPadding(serial: Uint8Array): Uint8Array {
	let i = 0;
	while (i < serial.byteLength - 1 && serial[i] === 0 && (serial[i + 1]! & 0x80) === 0) i++;
	return serial.subarray(i);
}
