import type { DigestAlgorithm } from "../algorithms.ts";
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
	readTlv,
	TAG,
	type Tlv,
	UNIVERSAL,
} from "../certs/ber-reader.ts";
import { id_signedData } from "../certs/oids.ts";
import type { SignatureParameters } from "../crypto/index.ts";
import { As2Error, isAs2Error } from "../errors/index.ts";
import { readDigestAlgorithm, readSignatureAlgorithm } from "./signed-algorithms.ts";
import { readSignedAttributes, type SignedAttributes } from "./signed-attributes.ts";

/** RFC 5652 §5.3 SignerIdentifier. */
export type SignerIdentifier =
	| { issuer: Uint8Array; serial: Uint8Array; subjectKeyIdentifier?: undefined }
	| { subjectKeyIdentifier: Uint8Array };

export interface ParsedSignerInfo {
	sid: SignerIdentifier;
	digest: DigestAlgorithm;
	/** DER DigestAlgorithmIdentifier as received (RFC 6211 comparison). */
	digestAlgorithm: Uint8Array;
	signature: SignatureParameters;
	signatureAlgorithm: Uint8Array;
	signedAttributes?: SignedAttributes;
	signatureValue: Uint8Array;
}

export interface ParsedSignedData {
	eContentType: string;
	eContent?: Uint8Array;
	/** Certificates (the `certificate` choice only). */
	certificates: Uint8Array[];
	signerInfos: ParsedSignerInfo[];
}

/**
 * Reads a ContentInfo(SignedData) (RFC 5652 §3, §5.1), DER or BER (indefinite lengths,
 * constructed OCTET STRINGs: `openssl cms -sign -stream` and Java senders). Structure
 * errors are MALFORMED_CMS; unknown algorithms UNSUPPORTED_ALGORITHM.
 *
 * The input is copied once and every byte field of the result is a view into that copy: the
 * result never shares memory with the caller's bytes, for one allocation rather than one per
 * field (certificates, identifiers, algorithms, attributes: about ten a message, issue #20).
 */
export function readSignedData(der: Uint8Array): ParsedSignedData {
	try {
		return parse(der instanceof Uint8Array ? new Uint8Array(der) : der);
	} catch (error) {
		if (isAs2Error(error)) throw error;
		if (error instanceof BerError)
			throw new As2Error("MALFORMED_CMS", `invalid SignedData: ${error.message}`, { cause: error });
		throw new As2Error("MALFORMED_CMS", `invalid SignedData: ${(error as Error).message}`, { cause: error });
	}
}

function parse(bytes: Uint8Array): ParsedSignedData {
	if (!(bytes instanceof Uint8Array) || bytes.byteLength === 0) throw new BerError("empty input");
	// Trailing octets after the ContentInfo (padding from a base64 decoder…) are ignored.
	const contentInfo = expectTag(readTlv(bytes, 0), TAG.SEQUENCE, "ContentInfo");
	const [typeTlv, explicit] = childrenOf(bytes, contentInfo);
	const contentType = oidOf(bytes, expectTag(typeTlv, TAG.OID, "contentType"));
	if (contentType !== id_signedData) {
		throw new As2Error("MALFORMED_CMS", `expected SignedData, found content type ${contentType}`);
	}
	const signedData = expectTag(
		childrenOf(bytes, expectTag(explicit, 0, "content", CONTEXT))[0],
		TAG.SEQUENCE,
		"SignedData",
	);
	const items = childrenOf(bytes, signedData);
	expectTag(items[0], TAG.INTEGER, "version");
	expectTag(items[1], TAG.SET, "digestAlgorithms");
	const encap = childrenOf(bytes, expectTag(items[2], TAG.SEQUENCE, "encapContentInfo"));
	const eContentType = oidOf(bytes, expectTag(encap[0], TAG.OID, "eContentType"));
	let eContent: Uint8Array | undefined;
	if (encap[1]) {
		const inner = childrenOf(bytes, expectTag(encap[1], 0, "eContent", CONTEXT))[0];
		eContent = octetsOf(bytes, expectTag(inner, TAG.OCTET_STRING, "eContent"));
	}
	const certificates: Uint8Array[] = [];
	let i = 3;
	if (is(items[i], CONTEXT, 0)) {
		for (const choice of childrenOf(bytes, items[i]!)) {
			if (is(choice, UNIVERSAL, TAG.SEQUENCE)) certificates.push(encodingOf(bytes, choice));
		}
		i++;
	}
	if (is(items[i], CONTEXT, 1)) i++; // crls: not used (no revocation checking in core)
	const signerInfosTlv = expectTag(items[i], TAG.SET, "signerInfos");
	const signerInfos = childrenOf(bytes, signerInfosTlv).map((signerInfo) => readSignerInfo(bytes, signerInfo));
	return { eContentType, ...(eContent ? { eContent } : {}), certificates, signerInfos };
}

function readSignerInfo(bytes: Uint8Array, signerInfo: Tlv): ParsedSignerInfo {
	const items = childrenOf(bytes, expectTag(signerInfo, TAG.SEQUENCE, "SignerInfo"));
	expectTag(items[0], TAG.INTEGER, "SignerInfo.version");
	const sidTlv = items[1];
	let sid: SignerIdentifier;
	if (is(sidTlv, UNIVERSAL, TAG.SEQUENCE)) {
		const [issuer, serial] = childrenOf(bytes, sidTlv);
		sid = {
			issuer: encodingOf(bytes, expectTag(issuer, TAG.SEQUENCE, "issuer")),
			serial: contentOf(bytes, expectTag(serial, TAG.INTEGER, "serialNumber")),
		};
	} else if (is(sidTlv, CONTEXT, 0)) {
		// subjectKeyIdentifier [0] IMPLICIT OCTET STRING (CMS version 3 SignerInfo).
		sid = { subjectKeyIdentifier: octetsOf(bytes, sidTlv) };
	} else {
		throw new BerError("SignerInfo.sid missing or of the wrong type");
	}
	const digestTlv = expectTag(items[2], TAG.SEQUENCE, "digestAlgorithm");
	const digest = readDigestAlgorithm(bytes, digestTlv);
	let i = 3;
	let signedAttributes: SignedAttributes | undefined;
	if (is(items[i], CONTEXT, 0)) signedAttributes = readSignedAttributes(bytes, items[i++]!);
	const signatureAlgorithmTlv = expectTag(items[i++], TAG.SEQUENCE, "signatureAlgorithm");
	const signatureTlv = expectTag(items[i], TAG.OCTET_STRING, "signature");
	return {
		sid,
		digest,
		digestAlgorithm: encodingOf(bytes, digestTlv),
		signature: readSignatureAlgorithm(bytes, signatureAlgorithmTlv, digest),
		signatureAlgorithm: encodingOf(bytes, signatureAlgorithmTlv),
		...(signedAttributes ? { signedAttributes } : {}),
		signatureValue: octetsOf(bytes, signatureTlv),
	};
}
