import * as v from "valibot";
import { accountSchema, planLimitsSchema, tenantSchema } from "../views/account-views.ts";
import { errorHintSchema } from "../views/message-views.ts";
import { idSchema, instantSchema } from "../views/schema-types.ts";

/**
 * The event catalog: every event kind of the interface spec (Events: Event kinds) with the
 * schema of its `data`, from the spec's table; where the spec says only "<resource> object",
 * the resource's fields from its Resources table. The OpenAPI document's `webhooks` section
 * is generated from it, and the tests check what is delivered against it. Schemas list the
 * fields every emitter must send; emitters may add more.
 */

const partnerId = v.pipe(v.string(), v.regex(/^prt_(master_)?\d{6,}$/), v.description("`prt_` identifier"));
const messageStatus = v.picklist(["queued", "processing", "sent", "delivered", "failed", "received"]);
const direction = v.picklist(["inbound", "outbound"]);
const integer = v.pipe(v.number(), v.integer());

const messageCore = {
	id: idSchema("msg_"),
	message_id: v.pipe(v.string(), v.description("the AS2 Message-ID, without angle brackets")),
	partner: v.object({ id: partnerId, name: v.string(), as2_id: v.string() }),
	status: messageStatus,
	direction,
	attempts: v.pipe(
		integer,
		v.description("transmission attempts so far: the attempt this event belongs to (0 before the first)"),
	),
};

const mdnData = v.object({
	disposition: v.string(),
	received_content_mic: v.nullable(v.string()),
	reporting_ua: v.nullable(v.string()),
	original_message_id: v.string(),
	final_recipient: v.nullable(v.string()),
});

const partnerObject = v.object({
	id: partnerId,
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
	mdn_mode: v.picklist(["sync", "async", "none"]),
	sign_algorithm: v.nullable(v.picklist(["SHA1withRSA", "SHA256withRSA", "SHA384withRSA", "SHA512withRSA"])),
	encrypt_algorithm: v.nullable(v.picklist(["3DES", "AES128_CBC", "AES192_CBC", "AES256_CBC"])),
	created_at: instantSchema,
	updated_at: instantSchema,
});

const certificateObject = v.object({
	id: idSchema("cert_"),
	name: v.string(),
	type: v.picklist(["identity", "partner"]),
	usage: v.picklist(["encryption", "signing", "both"]),
	subject: v.string(),
	issuer: v.string(),
	serial_number: v.string(),
	fingerprint: v.string(),
	active: v.boolean(),
	expires_at: instantSchema,
	created_at: instantSchema,
});

const billingPeriod = v.object({
	start: v.pipe(v.string(), v.description("ISO 8601 start of the calendar month (UTC)")),
	end: v.pipe(v.string(), v.description("ISO 8601 end of the calendar month (UTC)")),
});

const { updated_at: _accountUpdated, ...accountCreated } = accountSchema.entries;
const { updated_at: _tenantUpdated, ...tenantCreated } = tenantSchema.entries;

export interface EventKindSpec {
	/** What triggers it (the spec's Trigger column). */
	trigger: string;
	data: v.GenericSchema;
	/** Set where the reference server does not emit the kind, saying why. */
	notEmitted?: string;
}

