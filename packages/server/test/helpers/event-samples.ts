import type { Json } from "@as2kit/core/store";
import type { EventKind } from "../../src/service/webhooks/event-kinds.ts";

/**
 * Data of each event kind as its emitter sends it, for the kinds the tests record through
 * `recordEvent` (those whose triggers arrive with other issues, or that are never emitted).
 */
const T = "2026-03-01T09:00:00.000000Z";
const partner = { id: "prt_000001", name: "Acme Corp", as2_id: "ACME" };
const message = {
	id: "msg_000001",
	message_id: "20260301.1@as2kit.example",
	partner,
	direction: "outbound",
	attempts: 1,
};
const partnerObject = {
	...partner,
	url: "https://as2.acme.example/receive",
	active: true,
	type: "tenant",
	master_partner_id: null,
	has_overrides: false,
	sign: true,
	encrypt: true,
	compress: false,
	mdn_mode: "async",
	sign_algorithm: "SHA256withRSA",
	encrypt_algorithm: "AES256_CBC",
	created_at: T,
	updated_at: T,
};
const certificate = {
	id: "cert_000001",
	name: "Acme signing",
	type: "partner",
	usage: "both",
	subject: "CN=ACME",
	issuer: "CN=ACME",
	serial_number: "01",
	fingerprint: "sha256:AB:CD",
	active: true,
	expires_at: "2027-03-01T09:00:00.000000Z",
	created_at: T,
};
const period = { start: "2026-03-01T00:00:00.000000Z", end: "2026-03-31T23:59:59.999000Z" };

export const EVENT_SAMPLES: Partial<Record<EventKind, { [key: string]: Json }>> = {
	"message.queued": {
		...message,
		status: "queued",
		subject: "PO 4711",
		content_type: "application/edi-x12",
		bytes: 1234,
		created_at: T,
	},
	"message.sent": { ...message, status: "sent", sent_at: T, transmission_time_ms: 420 },
	"message.delivered": {
		...message,
		status: "delivered",
		mdn_data: {
			disposition: "automatic-action/MDN-sent-automatically; processed",
			received_content_mic: "abc=, sha-256",
			reporting_ua: "Acme AS2",
			original_message_id: "20260301.1@as2kit.example",
			final_recipient: "ACME",
		},
		delivered_at: T,
	},
	"message.failed": {
		...message,
		status: "failed",
		error_code: "PARTNER_UNREACHABLE",
		error_message: "connection refused",
		error_hint: null,
		failed_at: T,
	},
	"message.received": {
		...message,
		direction: "inbound",
		status: "received",
		from_as2_id: "ACME",
		to_as2_id: "ME",
		subject: null,
		content_type: "application/xml",
		bytes: 99,
		encrypted: true,
		signed: true,
		mdn_requested: true,
		received_at: T,
	},
	"partner.created": { ...partner, url: "https://as2.acme.example/receive", active: true, created_at: T },
	"partner.updated": partnerObject,
	"partner.deleted": partnerObject,
	"certificate.uploaded": certificate,
	"certificate.activated": certificate,
	"certificate.expiring": {
		id: "cert_000001",
		name: "Acme signing",
		type: "partner",
		subject: "CN=ACME",
		expires_at: "2026-03-31T09:00:00.000000Z",
		days_until_expiry: 30,
	},
	"certificate.expired": { ...certificate, active: false },
	"billing.usage_threshold": {
		account_id: "acc_000001",
		threshold_percentage: 90,
		current_usage: 900,
		plan_limit: 1000,
		usage_type: "live_messages",
		billing_period: period,
	},
	"billing.limit_exceeded": {
		account_id: "acc_000001",
		resource_type: "live_messages",
		current_usage: 1000,
		plan_limit: 1000,
		overage_amount: 1,
		billing_period: period,
	},
	"billing.payment_failed": {
		account_id: "acc_000001",
		plan: "starter",
		status: "past_due",
		failure_reason: "card declined",
		failed_at: T,
	},
};
