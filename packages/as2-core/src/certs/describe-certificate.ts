import { toHex } from "../bytes/index.ts";
import { digestBytes } from "../crypto/index.ts";
import { As2Error } from "../errors/index.ts";
import { BerError, childrenOf, contentOf, expectTag, oidOf, readRoot, TAG } from "./ber-reader.ts";
import { type CertificateFields, readCertificateFields } from "./certificate-fields.ts";
import { formatName } from "./distinguished-name.ts";
import { id_ecPublicKey, id_RSASSA_PSS, rsaEncryption } from "./oids.ts";
import { toPem } from "./pem.ts";

/** What a person (and the partner-certificate API) needs to know about a certificate. */
export interface CertificateInfo {
	der: Uint8Array;
	pem: string;
	/** RFC 4514 form, as `openssl x509 -nameopt RFC2253` prints it. */
	subject: string;
	issuer: string;
	/** Hex, upper case, without sign padding (as `openssl x509 -serial`). */
	serialNumber: string;
	notBefore: Date;
	notAfter: Date;
	keyAlgorithm: "rsa" | "rsa-pss" | "ec" | "ed25519" | "ed448" | string;
	keyBits: number;
	/** Interface spec, Partner certificate: hash-prefixed colon-separated hex, `SHA256:AB:CD:…`. */
	fingerprint: string;
	/** Colon-separated upper-case hex, as OpenSSL prints it. */
	subjectKeyIdentifier?: string;
}

const CURVE_BITS: Record<string, number> = {
	"1.2.840.10045.3.1.7": 256,
	"1.3.132.0.34": 384,
	"1.3.132.0.35": 521,
	"1.3.132.0.10": 256,
};

/**
 * @example
 * const info = describeCertificate(parseCertificates(pem)[0]!);
 * info.fingerprint; // "SHA256:3F:0A:…"
 */
export function describeCertificate(der: Uint8Array): CertificateInfo {
	const fields = readCertificateFields(der);
	try {
		const { algorithm, bits } = keyOf(fields);
		const ski = fields.subjectKeyIdentifier;
		return {
			der,
			pem: toPem("CERTIFICATE", der),
			subject: formatName(fields.subject),
			issuer: formatName(fields.issuer),
			serialNumber: serialHex(fields.serial),
			notBefore: fields.notBefore,
			notAfter: fields.notAfter,
			keyAlgorithm: algorithm,
			keyBits: bits,
			fingerprint: formatFingerprint(digestBytes("sha256", der)),
			...(ski ? { subjectKeyIdentifier: colonHex(ski) } : {}),
		};
	} catch (error) {
		if (error instanceof BerError) {
			throw new As2Error("INVALID_CERTIFICATE", `cannot read the certificate: ${error.message}`, { cause: error });
		}
		throw error;
	}
}

/** `SHA256:AB:CD:…` from a SHA-256 digest. */
export function formatFingerprint(sha256: Uint8Array): string {
	return `SHA256:${colonHex(sha256)}`;
}

function colonHex(bytes: Uint8Array): string {
	return (toHex(bytes).toUpperCase().match(/../g) ?? []).join(":");
}

function serialHex(serial: Uint8Array): string {
	let i = 0;
	while (i < serial.byteLength - 1 && serial[i] === 0) i++;
	return toHex(serial.subarray(i)).toUpperCase();
}

function keyOf(fields: CertificateFields): { algorithm: string; bits: number } {
	switch (fields.keyAlgorithm) {
		case rsaEncryption:
		case id_RSASSA_PSS:
			return {
				algorithm: fields.keyAlgorithm === rsaEncryption ? "rsa" : "rsa-pss",
				bits: rsaModulusBits(fields.publicKey),
			};
		case id_ecPublicKey: {
			const spki = readRoot(fields.spki);
			const algorithm = expectTag(childrenOf(fields.spki, spki)[0], TAG.SEQUENCE, "algorithm");
			const curve = childrenOf(fields.spki, algorithm)[1];
			const oid = curve?.number === TAG.OID ? oidOf(fields.spki, curve) : "";
			return { algorithm: "ec", bits: CURVE_BITS[oid] ?? 0 };
		}
		case "1.3.101.112":
			return { algorithm: "ed25519", bits: 256 };
		case "1.3.101.113":
			return { algorithm: "ed448", bits: 456 };
		default:
			return { algorithm: fields.keyAlgorithm, bits: 0 };
	}
}

/** Bit length of the modulus of an RSAPublicKey (RFC 8017 Appendix A.1.1). */
export function rsaModulusBits(rsaPublicKey: Uint8Array): number {
	const key = expectTag(readRoot(rsaPublicKey), TAG.SEQUENCE, "RSAPublicKey");
	const modulus = contentOf(rsaPublicKey, expectTag(childrenOf(rsaPublicKey, key)[0], TAG.INTEGER, "modulus"));
	let i = 0;
	while (i < modulus.byteLength && modulus[i] === 0) i++;
	if (i === modulus.byteLength) return 0;
	return (modulus.byteLength - i - 1) * 8 + (32 - Math.clz32(modulus[i]!));
}
