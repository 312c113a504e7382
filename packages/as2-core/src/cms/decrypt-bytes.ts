import { TAG } from "../asn1/index.ts";
import { concatBytes, plainBytes } from "../bytes/index.ts";
import { childrenOf, type Tlv } from "../certs/ber-reader.ts";
import { As2Error } from "../errors/index.ts";
import { parseContentEncryptionAlgorithm } from "./content-encryption.ts";
import {
	checkContentCipher,
	DEFAULT_MAX_HEADER_BYTES,
	type DecryptOptions,
	type DecryptResult,
	finishDecryption,
	MAX_ALGORITHM_BYTES,
	noEncryptedContent,
	startDecryption,
} from "./enveloped-data.ts";
import {
	elementEncoding,
	expectElement,
	octetStringContent,
	primitiveContent,
	readContentInfoBytes,
	readingBer,
	tagOf,
} from "./in-memory-ber.ts";
import { parseRecipientInfos } from "./recipient-info.ts";

/** What {@link decryptBytes} returns: the plaintext whole. */
export interface DecryptedBytes extends Omit<DecryptResult, "content"> {
	content: Uint8Array;
}

/**
 * {@link decrypt} of a small EnvelopedData or AuthEnvelopedData held in memory, in one
 * synchronous step (unpack's buffered path): the same structure checks, key recovery and
 * errors, BER or DER, read with the in-memory BER reader. Errors the streaming reader
 * reports at the end of its content stream are thrown here.
 *
 * @example
 * const { content } = decryptBytes(der, { privateKey, certificate });
 */
export function decryptBytes(der: Uint8Array, opts: DecryptOptions): DecryptedBytes {
	const bytes = plainBytes(der);
	return readingBer("CMS structure", () => {
		const { kind, oid, content } = readContentInfoBytes(bytes);
		if (kind !== "enveloped-data" && kind !== "auth-enveloped-data") {
			throw new As2Error("MALFORMED_CMS", `expected EnvelopedData or AuthEnvelopedData, found ${kind ?? oid}`);
		}
		// EnvelopedData ::= SEQUENCE { version, originatorInfo [0] IMPLICIT OPTIONAL,
		//   recipientInfos, encryptedContentInfo, unprotectedAttrs [1] IMPLICIT OPTIONAL }
		// (RFC 5652 §6.1); AuthEnvelopedData (RFC 5083 §2.1) continues with authAttrs, mac.
		const what = kind === "enveloped-data" ? "EnvelopedData" : "AuthEnvelopedData";
		const items = childrenOf(bytes, expectElement(bytes, content, TAG.SEQUENCE, what));
		let i = 0;
		primitiveContent(bytes, expectElement(bytes, items[i++], TAG.INTEGER, "version"), 8, "version");
		if (tagOf(bytes, items[i]) === 0xa0) i++; // originatorInfo
		if (tagOf(bytes, items[i]) !== TAG.SET) throw new As2Error("MALFORMED_CMS", "expected RecipientInfos");
		const maxHeaderBytes = opts.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
		const recipients = parseRecipientInfos(elementEncoding(bytes, items[i++]!, maxHeaderBytes, "RecipientInfos"));

		const eci = childrenOf(bytes, expectElement(bytes, items[i++], TAG.SEQUENCE, "EncryptedContentInfo"));
		const typeTlv = expectElement(bytes, eci[0], TAG.OID, "EncryptedContentInfo contentType");
		primitiveContent(bytes, typeTlv, 256, "contentType");
		if (!eci[1]) throw new As2Error("MALFORMED_CMS", "EncryptedContentInfo without contentEncryptionAlgorithm");
		const cipher = parseContentEncryptionAlgorithm(
			elementEncoding(bytes, eci[1], MAX_ALGORITHM_BYTES, "contentEncryptionAlgorithm"),
		);
		checkContentCipher(kind, cipher);
		const encrypted = eci[2];
		if (encrypted?.cls !== 2 || encrypted.number !== 0) throw noEncryptedContent();
		const { decryptor, keyValid, keyEncryption } = startDecryption(recipients, opts, cipher);

		const plain = decryptor.update(octetStringContent(bytes, encrypted));
		if (cipher.aead) decryptor.setAuthTag(readMac(bytes, items[i], cipher.icvLength!));
		const last = finishDecryption(decryptor, keyValid);
		return {
			content: last.byteLength > 0 ? concatBytes([plain, last]) : plain,
			kind,
			algorithm: cipher.algorithm,
			keyEncryption,
		};
	});
}

/** `readMac` of auth-enveloped-data.ts: the `mac` after authEncryptedContentInfo, no authAttrs. */
function readMac(bytes: Uint8Array, tlv: Tlv | undefined, icvLength: number): Uint8Array {
	if (tlv && tlv.cls === 2 && tlv.number === 1) {
		throw new As2Error("UNSUPPORTED_ALGORITHM", "AuthEnvelopedData with authenticated attributes is not supported");
	}
	if (!tlv || (tagOf(bytes, tlv)! | 0x20) !== (TAG.OCTET_STRING | 0x20)) {
		throw new As2Error("MALFORMED_CMS", "AuthEnvelopedData without a mac");
	}
	const mac = octetStringContent(bytes, tlv);
	if (mac.byteLength > 64) throw new As2Error("MESSAGE_TOO_LARGE", "AuthEnvelopedData mac is larger than 64 bytes");
	if (mac.byteLength !== icvLength) {
		throw new As2Error("DECRYPTION_FAILED", `mac of ${mac.byteLength} octets, expected ${icvLength}`);
	}
	return mac;
}
