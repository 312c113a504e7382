import { isFieldValue, parseCertificates } from "@as2kit/core";
import type { EncryptAlgorithm, MdnMode, PartnerSettings, SignAlgorithm } from "@as2kit/core/store";
import { isValidAs2Id } from "../as2-identifier.ts";
import { seal } from "../secrets/sealed.ts";
import type { TargetPolicy } from "../transport/target-url.ts";
import { FieldChecks, fieldError } from "../validation-error.ts";
import { COMPATIBILITY_PROFILES, type CompatibilityPatch, findCompatibilityProfile } from "./compatibility-profiles.ts";
import { checkPartnerUrl, checkReceiptUrl } from "./endpoint-url.ts";
import type { PartnerPatch, SettingsPatch } from "./partner-patch.ts";

export const SIGN_ALGORITHMS: readonly SignAlgorithm[] = [
	"SHA1withRSA",
	"SHA256withRSA",
	"SHA384withRSA",
	"SHA512withRSA",
];
/** The spec's four CBC algorithms, plus AES-GCM (RFC 5084 AuthEnvelopedData) for partners that support it. */
export const ENCRYPT_ALGORITHMS: readonly EncryptAlgorithm[] = [
	"3DES",
	"AES128_CBC",
	"AES192_CBC",
	"AES256_CBC",
	"AES128_GCM",
	"AES256_GCM",
];

/** A partner change as the API received it: shapes checked, meaning not yet. */
/** The deployment's URL rules, and the key and context the HTTP password is sealed under. */
export interface PartnerInputOptions extends TargetPolicy {
	secretKey: Uint8Array;
	sealContext: string;
}

export interface PartnerInput {
	name?: string | undefined;
	as2Id?: string | undefined;
	url?: string | undefined;
	sign?: boolean | undefined;
	encrypt?: boolean | undefined;
	compress?: boolean | undefined;
	mdnMode?: MdnMode | undefined;
	signAlgorithm?: string | null | undefined;
	encryptAlgorithm?: string | null | undefined;
	settings?: SettingsInput | undefined;
}

export interface SettingsInput {
	mdn?:
		| { url?: string | null | undefined; signed?: boolean | undefined; algorithm?: string | null | undefined }
		| undefined;
	connection?: Partial<PartnerSettings["connection"]> | undefined;
	auth?: { username: string; password: string } | null | undefined;
	headers?: Record<string, string> | undefined;
	tls?: { caPem?: string | null | undefined; pinnedSha256?: string | null | undefined } | undefined;
	compatibility?: CompatibilityPatch | undefined;
	inbound?: Partial<PartnerSettings["inbound"]> | undefined;
}

const MIC_ALGORITHMS = ["sha1", "sha256", "sha384", "sha512"] as const;
/** Headers the AS2 message itself owns (RFC 4130 §6, §7.3), or HTTP framing: never overridable. */
const RESERVED_HEADERS =
	/^(content-(type|length|transfer-encoding|disposition)|transfer-encoding|host|connection|message-id|mime-version|as2-(from|to|version)|disposition-notification-(to|options)|receipt-delivery-option|date|subject|ediint-features|authorization)$/i;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Checks a partner change and turns it into a patch, with the spec's codes: INVALID_AS2_ID_FORMAT,
 * INVALID_ENDPOINT_URL, UNSUPPORTED_ALGORITHM (422), VALIDATION_FAILED for the rest. The HTTP
 * password is sealed under `secretKey`, bound to `sealContext` (the partner id).
 */
export function toPartnerPatch(input: PartnerInput, options: PartnerInputOptions): PartnerPatch {
	// Every field is checked before any refusal: one 422 names them all (issue #16, defect 9).
	const fields = new FieldChecks();
	const patch: PartnerPatch = {};
	if (input.name !== undefined) patch.name = input.name;
	const as2Id = input.as2Id;
	if (as2Id !== undefined) {
		fields.check(() => {
			if (!isValidAs2Id(as2Id)) {
				throw fieldError(
					"as2_id",
					"may contain only letters, digits, hyphens and underscores (1-50 characters)",
					"INVALID_AS2_ID_FORMAT",
				);
			}
			patch.as2Id = as2Id;
		});
	}
	const url = input.url;
	if (url !== undefined) fields.check(() => (patch.url = checkPartnerUrl(url, options)));
	for (const flag of ["sign", "encrypt", "compress"] as const) if (input[flag] !== undefined) patch[flag] = input[flag];
	if (input.mdnMode !== undefined) patch.mdnMode = input.mdnMode;
	const { signAlgorithm, encryptAlgorithm } = input;
	if (signAlgorithm !== undefined) {
		fields.check(() => (patch.signAlgorithm = pick(signAlgorithm, SIGN_ALGORITHMS, "sign_algorithm")));
	}
	if (encryptAlgorithm !== undefined) {
		fields.check(() => (patch.encryptAlgorithm = pick(encryptAlgorithm, ENCRYPT_ALGORITHMS, "encrypt_algorithm")));
	}
	if (input.settings) patch.settings = toSettingsPatch(input.settings, options, fields);
	fields.throwIfAny();
	return patch;
}

