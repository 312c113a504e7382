import { KEY_ENCRYPTION_ALGORITHMS } from "@as2kit/core";
import type { CertificateRecord, CompatibilityChoice, CompatibilitySwitches } from "@as2kit/core/store";
import * as v from "valibot";
import { effectiveCompatibility, givenCompatibility } from "../partners/compatibility-profiles.ts";
import type { EffectivePartner } from "../partners/effective-partner.ts";
import type { PartnerPatch } from "../partners/partner-patch.ts";
import { certificateSchema, certificateView } from "./certificate-views.ts";
import { formatInstant, formatOptionalInstant } from "./instant.ts";
import { instantSchema, nullableInstantSchema } from "./schema-types.ts";

const mdnModeSchema = v.picklist(["sync", "async", "none"]);

export const partnerSchema = v.object({
	id: v.pipe(v.string(), v.description("`prt_` identifier (`prt_master_` for inherited partners)")),
	name: v.string(),
	as2_id: v.string(),
	url: v.string(),
	active: v.boolean(),
	type: v.picklist(["tenant", "inherited"]),
	master_partner_id: v.nullable(v.string()),
	has_overrides: v.boolean(),
	sign: v.boolean(),
	encrypt: v.boolean(),
	compress: v.boolean(),
	mdn_mode: mdnModeSchema,
	sign_algorithm: v.nullable(v.string()),
	encrypt_algorithm: v.nullable(v.string()),
	deactivated_at: nullableInstantSchema,
	created_at: instantSchema,
	updated_at: instantSchema,
});

/** `compatibility.key_encryption`, in partner bodies and views alike. */
export const keyEncryptionSchema = v.pipe(
	v.picklist(KEY_ENCRYPTION_ALGORITHMS),
	v.description(
		"Key transport for the messages we encrypt: `rsa` (RSAES-PKCS1-v1_5, the default, what every AS2 product reads); `oaep` (RSAES-OAEP with RFC 3560's defaults, SHA-1 and MGF1-SHA-1: what `openssl cms -keyopt rsa_padding_mode:oaep` sends; as2kit 0.1.0 sent SHA-256 for `oaep`, which RFC-default partners cannot read); `oaep-sha256`, `oaep-sha384`, `oaep-sha512` (that hash for OAEP and MGF1, RFC 4055). Messages we receive are read whatever the partner used.",
	),
);
export const compatibilitySwitchesSchema = v.object({
	signed_attributes: v.boolean(),
	algorithm_protection: v.boolean(),
	transfer_encoding: v.picklist(["binary", "base64"]),
	compress_order: v.picklist(["before-sign", "after-sign"]),
	key_encryption: keyEncryptionSchema,
	chunked: v.boolean(),
});

export function compatibilitySwitchesView(c: CompatibilitySwitches): v.InferOutput<typeof compatibilitySwitchesSchema> {
	return {
		signed_attributes: c.signedAttributes,
		algorithm_protection: c.algorithmProtection,
		transfer_encoding: c.transferEncoding,
		compress_order: c.compressOrder,
		key_encryption: c.keyEncryption,
		chunked: c.chunked,
	};
}

/** A partner in lists and events (interface spec, Partner). */
export function partnerView(partner: EffectivePartner): v.InferOutput<typeof partnerSchema> {
	const p = partner.record;
	return {
		id: p.id,
		name: p.name,
		as2_id: p.as2Id,
		url: p.url,
		active: p.active,
		type: partner.type,
		master_partner_id: partner.masterPartnerId,
		has_overrides: partner.override !== null,
		sign: p.sign,
		encrypt: p.encrypt,
		compress: p.compress,
		mdn_mode: p.mdnMode,
		sign_algorithm: p.signAlgorithm,
		encrypt_algorithm: p.encryptAlgorithm,
		deactivated_at: formatOptionalInstant(p.deactivatedAt),
		created_at: formatInstant(p.createdAt),
		updated_at: formatInstant(p.updatedAt),
	};
}

/** `partner.created` (interface spec, Event kinds). */
export function partnerCreatedView(partner: EffectivePartner) {
	const { id, name, as2_id, url, active, created_at } = partnerView(partner);
	return { id, name, as2_id, url, active, created_at };
}

/** A partner's messages of the last 30 days, and its latest message of all time. */
export interface PartnerMessageStats {
	totalSent: number;
	totalReceived: number;
	/** Percent of finished messages that ended well, one decimal; null before any. */
	successRate: number | null;
	lastMessageAt: Date | null;
}

