import type { MdnData, MessageRecord, RejectedMdn } from "@as2kit/core/store";
import * as v from "valibot";
import { formatInstant, formatOptionalInstant } from "./instant.ts";
import { idSchema, instantSchema, nullableInstantSchema } from "./schema-types.ts";

const statusSchema = v.picklist(["queued", "processing", "sent", "delivered", "failed", "received"]);
const mdnStatusSchema = v.picklist(["none", "pending", "received", "failed", "timeout"]);
const partnerRefSchema = v.object({ id: v.string(), name: v.string(), as2_id: v.string() });

/** The partner setting that would likely fix a failed exchange (compatibility-hints.ts). */
export const errorHintSchema = v.pipe(
	v.object({
		setting: v.pipe(v.string(), v.description("the partner field, as PATCH /v1/partners/{partner_id} takes it")),
		value: v.pipe(v.union([v.string(), v.boolean()]), v.description("the value to set it to")),
		profile: v.optional(
			v.pipe(v.string(), v.description("a compatibility profile (GET /v1/compatibility-profiles) that carries it")),
		),
		why: v.pipe(v.string(), v.description("the partner quirk that explains the failure, with its public source")),
	}),
	v.description(
		"When a known partner quirk explains the failure (a MIC that matches our content under another digest, compression order or canonicalization; a negative MDN naming signed attributes or algorithm protection; a decryption failure under other RSAES-OAEP parameters or AES-GCM; an HTTP refusal naming Content-Transfer-Encoding or chunked bodies): the setting that would likely fix it. Null otherwise.",
	),
);

export const messageSchema = v.object({
	id: idSchema("msg_"),
	message_id: v.pipe(v.string(), v.description("the AS2 Message-ID, without angle brackets")),
	partner: partnerRefSchema,
	status: statusSchema,
	direction: v.picklist(["inbound", "outbound"]),
	environment: v.picklist(["test", "live"]),
	from_as2_id: v.string(),
	to_as2_id: v.string(),
	subject: v.nullable(v.string()),
	content_type: v.string(),
	filename: v.nullable(v.string()),
	bytes: v.number(),
	compressed: v.boolean(),
	encrypted: v.boolean(),
	signed: v.boolean(),
	mdn_mode: v.picklist(["sync", "async", "none"]),
	mdn_status: mdnStatusSchema,
	priority: v.picklist(["low", "normal", "high"]),
	attempts: v.number(),
	last_attempt_at: nullableInstantSchema,
	scheduled_at: nullableInstantSchema,
	sent_at: nullableInstantSchema,
	delivered_at: nullableInstantSchema,
	error_code: v.nullable(v.string()),
	error_message: v.nullable(v.string()),
	error_hint: v.nullable(errorHintSchema),
	next_attempt_at: v.pipe(
		nullableInstantSchema,
		v.description("Outbound: when the next transmission attempt is due, while one is scheduled after a failed attempt"),
	),
	resent_from: v.pipe(v.nullable(v.string()), v.description("the message this one resends (POST …/resend)")),
	resent_as: v.pipe(v.array(v.string()), v.description("the messages that resend this one, oldest first")),
	created_at: instantSchema,
	updated_at: instantSchema,
});

/** A message in lists (interface spec, Message), without mdn_data. */
export function messageView(message: MessageRecord): v.InferOutput<typeof messageSchema> {
	return {
		id: message.id,
		message_id: message.messageId,
		partner: { id: message.partnerId, name: message.partnerName, as2_id: message.partnerAs2Id },
		status: message.status,
		direction: message.direction,
		environment: message.environment,
		from_as2_id: message.fromAs2Id,
		to_as2_id: message.toAs2Id,
		subject: message.subject,
		content_type: message.contentType,
		filename: message.filename,
		bytes: message.bytes,
		compressed: message.compressed,
		encrypted: message.encrypted,
		signed: message.signed,
		mdn_mode: message.mdnMode,
		mdn_status: message.mdnStatus,
		priority: message.priority,
		attempts: message.attempts,
		last_attempt_at: formatOptionalInstant(message.lastAttemptAt),
		scheduled_at: formatOptionalInstant(message.scheduledAt),
		sent_at: formatOptionalInstant(message.sentAt),
		delivered_at: formatOptionalInstant(message.deliveredAt),
		error_code: message.errorCode,
		error_message: message.errorMessage,
		error_hint: errorHintOf(message),
		next_attempt_at: nextAttemptOf(message),
		resent_from: typeof message.details.resent_from === "string" ? message.details.resent_from : null,
		resent_as: Array.isArray(message.details.resent_as) ? message.details.resent_as.map(String) : [],
		created_at: formatInstant(message.createdAt),
		updated_at: formatInstant(message.updatedAt),
	};
}

