import type { CompatibilitySwitches, PartnerRecord } from "@as2kit/core/store";
import { effectiveCompatibility } from "./compatibility-profiles.ts";

/**
 * The partner setting that would most likely fix a failed exchange, when a known partner quirk
 * explains the failure (issue #17, Hints): `setting` names the field as PATCH
 * /v1/partners/{id} takes it, `value` what to set it to, `profile` a named profile (GET
 * /v1/compatibility-profiles) that carries that value, and `why` the quirk with its public source.
 */
export type CompatibilityHint = {
	setting: string;
	value: string | boolean;
	profile?: string;
	why: string;
};

/** What the partner answered to a failed exchange. */
export interface PartnerAnswer {
	/**
	 * Our error code: a negative MDN's (DECRYPTION_FAILED, AUTHENTICATION_FAILED …,
	 * PARTNER_REJECTED otherwise), or PARTNER_REJECTED for an HTTP refusal.
	 */
	code: string;
	/** The MDN's disposition and human-readable text, or the HTTP response body. */
	text: string;
	/** Set when the partner refused the HTTP request itself. */
	httpStatus?: number;
}

type AnswerRule = (
	answer: PartnerAnswer,
	switches: CompatibilitySwitches,
	partner: PartnerRecord,
) => CompatibilityHint | null;

const SIGNED_ATTRIBUTES = /signed[\s_-]*attr|authenticated[\s_-]*attr/i;
const ALGORITHM_PROTECTION = /algorithm[\s_-]*protection|1\.2\.840\.113549\.1\.9\.52/i;
const refusedHttp = (answer: PartnerAnswer) =>
	answer.httpStatus !== undefined && answer.httpStatus >= 400 && answer.httpStatus < 500;
const decryptionFailed = (answer: PartnerAnswer) =>
	answer.code === "DECRYPTION_FAILED" || (refusedHttp(answer) && /decrypt/i.test(answer.text));
const signatureFailed = (answer: PartnerAnswer) =>
	answer.code === "AUTHENTICATION_FAILED" ||
	answer.code === "INTEGRITY_CHECK_FAILED" ||
	(refusedHttp(answer) && /signature/i.test(answer.text));

/** In order: the first rule that explains the answer gives the hint. */
const ANSWER_RULES: readonly AnswerRule[] = [
	(answer, switches, partner) =>
		partner.sign && switches.signedAttributes && SIGNED_ATTRIBUTES.test(answer.text)
			? {
					setting: "compatibility.signed_attributes",
					value: false,
					profile: "ibm-sterling",
					why: "The partner's answer names the CMS signed attributes: IBM Sterling rejects signatures that carry them (pyas2-lib#76, django-pyas2#99; as2-anchors §C.5)",
				}
			: null,
	(answer, switches, partner) =>
		partner.sign && switches.algorithmProtection && ALGORITHM_PROTECTION.test(answer.text)
			? {
					setting: "compatibility.algorithm_protection",
					value: false,
					profile: "ibm-sterling",
					why: "The partner's answer names the RFC 6211 algorithm-protection attribute, which IBM Sterling and DataPower reject (OpenAS2 HowTo §17.4; as2-anchors §D.9)",
				}
			: null,
	(answer, switches) =>
		switches.chunked && (answer.httpStatus === 411 || (refusedHttp(answer) && /chunked/i.test(answer.text)))
			? {
					setting: "compatibility.chunked",
					value: false,
					why: "The partner refused a chunked request body: some AS2 servers need Content-Length (OpenAS2 HowTo §17.5; as2-anchors §D.11)",
				}
			: null,
	(answer, switches) =>
		refusedHttp(answer) && /content-transfer-encoding/i.test(answer.text)
			? switches.transferEncoding === "binary"
				? {
						setting: "compatibility.transfer_encoding",
						value: "base64",
						profile: "axway",
						why: "The partner's HTTP refusal names Content-Transfer-Encoding: some receivers cannot read binary parts and answer HTTP 400 (OpenAS2 HowTo 'Binary Encoding'; django-pyas2#5; as2-anchors §C.4)",
					}
				: {
						setting: "compatibility.transfer_encoding",
						value: "binary",
						why: "The partner's HTTP refusal names Content-Transfer-Encoding, and binary is the AS2 default over HTTP (RFC 4130 §5.2; as2-anchors §D.2)",
					}
			: null,
	(answer, switches, partner) => {
		if (!partner.encrypt || !decryptionFailed(answer)) return null;
		if (switches.keyEncryption.startsWith("oaep-")) {
			return {
				setting: "compatibility.key_encryption",
				value: "oaep",
				why: `The partner could not decrypt RSAES-OAEP with ${switches.keyEncryption.slice(5).toUpperCase()}: pyas2-lib and OpenSSL's rsa_padding_mode:oaep use RFC 3560's default parameters, SHA-1 with MGF1-SHA-1 (issue #17, defect 2)`,
			};
		}
		if (switches.keyEncryption === "oaep") {
			return {
				setting: "compatibility.key_encryption",
				value: "rsa",
				why: "The partner could not decrypt RSAES-OAEP: OpenAS2, AWS Transfer Family and django-pyas2 have only PKCS#1 v1.5 key transport (as2-anchors §A)",
			};
		}
		if (partner.encryptAlgorithm?.endsWith("_GCM")) {
			return {
				setting: "encrypt_algorithm",
				value: "AES256_CBC",
				why: "The partner could not decrypt AES-GCM, which travels as AuthEnvelopedData (RFC 5084): OpenAS2 and AWS Transfer Family list only CBC ciphers (as2-anchors §A, §D.9)",
			};
		}
		return null;
	},
	(answer, switches, partner) => {
		if (!partner.sign || !signatureFailed(answer)) return null;
		if (switches.transferEncoding === "binary") {
			return {
				setting: "compatibility.transfer_encoding",
				value: "base64",
				profile: "axway",
				why: "The partner could not verify our signature: Axway B2Bi and RSSBus could not find a signature over binary parts until base64 was used (django-pyas2#5; as2-anchors §C.4, §D.2)",
			};
		}
		if (switches.signedAttributes) {
			return {
				setting: "compatibility.signed_attributes",
				value: false,
				profile: "ibm-sterling",
				why: "The partner could not verify our signature: IBM Sterling fails on signatures that carry CMS signed attributes (django-pyas2#99, pyas2-lib#76; as2-anchors §C.5)",
			};
		}
		return null;
	},
];

/** The hint for a negative MDN or an HTTP refusal, or null when no known quirk explains it. */
export function hintFromAnswer(answer: PartnerAnswer, partner: PartnerRecord): CompatibilityHint | null {
	const switches = effectiveCompatibility(partner.settings.compatibility);
	for (const rule of ANSWER_RULES) {
		const hint = rule(answer, switches, partner);
		if (hint) return hint;
	}
	return null;
}
