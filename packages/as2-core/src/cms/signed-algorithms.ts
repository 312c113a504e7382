import { DIGESTS, type DigestAlgorithm, digestByOid, type SignatureScheme } from "../algorithms.ts";
import { equalBytes, toHex } from "../bytes/index.ts";
import { childrenOf, encodingOf, is, oidOf, readRoot, smallIntegerOf, TAG, type Tlv } from "../certs/ber-reader.ts";
import { DER_NULL, der, derOid, derSmallInteger, encodeDer } from "../certs/der-writer.ts";
import {
	id_mgf1,
	id_RSASSA_PSS,
	rsaEncryption,
	sha1WithRSAEncryption,
	sha1WithRSASignature,
	sha256WithRSAEncryption,
	sha384WithRSAEncryption,
	sha512WithRSAEncryption,
} from "../certs/oids.ts";
import type { SignatureParameters } from "../crypto/index.ts";
import { As2Error } from "../errors/index.ts";

const WITH_RSA: Record<DigestAlgorithm, string> = {
	sha1: sha1WithRSAEncryption,
	sha256: sha256WithRSAEncryption,
	sha384: sha384WithRSAEncryption,
	sha512: sha512WithRSAEncryption,
};

const DIGEST_OF_WITH_RSA: Record<string, DigestAlgorithm> = {
	[sha1WithRSAEncryption]: "sha1",
	[sha1WithRSASignature]: "sha1",
	[sha256WithRSAEncryption]: "sha256",
	[sha384WithRSAEncryption]: "sha384",
	[sha512WithRSAEncryption]: "sha512",
};

const encoded = new Map<string, Uint8Array>();
function memo(key: string, make: () => Uint8Array): Uint8Array {
	let value = encoded.get(key);
	if (!value) {
		value = make();
		encoded.set(key, value);
	}
	return value;
}

/** RFC 5754 §2 / RFC 3370 §2.1: digest AlgorithmIdentifiers are written with absent parameters. */
export function digestAlgorithmIdentifier(digest: DigestAlgorithm): Uint8Array {
	return memo(`d:${digest}`, () => encodeDer(der(0x30, derOid(DIGESTS[digest].oid))));
}

/** A hash AlgorithmIdentifier with NULL parameters, as OpenSSL writes inside RSASSA-PSS-params. */
function hashWithNull(digest: DigestAlgorithm) {
	return der(0x30, derOid(DIGESTS[digest].oid), DER_NULL);
}

/**
 * SignatureAlgorithmIdentifier of a SignerInfo:
 * - PKCS#1 v1.5: `sha*WithRSAEncryption` with NULL parameters (RFC 5754 §3.2, RFC 4055 §5);
 *   RFC 3370 §3.2's `rsaEncryption` is accepted on input;
 * - PSS: `id-RSASSA-PSS` with RSASSA-PSS-params (RFC 4056 §3): hash = digest, MGF1 with the
 *   same hash, salt length = hash length; fields equal to their DEFAULT are omitted (DER).
 */
export function signatureAlgorithmIdentifier(digest: DigestAlgorithm, scheme: SignatureScheme): Uint8Array {
	return memo(`s:${digest}:${scheme}`, () => {
		if (scheme === "pkcs1") return encodeDer(der(0x30, derOid(WITH_RSA[digest]), DER_NULL));
		const isDefault = digest === "sha1";
		const params = der(
			0x30,
			...(isDefault
				? []
				: [
						der(0xa0, hashWithNull(digest)),
						der(0xa1, der(0x30, derOid(id_mgf1), hashWithNull(digest))),
						der(0xa2, derSmallInteger(DIGESTS[digest].size)),
					]),
		);
		return encodeDer(der(0x30, derOid(id_RSASSA_PSS), params));
	});
}

/**
 * The digest of a DigestAlgorithmIdentifier. Tolerates a `sha*WithRSAEncryption` OID in
 * this field (some old Java signers put the signature algorithm there).
 */
export function readDigestAlgorithm(bytes: Uint8Array, algorithm: Tlv | undefined): DigestAlgorithm {
	const oid = algorithmOid(bytes, algorithm, "digestAlgorithm");
	const digest = digestByOid(oid) ?? DIGEST_OF_WITH_RSA[oid];
	if (!digest) {
		throw new As2Error(
			"UNSUPPORTED_ALGORITHM",
			`unsupported digest algorithm ${oid}${oid === "1.2.840.113549.2.5" ? " (MD5)" : ""}`,
		);
	}
	return digest;
}

