import { DIGESTS, type DigestAlgorithm } from "../algorithms.ts";
import { equalBytes } from "../bytes/index.ts";
import { BerError } from "../certs/ber-reader.ts";
import { type CertificateFields, readCertificateFields } from "../certs/certificate-fields.ts";
import { rsaPublicKeyOf } from "../certs/certificate-key.ts";
import { id_data } from "../certs/oids.ts";
import { checkValidity as checkCertificateValidity } from "../certs/validity.ts";
import { digestBytes, type PublicKey, type SignatureCheck, verifyDigestSignature } from "../crypto/index.ts";
import { As2Error, isAs2Error } from "../errors/index.ts";
import { sameAlgorithm } from "./signed-algorithms.ts";
import { describeSigner, findCertificate, identifies, type SignatureInfo } from "./signed-inspect.ts";
import { type ParsedSignedData, type ParsedSignerInfo, readSignedData } from "./signed-reader.ts";

export interface VerifyOptions {
	/**
	 * The partner's certificates. When given, the signer must be one of them; otherwise the
	 * certificate embedded in the SignedData is used (authenticity then rests on the caller).
	 * Parsed certificates are cached per Uint8Array: pass the same arrays message after message.
	 */
	trustedCertificates?: Uint8Array[];
	/** The time the signer's certificate must be valid at. Default: now. */
	at?: Date;
	/** Check the signer certificate's validity period. Default true. */
	checkValidity?: boolean;
}

/**
 * Verifies a detached SignedData (RFC 5652 §5.6) against content the caller hashed while
 * streaming it. `contentDigest(algorithm)` returns that digest, or undefined when the caller
 * did not compute `algorithm` (AUTHENTICATION_FAILED "digest not computed").
 *
 * Failures: AUTHENTICATION_FAILED (bad signature, signer not trusted), INTEGRITY_CHECK_FAILED
 * (content changed), CERTIFICATE_EXPIRED, MALFORMED_CMS, UNSUPPORTED_ALGORITHM.
 *
 * @example
 * const { digest } = inspectSignedData(p7s);
 * const mic = digestBytes(digest, signedPart);
 * verifyDetached(p7s, (a) => (a === digest ? mic : undefined), { trustedCertificates: [partnerCert] });
 */
export function verifyDetached(
	der: Uint8Array,
	contentDigest: (algorithm: DigestAlgorithm) => Uint8Array | undefined,
	opts: VerifyOptions = {},
): SignatureInfo {
	try {
		return verify(der, contentDigest, opts);
	} catch (error) {
		if (error instanceof BerError)
			throw new As2Error("MALFORMED_CMS", `invalid SignedData: ${error.message}`, { cause: error });
		throw error;
	}
}

function verify(
	der: Uint8Array,
	contentDigest: (algorithm: DigestAlgorithm) => Uint8Array | undefined,
	opts: VerifyOptions,
): SignatureInfo {
	const parsed = readSignedData(der);
	if (parsed.signerInfos.length === 0) throw new As2Error("MALFORMED_CMS", "the SignedData has no SignerInfo");
	const trusted = opts.trustedCertificates?.map(trustedFields);
	// Several SignerInfos are rare in AS2; use the first whose signer we can find.
	let chosen: { signerInfo: ParsedSignerInfo; candidates: CertificateFields[] } | undefined;
	for (const signerInfo of parsed.signerInfos) {
		const candidates = candidatesFor(parsed, signerInfo, trusted);
		if (candidates.length > 0) {
			chosen = { signerInfo, candidates };
			break;
		}
	}
	if (!chosen) {
		throw new As2Error(
			"AUTHENTICATION_FAILED",
			trusted
				? "the signer is not among the trusted certificates"
				: "the SignedData carries no certificate for its signer (and no trusted certificate was given)",
		);
	}
	const { signerInfo, candidates } = chosen;
	const signer = verifySignature(signerInfo, parsed, candidates, contentDigest);
	if (opts.checkValidity !== false) checkCertificateValidity(signer.der, opts.at ?? new Date());
	return describeSigner(signerInfo, parsed.certificates, signer.der);
}

function trustedFields(der: Uint8Array): CertificateFields {
	try {
		return readCertificateFields(der);
	} catch (error) {
		if (isAs2Error(error))
			throw new As2Error("INVALID_CERTIFICATE", `a trusted certificate is unreadable: ${error.message}`, {
				cause: error,
			});
		throw error;
	}
}

/**
 * Certificates to try for a SignerInfo, best first:
 * 1. trusted certificates named by the sid (issuerAndSerialNumber or subjectKeyIdentifier);
 * 2. tolerant: trusted certificates with the same public key as the embedded certificate the
 *    sid names (a partner re-issued its certificate on the same key);
 * 3. tolerant: when the SignedData carries no certificate for the sid (`-nocerts`, or a sid
 *    re-encoded by the sender), every trusted certificate; the signature decides.
 * Without trusted certificates: the embedded certificate the sid names.
 */
