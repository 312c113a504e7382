import { CIPHERS, type ContentEncryptionAlgorithm, DES_CBC_OID, RC2_CBC_OID } from "../algorithms.ts";
import {
	childrenOf,
	derAlgorithmIdentifier,
	derInteger,
	derOctetString,
	derSequence,
	expectTag,
	parseTlv,
	TAG,
	tlvOid,
	tlvSmallInteger,
	toDefiniteLength,
} from "../asn1/index.ts";
import { As2Error } from "../errors/index.ts";

/** Content-encryption algorithms we decrypt: ours plus two legacy ones from old AS2 products. */
export type DecryptionAlgorithm = ContentEncryptionAlgorithm | "rc2" | "des";

/** A content-encryption AlgorithmIdentifier, read. */
export interface ContentCipher {
	readonly algorithm: DecryptionAlgorithm;
	/** OpenSSL cipher name. */
	readonly nodeName: string;
	readonly keyLength: number;
	readonly iv: Uint8Array;
	readonly aead: boolean;
	/** CBC block size; 1 for GCM (no padding). */
	readonly blockSize: number;
	/** GCM tag length (RFC 5084 §3.2 aes-ICVlen). */
	readonly icvLength?: number;
	/** RC2 effective key bits (RFC 2268 §2). */
	readonly effectiveKeyBits?: number;
}

/** RFC 5084 §3.2: we send 12-octet nonces and 16-octet ICVs. */
export const GCM_ICV_LENGTH = 16;

export function blockSizeOf(algorithm: ContentEncryptionAlgorithm): number {
	return CIPHERS[algorithm].aead ? 1 : algorithm === "3des" ? 8 : 16;
}

/**
 * DER ContentEncryptionAlgorithmIdentifier:
 * - 3DES: `CBCParameter ::= IV` (RFC 3370 §5.1), an OCTET STRING of 8;
 * - AES-CBC: `AES-IV ::= OCTET STRING (SIZE(16))` (RFC 3565 §4.1);
 * - AES-GCM: `GCMParameters ::= SEQUENCE { aes-nonce OCTET STRING, aes-ICVlen AES-GCM-ICVlen
 *   DEFAULT 12 }` (RFC 5084 §3.2); 16 differs from the DEFAULT, so it is written.
 */
export function contentEncryptionAlgorithmIdentifier(
	algorithm: ContentEncryptionAlgorithm,
	iv: Uint8Array,
): Uint8Array {
	const spec = CIPHERS[algorithm];
	const parameters = spec.aead ? derSequence(derOctetString(iv), derInteger(GCM_ICV_LENGTH)) : derOctetString(iv);
	return derAlgorithmIdentifier(spec.oid, parameters);
}

/**
 * Reads a ContentEncryptionAlgorithmIdentifier (BER accepted). Unknown algorithms and
 * parameters out of range are UNSUPPORTED_ALGORITHM; broken encodings MALFORMED_CMS.
 */