function toSettingsPatch(input: SettingsInput, options: PartnerInputOptions, fields: FieldChecks): SettingsPatch {
	const patch: SettingsPatch = {};
	if (input.mdn) {
		const { url, signed, algorithm } = input.mdn;
		const mdn: NonNullable<SettingsPatch["mdn"]> = {};
		if (url !== undefined) fields.check(() => (mdn.url = url === null ? null : checkReceiptUrl(url, options)));
		if (signed !== undefined) mdn.signed = signed;
		if (algorithm !== undefined) fields.check(() => (mdn.algorithm = pick(algorithm, MIC_ALGORITHMS, "mdn.algorithm")));
		patch.mdn = mdn;
	}
	if (input.connection) patch.connection = input.connection;
	if (input.auth !== undefined) {
		patch.auth =
			input.auth === null
				? null
				: {
						username: input.auth.username,
						passwordSealed: seal(options.secretKey, input.auth.password, options.sealContext),
					};
	}
	const headers = input.headers;
	if (headers !== undefined) fields.check(() => (patch.headers = checkHeaders(headers)));
	if (input.tls) {
		const { caPem, pinnedSha256 } = input.tls;
		const tls: NonNullable<SettingsPatch["tls"]> = {};
		if (caPem !== undefined) fields.check(() => (tls.caPem = caPem === null ? null : checkCa(caPem)));
		if (pinnedSha256 !== undefined) {
			fields.check(() => (tls.pinnedSha256 = pinnedSha256 === null ? null : checkPin(pinnedSha256)));
		}
		patch.tls = tls;
	}
	const compatibility = input.compatibility;
	if (compatibility) {
		fields.check(() => {
			const profile = compatibility.profile;
			if (profile != null && !findCompatibilityProfile(profile)) {
				const names = COMPATIBILITY_PROFILES.map((p) => p.name).join(", ");
				throw fieldError("compatibility.profile", `is not a known profile; use one of ${names}`);
			}
			patch.compatibility = compatibility;
		});
	}
	if (input.inbound) patch.inbound = input.inbound;
	return patch;
}

function pick<T extends string>(value: string | null, allowed: readonly T[], field: string): T | null {
	if (value === null) return null;
	if (!(allowed as readonly string[]).includes(value)) {
		throw fieldError(field, `is not supported; use one of ${allowed.join(", ")}`, "UNSUPPORTED_ALGORITHM");
	}
	return value as T;
}

function checkHeaders(headers: Record<string, string>): Record<string, string> {
	for (const [name, value] of Object.entries(headers)) {
		if (!TOKEN.test(name)) throw fieldError("http.headers", `${name} is not a valid header name`);
		if (RESERVED_HEADERS.test(name))
			throw fieldError("http.headers", `${name} is set by the AS2 engine and cannot be overridden`);
		// Sent as given (pack refuses what is not printable US-ASCII): refused here, not at every send.
		if (!isFieldValue(value) || value.length > 4096) throw fieldError("http.headers", `${name} has an invalid value`);
	}
	if (Object.keys(headers).length > 50) throw fieldError("http.headers", "may hold at most 50 headers");
	return headers;
}

function checkCa(pem: string): string {
	try {
		parseCertificates(pem);
	} catch {
		throw fieldError("tls.ca_certificate", "is not a PEM certificate");
	}
	return pem;
}

/** A pinned leaf certificate: SHA-256 of its DER, as hex (colons and a SHA256: prefix tolerated). */
function checkPin(value: string): string {
	const hex = value
		.replace(/^sha256:/i, "")
		.replace(/:/g, "")
		.toLowerCase();
	if (!/^[0-9a-f]{64}$/.test(hex))
		throw fieldError("tls.pinned_certificate_sha256", "must be a SHA-256 fingerprint (64 hex digits)");
	return hex;
}
