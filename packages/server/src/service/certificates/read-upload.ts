import {
	type CertificateInfo,
	describeCertificate,
	exportPrivateKeyPem,
	isAs2Error,
	parseCertificates,
	readIdentity,
} from "@as2kit/core";
import { fieldError } from "../validation-error.ts";

/** What an upload carried: PEM or DER certificates (or a .p7b), a private key, or a PKCS#12. */
export interface CertificateUpload {
	certificate?: string | Uint8Array | undefined;
	privateKey?: string | Uint8Array | undefined;
	pkcs12?: Uint8Array | undefined;
	password?: string | undefined;
}

export interface ReadCertificate {
	info: CertificateInfo;
	/** The other certificates that came with it (intermediates), PEM. */
	chainPem: string | null;
	/** PKCS#8 PEM of an identity's private key (to be sealed at once). */
	privateKeyPem: string | null;
}

const MINIMUM_RSA_BITS = 1024;

/**
 * Reads an uploaded certificate (partner) or identity (certificate + key, or PKCS#12) with
 * as2-core. Anything unreadable is a 422 INVALID_CERTIFICATE on the field at fault; keys other
 * than RSA are UNSUPPORTED_ALGORITHM; RSA under 1024 bits is refused (interface spec, Limits:
 * signature key sizes start at 1024 bits).
 */
export function readUpload(upload: CertificateUpload, type: "identity" | "partner"): ReadCertificate {
	let leaf: Uint8Array;
	let chain: Uint8Array[];
	let privateKeyPem: string | null = null;
	if (type === "identity") {
		if (!upload.pkcs12 && !upload.privateKey)
			throw fieldError("private_key", "or pkcs12 is required for an identity certificate");
		try {
			const identity = readIdentity({
				...(upload.pkcs12 ? { pkcs12: upload.pkcs12 } : {}),
				...(upload.privateKey !== undefined ? { key: upload.privateKey } : {}),
				...(upload.certificate !== undefined ? { certificate: upload.certificate } : {}),
				...(upload.password !== undefined ? { password: upload.password } : {}),
			});
			leaf = identity.certificate;
			chain = identity.chain;
			privateKeyPem = exportPrivateKeyPem(identity.privateKey);
		} catch (error) {
			const field = upload.pkcs12
				? "pkcs12"
				: isAs2Error(error) && error.code === "INVALID_CERTIFICATE"
					? "certificate"
					: "private_key";
			throw fieldError(field, `cannot be read: ${messageOf(error)}`, "INVALID_CERTIFICATE");
		}
	} else {
		if (upload.certificate === undefined) throw fieldError("certificate", "is required");
		try {
			const certificates = parseCertificates(upload.certificate);
			leaf = pickLeaf(certificates);
			chain = certificates.filter((c) => c !== leaf);
		} catch (error) {
			throw fieldError("certificate", `cannot be read: ${messageOf(error)}`, "INVALID_CERTIFICATE");
		}
	}
	let info: CertificateInfo;
	try {
		info = describeCertificate(leaf);
	} catch (error) {
		throw fieldError("certificate", `cannot be read: ${messageOf(error)}`, "INVALID_CERTIFICATE");
	}
	if (info.keyAlgorithm !== "rsa" && info.keyAlgorithm !== "rsa-pss") {
		throw fieldError("certificate", `has a ${info.keyAlgorithm} key; AS2 here needs RSA`, "UNSUPPORTED_ALGORITHM");
	}
	if (info.keyBits < MINIMUM_RSA_BITS) {
		throw fieldError(
			"certificate",
			`has a ${info.keyBits}-bit RSA key; at least ${MINIMUM_RSA_BITS} bits are required`,
			"INVALID_CERTIFICATE",
		);
	}
	const chainPem = chain.length ? chain.map((der) => describeCertificate(der).pem).join("") : null;
	return { info, chainPem, privateKeyPem };
}

/** The end-entity certificate of a bundle: the one that issued none of the others. */
function pickLeaf(certificates: Uint8Array[]): Uint8Array {
	if (certificates.length === 1) return certificates[0]!;
	const described = certificates.map((der) => ({ der, info: describeCertificate(der) }));
	const issuers = new Set(described.filter((c) => c.info.subject !== c.info.issuer).map((c) => c.info.issuer));
	return (described.find((c) => !issuers.has(c.info.subject)) ?? described[0]!).der;
}

function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