/** The retry the send job scheduled (send.ts), while the message still waits for it. */
function nextAttemptOf(message: MessageRecord): string | null {
	const next = message.details.next_attempt_at;
	if (typeof next !== "string" || (message.status !== "processing" && message.status !== "queued")) return null;
	return formatOptionalInstant(new Date(next));
}

/** The hint failMessage kept in the details, when the message failed with one. */
export function errorHintOf(message: MessageRecord): v.InferOutput<typeof errorHintSchema> | null {
	const hint = message.details.error_hint;
	return message.status === "failed" && v.is(errorHintSchema, hint) ? hint : null;
}

export const mdnDataSchema = v.object({
	disposition: v.string(),
	received_content_mic: v.nullable(v.string()),
	reporting_ua: v.nullable(v.string()),
	original_message_id: v.string(),
	final_recipient: v.nullable(v.string()),
	signed: v.boolean(),
	signature_valid: v.nullable(v.boolean()),
	mic_matches: v.nullable(v.boolean()),
	mic_missing: v.pipe(
		v.boolean(),
		v.description(
			"true when a positive MDN without Received-Content-MIC was taken as the receipt: RFC 4130 §7.4.3 requires the MIC only for a signed message, and pyas2-lib answers unsigned (encrypt-only, compress-only or plain) messages without one. For a signed message a missing MIC fails it with MIC_MISMATCH.",
		),
	),
	received_at: instantSchema,
});

export function mdnDataView(mdn: MdnData): v.InferOutput<typeof mdnDataSchema> {
	return {
		disposition: mdn.disposition,
		received_content_mic: mdn.receivedContentMic,
		reporting_ua: mdn.reportingUa,
		original_message_id: mdn.originalMessageId,
		final_recipient: mdn.finalRecipient,
		signed: mdn.signed,
		signature_valid: mdn.signatureValid,
		mic_matches: mdn.micMatches,
		mic_missing: mdn.micMissing ?? false,
		received_at: formatInstant(new Date(mdn.receivedAt)),
	};
}

export const rejectedMdnSchema = v.pipe(
	v.object({
		received_at: instantSchema,
		reason: v.pipe(v.string(), v.description("why it settled nothing")),
		disposition: v.string(),
		original_message_id: v.string(),
		message_id: v.pipe(v.nullable(v.string()), v.description("the MDN's own Message-ID, when it had one")),
		reporting_ua: v.nullable(v.string()),
		received_content_mic: v.nullable(v.string()),
		signed: v.boolean(),
		signature_valid: v.pipe(v.nullable(v.boolean()), v.description("null when unsigned")),
	}),
	v.description(
		"An MDN received for this message that settled nothing: unsigned where the partner agreement asks for a signed MDN, signed by a key that is not the partner's, or unsigned with a Received-Content-MIC that is not ours (or none for a signed message). Anyone can POST an MDN to /as2/receive, so such an MDN is only recorded: an async one leaves the message `sent` with mdn_status `pending` until a valid MDN arrives or the MDN timeout (AS2_MDN_TIMEOUT_SECONDS) fails it with MDN_TIMEOUT; a sync one (the answer to our own POST, after which no other MDN comes) fails it with INVALID_MDN.",
	),
);

export function rejectedMdnView(entry: RejectedMdn): v.InferOutput<typeof rejectedMdnSchema> {
	return {
		received_at: formatInstant(new Date(entry.receivedAt)),
		reason: entry.reason,
		disposition: entry.disposition,
		original_message_id: entry.originalMessageId,
		message_id: entry.messageId,
		reporting_ua: entry.reportingUa,
		received_content_mic: entry.receivedContentMic,
		signed: entry.signed,
		signature_valid: entry.signatureValid,
	};
}

