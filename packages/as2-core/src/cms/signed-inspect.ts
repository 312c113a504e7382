import type { DigestAlgorithm } from "../algorithms.ts";
import { equalBytes } from "../bytes/index.ts";
import { type CertificateFields, matchesIssuerAndSerial, readCertificateFields } from "../certs/certificate-fields.ts";
import { digestBytes } from "../crypto/index.ts";
import { As2Error, isAs2Error } from "../errors/index.ts";
import { type ParsedSignerInfo, readSignedData, type SignerIdentifier } from "./signed-reader.ts";

/** What a SignedData says about its signature. */
export interface SignatureInfo {
	/** The SignerInfo's digest algorithm: the MIC algorithm of RFC 4130 §7.3.1. */
	digest: DigestAlgorithm;
	scheme: "pkcs1" | "pss";
	/** The signer's certificate (after verification: the trusted certificate that verified it). */
	signerCertificate?: Uint8Array;
	/** Certificates carried in the SignedData, DER. */
	certificates: Uint8Array[];
	signingTime?: Date;
	hasSignedAttributes: boolean;
}

/**
 * Reads a SignedData without verifying it: which digest to compute while streaming the
 * content, who signed, when. BER tolerant. The first SignerInfo is described.
 *
 * @example
 * const { digest } = inspectSignedData(p7s); // hash the first part with `digest`
 */
export function inspectSignedData(der: Uint8Array): SignatureInfo & { encapsulatedContent?: Uint8Array } {
	const parsed = readSignedData(der);
	const signerInfo = parsed.signerInfos[0];
	if (!signerInfo) throw new As2Error("MALFORMED_CMS", "the SignedData has no SignerInfo");
	const signer = findCertificate(parsed.certificates, signerInfo.sid);
	return {
		...describeSigner(signerInfo, parsed.certificates, signer?.der),
		...(parsed.eContent ? { encapsulatedContent: parsed.eContent } : {}),
	};
}

export function describeSigner(
	signerInfo: ParsedSignerInfo,
	certificates: Uint8Array[],
	signerCertificate: Uint8Array | undefined,
): SignatureInfo {
	const signingTime = signerInfo.signedAttributes?.signingTime;
	return {
		digest: signerInfo.digest,
		scheme: signerInfo.signature.scheme,
		...(signerCertificate ? { signerCertificate } : {}),
		certificates,
		...(signingTime ? { signingTime } : {}),
		hasSignedAttributes: signerInfo.signedAttributes !== undefined,
	};
}

/** The certificate among `certificates` that RFC 5652 §5.3 `sid` names; unreadable ones are skipped. */
export function findCertificate(certificates: Uint8Array[], sid: SignerIdentifier): CertificateFields | undefined {
	for (const der of certificates) {
		let fields: CertificateFields;
		try {
			fields = readCertificateFields(der);
		} catch (error) {
			if (isAs2Error(error)) continue;
			throw error;
		}
		if (identifies(sid, fields)) return fields;
	}
	return undefined;
}

export function identifies(sid: SignerIdentifier, fields: CertificateFields): boolean {
	if (sid.subjectKeyIdentifier === undefined) return matchesIssuerAndSerial(fields, sid.issuer, sid.serial);
	// RFC 5280 §4.2.1.2 method (1) when the certificate has no SKI extension.
	const ski = fields.subjectKeyIdentifier ?? digestBytes("sha1", fields.publicKey);
	return equalBytes(ski, sid.subjectKeyIdentifier);
}