export const EVENT_KINDS = {
	"message.queued": {
		trigger: "message accepted for delivery (POST /v1/messages)",
		data: v.object({
			...messageCore,
			subject: v.nullable(v.string()),
			content_type: v.string(),
			bytes: integer,
			created_at: instantSchema,
		}),
	},
	"message.sent": {
		trigger: "message transmitted to the partner",
		data: v.object({
			...messageCore,
			sent_at: instantSchema,
			transmission_time_ms: v.pipe(v.nullable(integer), v.description("null when it was not measured")),
		}),
	},
	"message.delivered": {
		trigger: "MDN received confirming delivery",
		data: v.object({
			...messageCore,
			mdn_data: v.pipe(v.nullable(mdnData), v.description("null when the message asked for no MDN")),
			delivered_at: instantSchema,
		}),
	},
	"message.failed": {
		trigger: "delivery failed",
		data: v.object({
			...messageCore,
			error_code: v.string(),
			error_message: v.string(),
			error_hint: v.nullable(errorHintSchema),
			failed_at: instantSchema,
		}),
	},
	"message.received": {
		trigger: "inbound AS2 message received from a partner",
		data: v.object({
			...messageCore,
			from_as2_id: v.string(),
			to_as2_id: v.string(),
			subject: v.nullable(v.string()),
			content_type: v.string(),
			bytes: integer,
			encrypted: v.boolean(),
			signed: v.boolean(),
			mdn_requested: v.boolean(),
			received_at: instantSchema,
		}),
	},
	"partner.created": {
		trigger: "partner added (POST /v1/partners)",
		data: v.object({
			id: partnerId,
			name: v.string(),
			as2_id: v.string(),
			url: v.string(),
			active: v.boolean(),
			created_at: instantSchema,
		}),
	},
	"partner.updated": { trigger: "partner configuration changed", data: partnerObject },
	"partner.deleted": { trigger: "partner removed", data: partnerObject },
	"certificate.uploaded": { trigger: "certificate uploaded", data: certificateObject },
	"certificate.activated": { trigger: "certificate activated", data: certificateObject },
	"certificate.expiring": {
		trigger: "30 days before a certificate expires",
		data: v.object({
			id: idSchema("cert_"),
			name: v.string(),
			type: v.picklist(["identity", "partner"]),
			subject: v.string(),
			expires_at: instantSchema,
			days_until_expiry: integer,
		}),
	},
	"certificate.expired": { trigger: "certificate expired", data: certificateObject },
	"billing.usage_threshold": {
		trigger: "usage reaches 75 %, 90 % or 100 % of the plan's monthly allowance (once per period each)",
		data: v.object({
			account_id: idSchema("acc_"),
			threshold_percentage: v.picklist([75, 90, 100]),
			current_usage: integer,
			plan_limit: integer,
			usage_type: v.string(),
			billing_period: billingPeriod,
		}),
	},
	"billing.limit_exceeded": {
		trigger: "a live send refused for the plan's allowance (402 MESSAGE_LIMIT_EXCEEDED)",
		data: v.object({
			account_id: idSchema("acc_"),
			resource_type: v.string(),
			current_usage: integer,
			plan_limit: integer,
			overage_amount: v.number(),
			billing_period: billingPeriod,
		}),
	},
	"billing.payment_failed": {
		trigger: "payment processing failed",
		notEmitted: "the reference server takes no payments, so it never emits billing.payment_failed",
		data: v.object({
			account_id: idSchema("acc_"),
			plan: accountSchema.entries.plan,
			status: v.string(),
			failure_reason: v.string(),
			failed_at: instantSchema,
		}),
	},
	"billing.subscription_updated": {
		trigger: "plan changed (PATCH /v1/account with plan); immediate, as the reference server takes no payments",
		data: v.object({
			account_id: idSchema("acc_"),
			plan: accountSchema.entries.plan,
			previous_plan: accountSchema.entries.plan,
			status: v.string(),
			limits: planLimitsSchema,
			changed_at: instantSchema,
		}),
	},
	"account.created": { trigger: "account created (POST /auth/register)", data: v.object(accountCreated) },
	"account.updated": { trigger: "account configuration changed (PATCH /v1/account)", data: accountSchema },
	"tenant.created": {
		trigger: "tenant added to an account (POST /auth/register, POST /v1/tenants)",
		data: v.object(tenantCreated),
	},
	"tenant.updated": { trigger: "tenant configuration changed (PATCH /v1/tenants/{tenant_id})", data: tenantSchema },
	"webhook.test": {
		trigger: "manual test (POST /v1/webhook-endpoints/{webhook_id}/test); sent to that endpoint only",
		data: v.object({
			endpoint_id: idSchema("wh_"),
			url: v.string(),
			message: v.string(),
		}),
	},
} as const satisfies Record<string, EventKindSpec>;

export type EventKind = keyof typeof EVENT_KINDS;

export const EVENT_KIND_NAMES = Object.keys(EVENT_KINDS) as EventKind[];

/** `message`, `partner`, …: the part before the dot, which `<category>.*` subscribes to. */
export const EVENT_CATEGORIES = [...new Set(EVENT_KIND_NAMES.map(categoryOf))];

export function categoryOf(kind: string): string {
	return kind.slice(0, kind.indexOf("."));
}

export function isEventKind(kind: string): kind is EventKind {
	return Object.hasOwn(EVENT_KINDS, kind);
}

/**
 * Account-level events go to the subscribed endpoints of the account's first tenant
 * (decisions.md, Clarifications), whatever tenant they concern, and there only to those a
 * credential reaching the whole account subscribed (account-events.ts).
 */
export const ACCOUNT_LEVEL_CATEGORIES: readonly string[] = ["account", "tenant", "billing"];