export const messageDetailSchema = v.object({
	...messageSchema.entries,
	partner: v.object({ ...partnerRefSchema.entries, url: v.string() }),
	mdn_data: v.nullable(mdnDataSchema),
	rejected_mdns: v.pipe(
		v.array(rejectedMdnSchema),
		v.description("Outbound: the MDNs that were rejected, oldest first (the 20 most recent); empty otherwise."),
	),
	mic: v.nullable(v.string()),
	headers: v.record(v.string(), v.string()),
	transmission_time_ms: v.nullable(v.number()),
	failed_at: nullableInstantSchema,
	details: v.pipe(
		v.record(v.string(), v.unknown()),
		v.description(
			"Engine details. Inbound: `layers` (outermost first, with their algorithms and key transport), `mic_reading`, `payload_sha256`, `mdn_request`, and for a signed message `signature_variant`: the bytes its signature verified over — `as_received`, or `crlf` / `lf` when the partner's gateway changed the line ends after signing (the content as received is stored; the MIC returned is the one over the form that verified, RFC 4130 §7.3.1).",
		),
	),
});

/** `GET /v1/messages/{id}`: the message with its MDN data. */
export function messageDetailView(message: MessageRecord): v.InferOutput<typeof messageDetailSchema> {
	return {
		...messageView(message),
		partner: {
			id: message.partnerId,
			name: message.partnerName,
			as2_id: message.partnerAs2Id,
			url: message.partnerUrl,
		},
		mdn_data: message.mdnData ? mdnDataView(message.mdnData) : null,
		rejected_mdns: message.rejectedMdns.map(rejectedMdnView),
		mic: message.mic,
		headers: message.headers,
		transmission_time_ms: message.transmissionTimeMs,
		failed_at: formatOptionalInstant(message.failedAt),
		details: message.details,
	};
}

/**
 * The 202 answer of `POST /v1/messages` and the data of `message.queued` (interface spec): the
 * fields of {@link messageView} it keeps, in its order, built directly rather than picked from
 * a whole view (issue #20: the submission built the whole view twice, six instants formatted
 * each time, for the answer and for the event).
 */
export function queuedView(message: MessageRecord) {
	return {
		id: message.id,
		message_id: message.messageId,
		partner: partnerRef(message),
		status: message.status,
		direction: message.direction,
		subject: message.subject,
		content_type: message.contentType,
		bytes: message.bytes,
		compressed: message.compressed,
		encrypted: message.encrypted,
		signed: message.signed,
		mdn_mode: message.mdnMode,
		created_at: formatInstant(message.createdAt),
	};
}

const partnerRef = (m: MessageRecord) => ({ id: m.partnerId, name: m.partnerName, as2_id: m.partnerAs2Id });

/**
 * The data of each message event (interface spec, Event kinds). Each is one object literal,
 * the fields every message event starts with (id, message_id, partner, status, direction,
 * attempts) written out in each: no base object built and spread into another per event.
 */
export const messageEventData = {
	queued: (m: MessageRecord) => ({
		id: m.id,
		message_id: m.messageId,
		partner: partnerRef(m),
		status: m.status,
		direction: m.direction,
		attempts: m.attempts,
		subject: m.subject,
		content_type: m.contentType,
		bytes: m.bytes,
		created_at: formatInstant(m.createdAt),
	}),
	sent: (m: MessageRecord) => ({
		id: m.id,
		message_id: m.messageId,
		partner: partnerRef(m),
		// A sync MDN moves the message on to delivered in the same step: the event is the send's.
		status: "sent" as const,
		direction: m.direction,
		attempts: m.attempts,
		sent_at: formatOptionalInstant(m.sentAt),
		transmission_time_ms: m.transmissionTimeMs,
	}),
	delivered: (m: MessageRecord) => ({
		id: m.id,
		message_id: m.messageId,
		partner: partnerRef(m),
		status: m.status,
		direction: m.direction,
		attempts: m.attempts,
		mdn_data: m.mdnData ? mdnDataView(m.mdnData) : null,
		delivered_at: formatOptionalInstant(m.deliveredAt),
	}),
	failed: (m: MessageRecord) => ({
		id: m.id,
		message_id: m.messageId,
		partner: partnerRef(m),
		status: m.status,
		direction: m.direction,
		attempts: m.attempts,
		error_code: m.errorCode,
		error_message: m.errorMessage,
		error_hint: errorHintOf(m),
		failed_at: formatOptionalInstant(m.failedAt),
	}),
	received: (m: MessageRecord) => ({
		id: m.id,
		message_id: m.messageId,
		partner: partnerRef(m),
		status: m.status,
		direction: m.direction,
		attempts: m.attempts,
		from_as2_id: m.fromAs2Id,
		to_as2_id: m.toAs2Id,
		subject: m.subject,
		content_type: m.contentType,
		bytes: m.bytes,
		encrypted: m.encrypted,
		signed: m.signed,
		mdn_requested: m.mdnMode !== "none",
		received_at: formatInstant(m.createdAt),
	}),
};
