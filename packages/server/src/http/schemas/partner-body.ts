import * as v from "valibot";
import type { PartnerInput, SettingsInput } from "../../service/partners/partner-input.ts";
import { keyEncryptionSchema } from "../../service/views/partner-views.ts";
import { text } from "./strings.ts";

const bool = v.boolean();
const nullableString = v.nullable(v.string());
const seconds = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));

/**
 * The writable fields of a partner: the spec's flat fields, and the nested configuration groups
 * of `GET /v1/partners/{id}/configuration`. Algorithms, AS2 ids and URLs are plain strings here
 * so that the service can answer with the spec's specific codes (UNSUPPORTED_ALGORITHM,
 * INVALID_AS2_ID_FORMAT, INVALID_ENDPOINT_URL).
 */
const entries = {
	name: v.optional(text(1, 255)),
	as2_id: v.optional(v.pipe(v.string(), v.trim())),
	url: v.optional(
		v.pipe(
			v.string(),
			v.trim(),
			v.maxLength(2048),
			v.description(
				"https:// (http:// too with AS2_ALLOW_HTTP=1); not a loopback, private or link-local host unless AS2_ALLOW_PRIVATE_TARGETS=1 (checked as written here, and after DNS resolution at every connection)",
			),
		),
	),
	sign: v.optional(bool),
	encrypt: v.optional(bool),
	compress: v.optional(bool),
	mdn_mode: v.optional(v.picklist(["sync", "async", "none"])),
	sign_algorithm: v.optional(nullableString),
	encrypt_algorithm: v.optional(nullableString),
	security: v.optional(
		v.object({
			sign: v.optional(bool),
			encrypt: v.optional(bool),
			compress: v.optional(bool),
			sign_algorithm: v.optional(nullableString),
			encrypt_algorithm: v.optional(nullableString),
		}),
	),
	mdn: v.optional(
		v.object({
			mode: v.optional(v.picklist(["sync", "async", "none"])),
			url: v.optional(nullableString),
			signed: v.optional(bool),
			algorithm: v.optional(nullableString),
		}),
	),
	connection: v.optional(
		v.object({
			timeout_seconds: v.optional(seconds(1, 3600)),
			retry_attempts: v.optional(seconds(0, 20)),
			retry_interval_seconds: v.optional(v.nullable(seconds(1, 86_400))),
		}),
	),
	http: v.optional(
		v.object({
			auth: v.optional(
				v.nullable(v.object({ username: text(1, 255), password: v.pipe(v.string(), v.maxLength(1024)) })),
			),
			headers: v.optional(v.record(v.string(), v.string())),
		}),
	),
	tls: v.optional(
		v.object({
			ca_certificate: v.optional(nullableString),
			pinned_certificate_sha256: v.optional(nullableString),
		}),
	),
	compatibility: v.optional(
		v.pipe(
			v.object({
				profile: v.optional(
					v.pipe(
						v.nullable(v.string()),
						v.description(
							"A named profile (GET /v1/compatibility-profiles); the switches given here win over it; null clears it",
						),
					),
				),
				signed_attributes: v.optional(v.nullable(bool)),
				algorithm_protection: v.optional(v.nullable(bool)),
				transfer_encoding: v.optional(v.nullable(v.picklist(["binary", "base64"]))),
				compress_order: v.optional(v.nullable(v.picklist(["before-sign", "after-sign"]))),
				key_encryption: v.optional(v.nullable(keyEncryptionSchema)),
				chunked: v.optional(v.nullable(bool)),
			}),
			v.description(
				"Switches for partners whose AS2 implementation needs them (GET /v1/compatibility-profiles): a profile, and switches that win over it; a switch set to null follows the profile again",
			),
		),
	),
	inbound: v.optional(
		v.object({ require_signed: v.optional(v.nullable(bool)), require_encrypted: v.optional(v.nullable(bool)) }),
	),
};

export const partnerPatchSchema = v.object(entries);
export const partnerCreateSchema = v.object({
	...entries,
	name: text(1, 255),
	as2_id: v.pipe(v.string(), v.trim()),
	url: v.pipe(v.string(), v.trim(), v.maxLength(2048)),
});

type PartnerBody = v.InferOutput<typeof partnerPatchSchema>;

/** The wire body as the service's input: the nested `security` and `mdn.mode` are the flat fields' twins. */
export function toPartnerInput(body: PartnerBody): PartnerInput {
	const security = body.security ?? {};
	const settings: SettingsInput = {};
	if (body.mdn) settings.mdn = { url: body.mdn.url, signed: body.mdn.signed, algorithm: body.mdn.algorithm };
	if (body.connection) {
		settings.connection = strip({
			timeoutSeconds: body.connection.timeout_seconds,
			retryAttempts: body.connection.retry_attempts,
			retryIntervalSeconds: body.connection.retry_interval_seconds,
		});
	}
	if (body.http?.auth !== undefined) settings.auth = body.http.auth;
	if (body.http?.headers !== undefined) settings.headers = body.http.headers;
	if (body.tls) settings.tls = { caPem: body.tls.ca_certificate, pinnedSha256: body.tls.pinned_certificate_sha256 };
	if (body.compatibility) {
		const c = body.compatibility;
		settings.compatibility = strip({
			profile: c.profile,
			signedAttributes: c.signed_attributes,
			algorithmProtection: c.algorithm_protection,
			transferEncoding: c.transfer_encoding,
			compressOrder: c.compress_order,
			keyEncryption: c.key_encryption,
			chunked: c.chunked,
		});
	}
	if (body.inbound) {
		settings.inbound = strip({
			requireSigned: body.inbound.require_signed,
			requireEncrypted: body.inbound.require_encrypted,
		});
	}
	return {
		name: body.name,
		as2Id: body.as2_id,
		url: body.url,
		sign: body.sign ?? security.sign,
		encrypt: body.encrypt ?? security.encrypt,
		compress: body.compress ?? security.compress,
		mdnMode: body.mdn_mode ?? body.mdn?.mode,
		signAlgorithm: body.sign_algorithm !== undefined ? body.sign_algorithm : security.sign_algorithm,
		encryptAlgorithm: body.encrypt_algorithm !== undefined ? body.encrypt_algorithm : security.encrypt_algorithm,
		...(Object.keys(settings).length > 0 ? { settings } : {}),
	};
}

function strip<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
	return Object.fromEntries(Object.entries(value).filter(([, x]) => x !== undefined)) as never;
}