function candidatesFor(
	parsed: ParsedSignedData,
	signerInfo: ParsedSignerInfo,
	trusted: CertificateFields[] | undefined,
): CertificateFields[] {
	const named = trusted?.filter((fields) => identifies(signerInfo.sid, fields));
	if (trusted && named && named.length > 0) return named;
	// Only now the embedded certificates are read (they are new bytes in every message).
	const embedded = findCertificate(parsed.certificates, signerInfo.sid);
	if (!trusted) return embedded ? [embedded] : [];
	if (embedded) return trusted.filter((fields) => equalBytes(fields.publicKey, embedded.publicKey));
	return trusted;
}

function verifySignature(
	signerInfo: ParsedSignerInfo,
	parsed: ParsedSignedData,
	candidates: CertificateFields[],
	contentDigest: (algorithm: DigestAlgorithm) => Uint8Array | undefined,
): CertificateFields {
	const params = signerInfo.signature;
	const attributes = signerInfo.signedAttributes;
	const digestOf = (algorithm: DigestAlgorithm): Uint8Array => {
		const value = contentDigest(algorithm);
		if (!value) {
			throw new As2Error(
				"AUTHENTICATION_FAILED",
				`content digest not computed: the signature needs ${DIGESTS[algorithm].micalg}`,
				{
					details: { digest: algorithm },
				},
			);
		}
		return value;
	};

	if (!attributes) {
		// RFC 5652 §5.4: without signed attributes the signature covers the content digest.
		const digest = digestOf(params.digest);
		const { signer, check } = firstVerifying(candidates, (key) =>
			verifyDigestSignature(key, params, digest, signerInfo.signatureValue),
		);
		if (check === "digest-mismatch") {
			throw new As2Error("INTEGRITY_CHECK_FAILED", "the content does not match the signature (it changed in transit)");
		}
		if (!signer)
			throw new As2Error("AUTHENTICATION_FAILED", "the signature does not verify with the signer's certificate");
		return signer;
	}

	// RFC 5652 §5.3, §11.1: content-type and message-digest MUST be present.
	if (attributes.contentType === undefined || attributes.messageDigest === undefined) {
		throw new As2Error("MALFORMED_CMS", "signed attributes lack content-type or message-digest");
	}
	if (attributes.contentType !== parsed.eContentType || attributes.contentType !== id_data) {
		throw new As2Error(
			"AUTHENTICATION_FAILED",
			`the signed content-type ${attributes.contentType} does not match the content (${parsed.eContentType})`,
		);
	}
	// RFC 6211 §3: the protected algorithms must be those of the SignerInfo.
	const protection = attributes.algorithmProtection;
	if (
		protection &&
		(!sameAlgorithm(protection.digestAlgorithm, signerInfo.digestAlgorithm) ||
			(protection.signatureAlgorithm !== undefined &&
				!sameAlgorithm(protection.signatureAlgorithm, signerInfo.signatureAlgorithm)))
	) {
		throw new As2Error(
			"AUTHENTICATION_FAILED",
			"CMSAlgorithmProtection does not match the SignerInfo algorithms (RFC 6211)",
		);
	}
	const attributesDigest = digestBytes(params.digest, attributes.signedBytes);
	const { signer } = firstVerifying(candidates, (key) =>
		verifyDigestSignature(key, params, attributesDigest, signerInfo.signatureValue),
	);
	if (!signer)
		throw new As2Error("AUTHENTICATION_FAILED", "the signature does not verify with the signer's certificate");
	if (!equalBytes(digestOf(signerInfo.digest), attributes.messageDigest)) {
		throw new As2Error(
			"INTEGRITY_CHECK_FAILED",
			"the content digest differs from the signed message-digest (the content changed)",
		);
	}
	return signer;
}

/**
 * Tries each candidate key; "valid" wins, else the first "digest-mismatch" (right key, other
 * content) is reported so the caller can tell tampering from a wrong key.
 */
function firstVerifying(
	candidates: CertificateFields[],
	check: (key: PublicKey) => SignatureCheck,
): { signer?: CertificateFields; check: SignatureCheck } {
	let mismatch: CertificateFields | undefined;
	for (const fields of candidates) {
		let key: PublicKey;
		try {
			key = rsaPublicKeyOf(fields);
		} catch (error) {
			// A non-RSA certificate among several trusted ones is skipped, not fatal.
			if (candidates.length === 1 || !isAs2Error(error)) throw error;
			continue;
		}
		const result = check(key);
		if (result === "valid") return { signer: fields, check: result };
		if (result === "digest-mismatch") mismatch ??= fields;
	}
	return mismatch ? { check: "digest-mismatch" } : { check: "invalid" };
}