/** Signature parameters of a SignatureAlgorithmIdentifier; `digest` is the SignerInfo's. */
export function readSignatureAlgorithm(
	bytes: Uint8Array,
	algorithm: Tlv | undefined,
	digest: DigestAlgorithm,
): SignatureParameters {
	const oid = algorithmOid(bytes, algorithm, "signatureAlgorithm");
	if (oid === rsaEncryption) return { digest, scheme: "pkcs1" };
	const withRsa = DIGEST_OF_WITH_RSA[oid];
	if (withRsa) return { digest: withRsa, scheme: "pkcs1" };
	if (oid === id_RSASSA_PSS) return readPssParameters(bytes, childrenOf(bytes, algorithm!)[1]);
	throw new As2Error("UNSUPPORTED_ALGORITHM", `unsupported signature algorithm ${oid}`);
}

/** RFC 4055 §3.1 RSASSA-PSS-params, with its DEFAULTs (SHA-1, MGF1-SHA-1, salt 20, trailer 1). */
function readPssParameters(bytes: Uint8Array, params: Tlv | undefined): SignatureParameters {
	const out: SignatureParameters = { digest: "sha1", scheme: "pss", saltLength: 20, mgfDigest: "sha1" };
	if (!params || is(params, 0, TAG.NULL)) return out;
	if (!is(params, 0, TAG.SEQUENCE)) throw unsupported("RSASSA-PSS parameters are not a SEQUENCE");
	for (const field of childrenOf(bytes, params)) {
		const value = childrenOf(bytes, field)[0];
		if (is(field, 2, 0)) out.digest = readDigestAlgorithm(bytes, value);
		else if (is(field, 2, 1)) {
			const [mgf, mgfParams] = childrenOf(bytes, expectSequence(value, "maskGenAlgorithm"));
			if (!mgf || oidOf(bytes, mgf) !== id_mgf1) throw unsupported("RSASSA-PSS with a mask generation other than MGF1");
			out.mgfDigest = readDigestAlgorithm(bytes, mgfParams);
		} else if (is(field, 2, 2)) out.saltLength = smallIntegerOf(bytes, expectTlv(value, "saltLength"));
		else if (is(field, 2, 3)) {
			if (smallIntegerOf(bytes, expectTlv(value, "trailerField")) !== 1) throw unsupported("RSASSA-PSS trailer field");
		}
	}
	return out;
}

function algorithmOid(bytes: Uint8Array, algorithm: Tlv | undefined, what: string): string {
	const first = childrenOf(bytes, expectSequence(algorithm, what))[0];
	if (!is(first, 0, TAG.OID)) throw new As2Error("MALFORMED_CMS", `${what} has no algorithm OID`);
	return oidOf(bytes, first);
}

function expectSequence(tlv: Tlv | undefined, what: string): Tlv {
	if (!is(tlv, 0, TAG.SEQUENCE)) throw new As2Error("MALFORMED_CMS", `${what} is not an AlgorithmIdentifier`);
	return tlv;
}

function expectTlv(tlv: Tlv | undefined, what: string): Tlv {
	if (!tlv) throw new As2Error("MALFORMED_CMS", `${what} is missing`);
	return tlv;
}

function unsupported(message: string): As2Error {
	return new As2Error("UNSUPPORTED_ALGORITHM", message);
}

/** RFC 6211 §3 comparison of two DER AlgorithmIdentifiers: same OID and parameters, NULL and absent being equal (RFC 4055 §2.1). */
export function sameAlgorithm(a: Uint8Array, b: Uint8Array): boolean {
	const [oidA, paramsA] = childrenOf(a, readRoot(a));
	const [oidB, paramsB] = childrenOf(b, readRoot(b));
	if (is(oidA, 0, TAG.OID) && equalBytes(a, b)) return true;
	if (!is(oidA, 0, TAG.OID) || !is(oidB, 0, TAG.OID) || oidOf(a, oidA) !== oidOf(b, oidB)) return false;
	const norm = (buf: Uint8Array, p: Tlv | undefined) => (!p || is(p, 0, TAG.NULL) ? "" : toHex(encodingOf(buf, p)));
	return norm(a, paramsA) === norm(b, paramsB);
}
