import { type BerReader, derOctetString, isTag, TAG, tlvSize } from "../asn1/index.ts";
import { As2Error } from "../errors/index.ts";

/**
 * AuthEnvelopedData (RFC 5083 §2.1), used for AES-GCM (RFC 5084):
 *
 * ```asn1
 * AuthEnvelopedData ::= SEQUENCE {
 *   version CMSVersion,                                  -- always 0
 *   originatorInfo [0] IMPLICIT OriginatorInfo OPTIONAL,
 *   recipientInfos RecipientInfos,
 *   authEncryptedContentInfo EncryptedContentInfo,
 *   authAttrs [1] IMPLICIT AuthAttributes OPTIONAL,
 *   mac MessageAuthenticationCode,                       -- the GCM tag
 *   unauthAttrs [2] IMPLICIT UnauthAttributes OPTIONAL }
 * ```
 *
 * Everything before `authEncryptedContentInfo` is read and written exactly like
 * EnvelopedData (see `enveloped-data.ts`); this module holds what comes after it.
 */
export const AUTH_ENVELOPED_DATA_VERSION = 0;

/** The `mac` field we write after the ciphertext: the 16-octet GCM tag. */
export function macField(tag: Uint8Array): Uint8Array {
	return derOctetString(tag);
}

export function macFieldSize(icvLength: number): number {
	return tlvSize(icvLength);
}

/**
 * Reads what follows authEncryptedContentInfo and returns the tag. `authAttrs` would be
 * GCM's additional authenticated data (RFC 5083 §2.2), which a streaming decryptor must
 * have before the ciphertext but which comes after it; they are only required for
 * content types other than id-data, which AS2 does not send, so they are refused.
 */
export async function readMac(ber: BerReader, icvLength: number): Promise<Uint8Array> {
	const header = await ber.readHeader();
	if (header.tagClass === 2 && header.tagNumber === 1) {
		throw new As2Error("UNSUPPORTED_ALGORITHM", "AuthEnvelopedData with authenticated attributes is not supported");
	}
	if (!isTag(header, TAG.OCTET_STRING)) throw new As2Error("MALFORMED_CMS", "AuthEnvelopedData without a mac");
	const mac = await ber.readOctetString(header, 64, "AuthEnvelopedData mac");
	if (mac.byteLength !== icvLength) {
		throw new As2Error("DECRYPTION_FAILED", `mac of ${mac.byteLength} octets, expected ${icvLength}`);
	}
	return mac;
}