export function parseContentEncryptionAlgorithm(ber: Uint8Array): ContentCipher {
	// AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }
	const fields = childrenOf(expectTag(parseTlv(toDefiniteLength(ber)), TAG.SEQUENCE, "contentEncryptionAlgorithm"));
	if (fields.length > 2) throw new As2Error("MALFORMED_CMS", "contentEncryptionAlgorithm has more than two fields");
	const oid = tlvOid(fields[0], "contentEncryptionAlgorithm algorithm");
	const parameters = fields[1]?.encoded;
	const params = () => {
		if (!parameters) throw new As2Error("MALFORMED_CMS", `contentEncryptionAlgorithm ${oid} without parameters`);
		return parseTlv(parameters);
	};
	for (const [name, spec] of Object.entries(CIPHERS) as Array<
		[ContentEncryptionAlgorithm, (typeof CIPHERS)["aes128"]]
	>) {
		if (spec.oid !== oid) continue;
		if (spec.aead) {
			const [nonce, icv] = childrenOf(expectTag(params(), TAG.SEQUENCE, "GCMParameters"));
			const iv = expectTag(nonce, TAG.OCTET_STRING, "GCMParameters aes-nonce").content;
			const icvLength = icv ? tlvSmallInteger(icv, "GCMParameters aes-ICVlen") : 12;
			if (icvLength < 12 || icvLength > 16 || iv.byteLength === 0 || iv.byteLength > 64) {
				throw new As2Error(
					"UNSUPPORTED_ALGORITHM",
					`AES-GCM with a ${iv.byteLength}-octet nonce and ${icvLength}-octet ICV`,
				);
			}
			return {
				algorithm: name,
				nodeName: spec.nodeName,
				keyLength: spec.keySize,
				iv,
				aead: true,
				blockSize: 1,
				icvLength,
			};
		}
		const iv = expectTag(params(), TAG.OCTET_STRING, "IV").content;
		if (iv.byteLength !== spec.ivSize) throw new As2Error("MALFORMED_CMS", `${name} IV of ${iv.byteLength} octets`);
		return {
			algorithm: name,
			nodeName: spec.nodeName,
			keyLength: spec.keySize,
			iv,
			aead: false,
			blockSize: blockSizeOf(name),
		};
	}
	if (oid === DES_CBC_OID) {
		const iv = expectTag(params(), TAG.OCTET_STRING, "DES IV").content;
		if (iv.byteLength !== 8) throw new As2Error("MALFORMED_CMS", `DES IV of ${iv.byteLength} octets`);
		return { algorithm: "des", nodeName: "des-cbc", keyLength: 8, iv, aead: false, blockSize: 8 };
	}
	if (oid === RC2_CBC_OID) return parseRc2(params());
	throw new As2Error("UNSUPPORTED_ALGORITHM", `unsupported content-encryption algorithm ${oid}`);
}

/** RFC 2268 §6: rc2ParameterVersion for the effective key bits senders use (OpenSSL `-rc2-40/64/128`). */
const RC2_VERSIONS: Readonly<Record<number, number>> = { 160: 40, 120: 64, 58: 128 };
/** RFC 2268 §6: an IV alone stands for the default of 32 effective key bits. */
const RC2_DEFAULT_BITS = 32;

/**
 * RC2-CBC parameters (RFC 3370 §5.2, RFC 2268 §6):
 *
 * ```asn1
 * RC2-CBCParameter ::= CHOICE {
 *   iv IV,                                        -- 32 effective key bits
 *   params SEQUENCE { version RC2Version, iv IV } }  -- RFC 3370 §5.2: what CMS senders write
 * IV ::= OCTET STRING (SIZE(8))
 * ```
 *
 * The version encodes the effective key bits (160 → 40, 120 → 64, 58 → 128). The key is as
 * long as its effective bits, as OpenSSL sets it; for the bare IV that makes 4 octets, the one
 * reading on which RFC 2268 (32 effective bits) and the JCE (effective bits = key bits) agree.
 * Decryption only: RC2 is never sent.
 */
function parseRc2(parameters: ReturnType<typeof parseTlv>): ContentCipher {
	let bits: number | undefined;
	let iv: Uint8Array;
	if (parameters.header.tag === TAG.OCTET_STRING) {
		bits = RC2_DEFAULT_BITS;
		iv = parameters.content;
	} else {
		const [version, ivTlv, extra] = childrenOf(expectTag(parameters, TAG.SEQUENCE, "RC2CBCParameter"));
		if (extra) throw new As2Error("MALFORMED_CMS", "RC2CBCParameter has more than two fields");
		iv = expectTag(ivTlv, TAG.OCTET_STRING, "RC2 IV").content;
		bits = RC2_VERSIONS[tlvSmallInteger(version, "rc2ParameterVersion")];
	}
	if (iv.byteLength !== 8) throw new As2Error("MALFORMED_CMS", `RC2 IV of ${iv.byteLength} octets`);
	if (bits === undefined) throw new As2Error("UNSUPPORTED_ALGORITHM", "RC2 with an unsupported effective key size");
	const nodeName = bits === 128 ? "rc2-cbc" : `rc2-${bits}-cbc`;
	return { algorithm: "rc2", nodeName, keyLength: bits / 8, iv, aead: false, blockSize: 8, effectiveKeyBits: bits };
}