const STATS_WINDOW =
	"Over the last 30 UTC days, today included, as GET /v1/partners/{partner_id}/stats counts them (which offers other periods).";

export const messageStatsSchema = v.pipe(
	v.object({
		total_sent: v.pipe(v.number(), v.description("outbound messages of the last 30 days")),
		total_received: v.pipe(v.number(), v.description("inbound messages of the last 30 days")),
		success_rate: v.pipe(
			v.nullable(v.number()),
			v.description(
				"the overall success rate of the stats endpoint: percent, one decimal; null before any message finished",
			),
		),
		last_message_at: v.pipe(nullableInstantSchema, v.description("the partner's latest message of all time")),
	}),
	v.description(STATS_WINDOW),
);

export const connectionStatusSchema = v.object({
	last_test: nullableInstantSchema,
	last_test_result: v.nullable(v.picklist(["success", "warning", "failure"])),
	response_time_ms: v.nullable(v.number()),
});

export const partnerDetailSchema = v.object({
	...partnerSchema.entries,
	certificates: v.array(certificateSchema),
	message_stats: messageStatsSchema,
	last_message_at: v.pipe(nullableInstantSchema, v.description("the partner's latest message of all time")),
	connection_status: connectionStatusSchema,
	override_settings: v.optional(v.record(v.string(), v.unknown())),
	compatibility: v.pipe(
		v.object({ profile: v.nullable(v.string()), ...v.partial(compatibilitySwitchesSchema).entries }),
		v.description(
			"The compatibility profile and the switches set over it, as given (GET /v1/compatibility-profiles lists the profiles)",
		),
	),
	effective_compatibility: v.pipe(
		compatibilitySwitchesSchema,
		v.description(
			"Every switch as messages to this partner are built: the defaults, then the profile, then the switches set",
		),
	),
});

/** `GET /v1/partners/{id}`: the partner with its certificates, statistics and last test. */
export function partnerDetailView(
	partner: EffectivePartner,
	certificates: CertificateRecord[],
	stats: PartnerMessageStats,
) {
	const status = partner.record.connectionStatus;
	return {
		...partnerView(partner),
		certificates: certificates.map(certificateView),
		message_stats: messageStatsView(stats),
		last_message_at: formatOptionalInstant(stats.lastMessageAt),
		connection_status: {
			last_test: formatOptionalInstant(status?.lastTest),
			last_test_result: status?.lastTestResult ?? null,
			response_time_ms: status?.responseTimeMs ?? null,
		},
		...(partner.override ? { override_settings: overrideView(partner.override) } : {}),
		compatibility: givenCompatibilityView(partner.record.settings.compatibility),
		effective_compatibility: compatibilitySwitchesView(effectiveCompatibility(partner.record.settings.compatibility)),
	};
}

function givenCompatibilityView(choice: CompatibilityChoice) {
	const { profile, ...own } = givenCompatibility(choice);
	return { profile: profile ?? null, ...snake(own) };
}

function messageStatsView(stats: PartnerMessageStats) {
	return {
		total_sent: stats.totalSent,
		total_received: stats.totalReceived,
		success_rate: stats.successRate,
		last_message_at: formatOptionalInstant(stats.lastMessageAt),
	};
}

/** A stored override as the API shows it: the changed fields only, snake_case, no password. */
export function overrideView(patch: PartnerPatch): Record<string, unknown> {
	const { settings, ...flat } = patch;
	const out: Record<string, unknown> = {};
	const names: Record<string, string> = {
		name: "name",
		as2Id: "as2_id",
		url: "url",
		sign: "sign",
		encrypt: "encrypt",
		compress: "compress",
		mdnMode: "mdn_mode",
		signAlgorithm: "sign_algorithm",
		encryptAlgorithm: "encrypt_algorithm",
		active: "active",
	};
	for (const [key, value] of Object.entries(flat)) if (value !== undefined) out[names[key] ?? key] = value;
	if (settings?.mdn) out.mdn = snake(settings.mdn);
	if (settings?.connection) out.connection = snake(settings.connection);
	if (settings?.auth !== undefined || settings?.headers !== undefined) {
		out.http = {
			...(settings.auth !== undefined
				? { auth: settings.auth && { username: settings.auth.username, password_set: true } }
				: {}),
			...(settings.headers !== undefined ? { headers: settings.headers } : {}),
		};
	}
	if (settings?.tls) {
		out.tls = {
			...(settings.tls.caPem !== undefined ? { ca_certificate: settings.tls.caPem } : {}),
			...(settings.tls.pinnedSha256 !== undefined ? { pinned_certificate_sha256: settings.tls.pinnedSha256 } : {}),
		};
	}
	if (settings?.compatibility) out.compatibility = snake(settings.compatibility);
	if (settings?.inbound) out.inbound = snake(settings.inbound);
	return out;
}

