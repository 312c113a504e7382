import { childrenOf, contentOf, encodingOf, is, oidOf, TAG, type Tlv, timeOf } from "../certs/ber-reader.ts";
import { compareDer, der, derOctetString, derOid, derTime, encodeDer } from "../certs/der-writer.ts";
import {
	id_aa_CMSAlgorithmProtection,
	id_contentType,
	id_data,
	id_messageDigest,
	id_signingTime,
} from "../certs/oids.ts";
import { As2Error } from "../errors/index.ts";

export interface SignedAttributesInput {
	messageDigest: Uint8Array;
	signingTime: Date;
	/** DER DigestAlgorithmIdentifier and SignatureAlgorithmIdentifier for RFC 6211, if wanted. */
	algorithmProtection?: { digestAlgorithm: Uint8Array; signatureAlgorithm: Uint8Array };
}

/**
 * The DER `SET OF Attribute` that is signed (RFC 5652 §5.4): content-type (id-data),
 * signing-time, message-digest (§11.1-11.3) and optionally CMSAlgorithmProtection
 * (RFC 6211 §2), in DER SET OF order (X.690 §11.6). In the SignerInfo the same bytes
 * appear with the tag `[0] IMPLICIT` (0xa0) instead of SET (0x31).
 */
export function encodeSignedAttributes(input: SignedAttributesInput): Uint8Array {
	const attributes = [
		attribute(id_contentType, derOid(id_data)),
		attribute(id_signingTime, derTime(input.signingTime)),
		attribute(id_messageDigest, encodeDer(derOctetString(input.messageDigest))),
	];
	if (input.algorithmProtection) {
		// CMSAlgorithmProtection ::= SEQUENCE { digestAlgorithm, signatureAlgorithm [1] IMPLICIT … }
		// A copy, never a view: Buffer#slice shares memory and the caller's bytes must not change.
		const signature = Uint8Array.from(input.algorithmProtection.signatureAlgorithm);
		signature[0] = 0xa1;
		attributes.push(
			attribute(
				id_aa_CMSAlgorithmProtection,
				encodeDer(der(0x30, input.algorithmProtection.digestAlgorithm, signature)),
			),
		);
	}
	attributes.sort(compareDer);
	return encodeDer(der(0x31, ...attributes));
}

function attribute(type: string, value: Uint8Array): Uint8Array {
	return encodeDer(der(0x30, derOid(type), der(0x31, value)));
}

/** What a receiver reads from the signed attributes. */
export interface SignedAttributes {
	/** The bytes the signature covers: the attributes as received, tagged SET (RFC 5652 §5.4). */
	signedBytes: Uint8Array;
	contentType?: string;
	messageDigest?: Uint8Array;
	signingTime?: Date;
	/** RFC 6211 attribute: the protected AlgorithmIdentifiers (DER, `[1]` re-tagged as SEQUENCE). */
	algorithmProtection?: { digestAlgorithm: Uint8Array; signatureAlgorithm?: Uint8Array };
}

/**
 * Reads `signedAttrs [0] IMPLICIT` from a SignerInfo. The signed bytes are the ORIGINAL
 * encoding with its first octet replaced by 0x31, not a re-serialization: senders' encodings
 * vary (non-minimal lengths, unsorted SETs) and the signature covers what they wrote. A BER
 * indefinite length gets a definite header over the same contents. The values are views
 * into `bytes` (readSignedData's own copy); the signed bytes are a copy, re-tagged.
 */
export function readSignedAttributes(bytes: Uint8Array, tlv: Tlv): SignedAttributes {
	let signedBytes: Uint8Array;
	if (tlv.indefinite) {
		signedBytes = encodeDer(der(0x31, bytes.subarray(tlv.contentStart, tlv.contentEnd)));
	} else {
		signedBytes = new Uint8Array(bytes.subarray(tlv.start, tlv.end));
		signedBytes[0] = 0x31;
	}
	const out: SignedAttributes = { signedBytes };
	for (const attr of childrenOf(bytes, tlv)) {
		const [typeTlv, valuesTlv] = childrenOf(bytes, attr);
		if (!is(typeTlv, 0, TAG.OID) || !is(valuesTlv, 0, TAG.SET)) throw malformed("an Attribute is malformed");
		const type = oidOf(bytes, typeTlv);
		const values = childrenOf(bytes, valuesTlv);
		const single = () => {
			// RFC 5652 §11.1-11.3: these attributes MUST have exactly one value.
			if (values.length !== 1) throw malformed(`attribute ${type} must have exactly one value`);
			return values[0]!;
		};
		switch (type) {
			case id_contentType:
				if (out.contentType !== undefined) throw malformed("two content-type attributes");
				out.contentType = oidOf(bytes, single());
				break;
			case id_messageDigest: {
				if (out.messageDigest !== undefined) throw malformed("two message-digest attributes");
				const value = single();
				if (!is(value, 0, TAG.OCTET_STRING)) throw malformed("message-digest is not an OCTET STRING");
				out.messageDigest = contentOf(bytes, value);
				break;
			}
			case id_signingTime:
				out.signingTime = timeOf(bytes, single());
				break;
			case id_aa_CMSAlgorithmProtection: {
				const value = single();
				const [digestAlgorithm, ...rest] = childrenOf(bytes, value);
				if (!is(digestAlgorithm, 0, TAG.SEQUENCE)) throw malformed("CMSAlgorithmProtection without digestAlgorithm");
				const signature = rest.find((item) => is(item, 2, 1));
				for (const algorithm of [digestAlgorithm, signature]) {
					if (algorithm && !is(childrenOf(bytes, algorithm)[0], 0, TAG.OID)) {
						throw malformed("CMSAlgorithmProtection holds a malformed AlgorithmIdentifier");
					}
					if (algorithm) oidOf(bytes, childrenOf(bytes, algorithm)[0]!);
				}
				out.algorithmProtection = {
					digestAlgorithm: encodingOf(bytes, digestAlgorithm),
					...(signature ? { signatureAlgorithm: retagged(bytes, signature, 0x30) } : {}),
				};
				break;
			}
			default:
				break;
		}
	}
	return out;
}

function retagged(bytes: Uint8Array, tlv: Tlv, tag: number): Uint8Array {
	const out = new Uint8Array(encodingOf(bytes, tlv));
	out[0] = tag;
	return out;
}

function malformed(message: string): As2Error {
	return new As2Error("MALFORMED_CMS", `signed attributes: ${message}`);
}
