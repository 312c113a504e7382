import { CONTEXT, childrenOf, is, oidOf, readTlv, TAG } from "../certs/ber-reader.ts";
import { id_messageDigest, id_signingTime } from "../certs/oids.ts";
import { As2Error } from "../errors/index.ts";

/**
 * A ContentInfo(SignedData) of one signing identity with its per-message fields left as holes
 * (issue #20). Everything else — certificates, issuer and serial, algorithm identifiers, the
 * content-type attribute, RFC 6211's CMSAlgorithmProtection — is the same bytes message after
 * message, and every hole has a fixed length: an RSA signature is as long as the modulus
 * (RFC 8017 §8.2.1), a message digest as long as its hash, and a signing-time of one ASN.1
 * type is always as long (RFC 5652 §11.3 → RFC 5280 §4.1.2.5: UTCTime up to 2049,
 * GeneralizedTime after). The DER order of the signed attributes (X.690 §11.6) follows from
 * their lengths and OIDs alone, so a template made from one real encoding holds for all.
 */
export interface SignedDataTemplate {
	readonly der: Uint8Array;
	/** The SignerInfo's `signedAttrs [0] IMPLICIT`, tag included; absent without signed attributes. */
	readonly attributes?: {
		readonly start: number;
		readonly end: number;
		/** The signing-time value's TLV: its template is the first it was made for. */
		readonly timeStart: number;
		readonly timeEnd: number;
		/** The message-digest OCTET STRING's contents. */
		readonly digestStart: number;
	};
	/** The signature OCTET STRING's contents: the last octets of the whole encoding. */
	readonly signatureStart: number;
}

/**
 * Finds the holes of a SignedData encoded by `encodeContentInfo`: the signature is its last
 * `signatureLength` octets; the signed attributes end where the signatureAlgorithm before it
 * starts (RFC 5652 §5.3: signedAttrs, signatureAlgorithm, signature).
 */
export function makeTemplate(
	der: Uint8Array,
	signatureLength: number,
	signatureTail: number,
	attributesLength: number | undefined,
): SignedDataTemplate {
	const signatureStart = der.byteLength - signatureLength;
	if (attributesLength === undefined) return { der, signatureStart };
	const end = der.byteLength - signatureTail;
	const start = end - attributesLength;
	const root = readTlv(der, start, end);
	if (!is(root, CONTEXT, 0) || root.end !== end) throw templateBroken("signed attributes not where expected");
	let time: { start: number; end: number } | undefined;
	let digestStart: number | undefined;
	for (const attribute of childrenOf(der, root)) {
		const [type, values] = childrenOf(der, attribute);
		const value = values && childrenOf(der, values)[0];
		if (!type || !value) throw templateBroken("an attribute without a value");
		const oid = oidOf(der, type);
		if (oid === id_signingTime) time = value;
		else if (oid === id_messageDigest && is(value, 0, TAG.OCTET_STRING)) digestStart = value.contentStart;
	}
	if (!time || digestStart === undefined) throw templateBroken("no signing-time or message-digest");
	return {
		der,
		attributes: { start, end, timeStart: time.start, timeEnd: time.end, digestStart },
		signatureStart,
	};
}

/** Whether a signing-time encoding fits the template's hole (same ASN.1 type, same length). */
export function fitsTime(template: SignedDataTemplate, time: Uint8Array): boolean {
	const attributes = template.attributes;
	return (
		attributes !== undefined &&
		time.byteLength === attributes.timeEnd - attributes.timeStart &&
		time[0] === template.der[attributes.timeStart]
	);
}

/**
 * A new SignedData from the template: signing-time and message-digest written into the
 * attributes, which are signed as `SET OF` (RFC 5652 §5.4: the signature covers them tagged
 * 0x31, they travel tagged 0xa0), then the signature written in.
 */
export function fillTemplate(
	template: SignedDataTemplate,
	fields: { time?: Uint8Array; digest?: Uint8Array },
	sign: (signedAttributes: Uint8Array | undefined) => Uint8Array,
): Uint8Array {
	const unsigned = fillFields(template, fields);
	return placeSignature(template, unsigned.der, sign(unsigned.signedAttributes));
}

/** A SignedData from the template with its fields written in and its signature still a hole. */
export interface UnsignedData {
	readonly der: Uint8Array;
	/** The signed attributes as they are signed (tagged 0x31), a copy; absent without them. */
	readonly signedAttributes?: Uint8Array;
}

/** The first half of {@link fillTemplate}, for a signature made elsewhere (another thread). */
export function fillFields(
	template: SignedDataTemplate,
	fields: { time?: Uint8Array; digest?: Uint8Array },
): UnsignedData {
	const der = template.der.slice();
	const attributes = template.attributes;
	if (!attributes) return { der };
	der.set(fields.time!, attributes.timeStart);
	der.set(fields.digest!, attributes.digestStart);
	const signedAttributes = der.slice(attributes.start, attributes.end);
	signedAttributes[0] = 0x31;
	return { der, signedAttributes };
}

/** The second half of {@link fillTemplate}: the signature written into its hole. */
export function placeSignature(template: SignedDataTemplate, der: Uint8Array, signature: Uint8Array): Uint8Array {
	if (signature.byteLength !== der.byteLength - template.signatureStart) {
		throw new As2Error(
			"SIGNING_FAILED",
			`RSA signature of ${signature.byteLength} bytes, expected ${der.byteLength - template.signatureStart}`,
		);
	}
	der.set(signature, template.signatureStart);
	return der;
}

function templateBroken(message: string): As2Error {
	return new As2Error("INTERNAL_ERROR", `SignedData template: ${message}`);
}
