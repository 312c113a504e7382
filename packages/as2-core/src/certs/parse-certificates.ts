import { fromLatin1, plainBytes } from "../bytes/index.ts";
import { As2Error } from "../errors/index.ts";
import {
	BerError,
	CONTEXT,
	childrenOf,
	encodingOf,
	expectTag,
	is,
	oidOf,
	readTlv,
	TAG,
	type Tlv,
	UNIVERSAL,
} from "./ber-reader.ts";
import { readCertificateFields } from "./certificate-fields.ts";
import { id_signedData } from "./oids.ts";
import { looksLikePem, readPemBlocks } from "./pem.ts";

const CERTIFICATE_LABELS = new Set(["CERTIFICATE", "X509 CERTIFICATE", "TRUSTED CERTIFICATE"]);
/** RFC 7468 §8 says PKCS7; some Windows tools write "PKCS #7 SIGNED DATA". */
const PKCS7_LABELS = new Set(["PKCS7", "CMS", "PKCS #7 SIGNED DATA"]);

/**
 * Reads certificates from what partners send: PEM (one or many, with any surrounding text),
 * DER (one or several concatenated), or a PKCS#7 certificate bundle (.p7b, RFC 2315 /
 * RFC 5652 SignedData without signers) in PEM or DER (pyas2#37: .p7b was unsupported).
 * Returns DER certificates in the order found; INVALID_CERTIFICATE when there are none.
 *
 * @example
 * const [partnerCert] = parseCertificates(readFileSync("partner.pem", "latin1"));
 */
export function parseCertificates(given: string | Uint8Array): Uint8Array[] {
	const input = typeof given === "string" ? given : plainBytes(given);
	if (!looksLikePem(input) && !looksLikeDer(input)) throw new As2Error("INVALID_CERTIFICATE", NEITHER_PEM_NOR_DER);
	const found: Uint8Array[] = [];
	try {
		if (typeof input === "string" || looksLikePem(input)) {
			const text = typeof input === "string" ? input : fromLatin1(input);
			for (const block of readPemBlocks(text)) {
				if (CERTIFICATE_LABELS.has(block.label)) {
					// OpenSSL's TRUSTED CERTIFICATE appends its trust settings after the certificate.
					found.push(block.der.subarray(0, readTlv(block.der, 0).end));
				} else if (PKCS7_LABELS.has(block.label)) {
					found.push(...readDer(block.der));
				}
			}
		} else {
			found.push(...readDer(input));
		}
	} catch (error) {
		if (error instanceof BerError) {
			throw new As2Error(
				"INVALID_CERTIFICATE",
				`the certificate is damaged or truncated (${error.message.replace(/^BER: /, "")})`,
				{ cause: error },
			);
		}
		throw error;
	}
	if (found.length === 0) throw new As2Error("INVALID_CERTIFICATE", "no certificate found in the input");
	for (const der of found) readCertificateFields(der);
	return found;
}

const NEITHER_PEM_NOR_DER =
	"this is neither a PEM certificate (text with -----BEGIN CERTIFICATE-----) nor a DER one (binary X.509, starting with a SEQUENCE)";

/** A DER certificate or ContentInfo is a SEQUENCE (X.690 §8.9): its first byte is 0x30. */
function looksLikeDer(input: string | Uint8Array): boolean {
	return typeof input !== "string" && input[0] === 0x30;
}

/** DER or BER: concatenated certificates, or a ContentInfo holding SignedData. */
function readDer(bytes: Uint8Array): Uint8Array[] {
	const out: Uint8Array[] = [];
	for (let offset = 0; offset < bytes.byteLength; ) {
		const element = expectTag(readTlv(bytes, offset), TAG.SEQUENCE, "certificate or PKCS#7 bundle");
		const first = childrenOf(bytes, element)[0];
		if (is(first, UNIVERSAL, TAG.OID)) out.push(...certificatesOfContentInfo(bytes, element, first));
		else out.push(new Uint8Array(bytes.subarray(element.start, element.end)));
		offset = element.end;
	}
	return out;
}

/** RFC 5652 §5.1: ContentInfo → SignedData → certificates [0] IMPLICIT CertificateSet. */
function certificatesOfContentInfo(bytes: Uint8Array, contentInfo: Tlv, contentType: Tlv): Uint8Array[] {
	if (oidOf(bytes, contentType) !== id_signedData) throw new BerError("BER: a PKCS#7 bundle must be SignedData");
	const explicit = expectTag(childrenOf(bytes, contentInfo)[1], 0, "ContentInfo.content", CONTEXT);
	const signedData = expectTag(childrenOf(bytes, explicit)[0], TAG.SEQUENCE, "SignedData");
	const set = childrenOf(bytes, signedData).find((child) => is(child, CONTEXT, 0));
	if (!set) return [];
	// CertificateChoices: only the plain `certificate` alternative (a SEQUENCE) is a certificate.
	return childrenOf(bytes, set)
		.filter((choice) => is(choice, UNIVERSAL, TAG.SEQUENCE))
		.map((choice) => new Uint8Array(encodingOf(bytes, choice)));
}