export const configurationSchema = v.object({
	security: v.object({
		sign: v.boolean(),
		encrypt: v.boolean(),
		compress: v.boolean(),
		sign_algorithm: v.nullable(v.string()),
		encrypt_algorithm: v.nullable(v.string()),
	}),
	mdn: v.object({
		mode: mdnModeSchema,
		url: v.pipe(
			v.nullable(v.string()),
			v.description("Receipt-Delivery-Option we ask for; null: this deployment's /as2/receive"),
		),
		signed: v.boolean(),
		algorithm: v.nullable(v.string()),
	}),
	connection: v.object({
		timeout_seconds: v.number(),
		retry_attempts: v.number(),
		retry_interval_seconds: v.pipe(
			v.nullable(v.number()),
			v.description("null: the deployment's retry schedule (AS2_SEND_RETRY_DELAYS)"),
		),
	}),
	certificates: v.array(
		v.object({ id: v.string(), usage: v.string(), active: v.boolean(), expires_at: instantSchema }),
	),
	statistics: v.pipe(
		v.object({
			messages_sent: v.number(),
			messages_received: v.number(),
			success_rate: v.nullable(v.number()),
			last_activity: v.pipe(nullableInstantSchema, v.description("the partner's latest message of all time")),
		}),
		v.description(`The numbers of the detail's message_stats. ${STATS_WINDOW}`),
	),
	http: v.object({
		auth: v.nullable(v.object({ username: v.string(), password_set: v.boolean() })),
		headers: v.record(v.string(), v.string()),
	}),
	tls: v.object({ ca_certificate: v.nullable(v.string()), pinned_certificate_sha256: v.nullable(v.string()) }),
	compatibility: v.pipe(compatibilitySwitchesSchema, v.description("the effective switches")),
	inbound: v.object({ require_signed: v.boolean(), require_encrypted: v.boolean() }),
});

/** `GET /v1/partners/{id}/configuration`: the spec's nested view, plus the engine's own groups. */
export function configurationView(
	partner: EffectivePartner,
	certificates: CertificateRecord[],
	stats: PartnerMessageStats,
): v.InferOutput<typeof configurationSchema> {
	const p = partner.record;
	const s = p.settings;
	return {
		security: {
			sign: p.sign,
			encrypt: p.encrypt,
			compress: p.compress,
			sign_algorithm: p.signAlgorithm,
			encrypt_algorithm: p.encryptAlgorithm,
		},
		mdn: { mode: p.mdnMode, url: s.mdn.url, signed: s.mdn.signed, algorithm: s.mdn.algorithm },
		connection: {
			timeout_seconds: s.connection.timeoutSeconds,
			retry_attempts: s.connection.retryAttempts,
			retry_interval_seconds: s.connection.retryIntervalSeconds,
		},
		certificates: certificates.map((c) => ({
			id: c.id,
			usage: c.usage,
			active: c.active,
			expires_at: formatInstant(c.expiresAt),
		})),
		statistics: {
			messages_sent: stats.totalSent,
			messages_received: stats.totalReceived,
			success_rate: stats.successRate,
			last_activity: formatOptionalInstant(stats.lastMessageAt),
		},
		http: { auth: s.auth && { username: s.auth.username, password_set: true }, headers: s.headers },
		tls: { ca_certificate: s.tls.caPem, pinned_certificate_sha256: s.tls.pinnedSha256 },
		compatibility: compatibilitySwitchesView(effectiveCompatibility(s.compatibility)),
		inbound: { require_signed: requiresSigned(partner), require_encrypted: requiresEncrypted(partner) },
	};
}

/** decisions.md, Inbound security: a partner's own requirement, else its sign/encrypt flags. */
export function requiresSigned(partner: EffectivePartner): boolean {
	return partner.record.settings.inbound.requireSigned ?? partner.record.sign;
}
export function requiresEncrypted(partner: EffectivePartner): boolean {
	return partner.record.settings.inbound.requireEncrypted ?? partner.record.encrypt;
}

function snake(value: object): Record<string, unknown> {
	return Object.fromEntries(
		Object.entries(value)
			.filter(([, v]) => v !== undefined)
			.map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
	);
}
