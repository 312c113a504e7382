/**
 * The PostgreSQL tables of the storage port, column for column those of storage-sqlite:
 * plural snake_case names; instants as `timestamptz(3)` (the port's Dates carry milliseconds);
 * JSON as `json`, not `jsonb`, so that objects read back with their keys in the order written
 * (AS2 headers, EPCIS events); counters of bytes as `bigint` (payloads reach 2 GB). drizzle-kit
 * generates the migrations in `migrations/` from this file (`npm run generate -w packages/storage-pg`).
 */
import type { AttemptPhases, Json, MdnData, PartnerSettings, RejectedMdn, WireCapture } from "@as2kit/core/store";
import { sql } from "drizzle-orm";
import {
	bigint,
	bigserial,
	boolean,
	doublePrecision,
	index,
	integer,
	json as jsonColumn,
	pgTable,
	primaryKey,
	text,
	timestamp,
	uniqueIndex,
} from "drizzle-orm/pg-core";

const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });
const json = <T>(name: string) => jsonColumn(name).$type<T>();
/** Whole numbers past 2^31 (bytes, summed milliseconds), read as JS numbers (exact below 2^53). */
const big = (name: string) => bigint(name, { mode: "number" });

export const accounts = pgTable("accounts", {
	id: text("id").primaryKey(),
	name: text("name").notNull(),
	slug: text("slug").notNull().unique(),
	plan: text("plan").notNull(),
	status: text("status").notNull(),
	createdAt: instant("created_at").notNull(),
	updatedAt: instant("updated_at").notNull(),
});

export const users = pgTable("users", {
	id: text("id").primaryKey(),
	name: text("name").notNull(),
	email: text("email").notNull().unique(),
	passwordHash: text("password_hash").notNull(),
	createdAt: instant("created_at").notNull(),
	updatedAt: instant("updated_at").notNull(),
});

export const memberships = pgTable(
	"memberships",
	{
		accountId: text("account_id").notNull(),
		userId: text("user_id").notNull(),
		role: text("role").notNull(),
		createdAt: instant("created_at").notNull(),
	},
	(t) => [primaryKey({ columns: [t.accountId, t.userId] }), index("memberships_user_idx").on(t.userId)],
);

export const sessions = pgTable("sessions", {
	id: text("id").primaryKey(),
	userId: text("user_id").notNull(),
	accountId: text("account_id").notNull(),
	tokenHash: text("token_hash").notNull().unique(),
	createdAt: instant("created_at").notNull(),
	expiresAt: instant("expires_at").notNull(),
	lastUsedAt: instant("last_used_at"),
	revokedAt: instant("revoked_at"),
});

export const tenants = pgTable(
	"tenants",
	{
		id: text("id").primaryKey(),
		accountId: text("account_id").notNull(),
		name: text("name").notNull(),
		slug: text("slug").notNull(),
		as2Id: text("as2_id").notNull().unique(),
		status: text("status").notNull(),
		createdAt: instant("created_at").notNull(),
		updatedAt: instant("updated_at").notNull(),
	},
	(t) => [
		uniqueIndex("tenants_account_slug_idx").on(t.accountId, t.slug),
		index("tenants_account_created_idx").on(t.accountId, t.createdAt),
	],
);

export const apiKeys = pgTable(
	"api_keys",
	{
		id: text("id").primaryKey(),
		accountId: text("account_id").notNull(),
		tenantId: text("tenant_id"),
		userId: text("user_id"),
		name: text("name").notNull(),
		keyPrefix: text("key_prefix").notNull(),
		keyHash: text("key_hash").notNull().unique(),
		keyLast4: text("key_last4").notNull(),
		scope: text("scope").notNull(),
		environment: text("environment").notNull(),
		permissions: json<string[]>("permissions").notNull(),
		allowedTenantIds: json<string[]>("allowed_tenant_ids"),
		lastUsedAt: instant("last_used_at"),
		expiresAt: instant("expires_at"),
		createdAt: instant("created_at").notNull(),
		revokedAt: instant("revoked_at"),
	},
	(t) => [index("api_keys_account_created_idx").on(t.accountId, t.createdAt)],
);

export const events = pgTable(
	"events",
	{
		seq: bigserial("seq", { mode: "number" }).primaryKey(),
		id: text("id").notNull().unique(),
		accountId: text("account_id").notNull(),
		tenantId: text("tenant_id"),
		kind: text("kind").notNull(),
		/** What the event is about (`data.id`): a message's timeline reads its events by it. */
		subjectId: text("subject_id"),
		data: json<{ [key: string]: Json }>("data").notNull(),
		environment: text("environment").notNull(),
		createdAt: instant("created_at").notNull(),
	},
	(t) => [
		index("events_account_seq_idx").on(t.accountId, t.seq),
		index("events_subject_seq_idx").on(t.subjectId, t.seq),
	],
);

export const idempotencyKeys = pgTable(
	"idempotency_keys",
	{
		scope: text("scope").notNull(),
		key: text("key").notNull(),
		fingerprint: text("fingerprint").notNull(),
		state: text("state").notNull(),
		responseStatus: integer("response_status"),
		responseBody: text("response_body"),
		createdAt: instant("created_at").notNull(),
		lockedUntil: instant("locked_until"),
		expiresAt: instant("expires_at").notNull(),
	},
	(t) => [primaryKey({ columns: [t.scope, t.key] }), index("idempotency_keys_expires_idx").on(t.expiresAt)],
);

export const rateBuckets = pgTable("rate_buckets", {
	key: text("key").primaryKey(),
	tokens: doublePrecision("tokens").notNull(),
	updatedAt: instant("updated_at").notNull(),
});

export const rateSlots = pgTable(
	"rate_slots",
	{
		id: text("id").primaryKey(),
		key: text("key").notNull(),
		expiresAt: instant("expires_at").notNull(),
	},
	(t) => [index("rate_slots_key_idx").on(t.key, t.expiresAt)],
);

export const usageCounters = pgTable(
	"usage_counters",
	{
		accountId: text("account_id").notNull(),
		period: text("period").notNull(),
		metric: text("metric").notNull(),
		value: big("value").notNull(),
	},
	(t) => [primaryKey({ columns: [t.accountId, t.period, t.metric] })],
);

export const usageThresholds = pgTable(
	"usage_thresholds",
	{
		accountId: text("account_id").notNull(),
		period: text("period").notNull(),
		metric: text("metric").notNull(),
		threshold: big("threshold").notNull(),
	},
	(t) => [primaryKey({ columns: [t.accountId, t.period, t.metric, t.threshold] })],
);

export const jobs = pgTable(
	"jobs",
	{
		id: bigserial("id", { mode: "number" }).primaryKey(),
		kind: text("kind").notNull(),
		payload: json<{ [key: string]: Json }>("payload").notNull(),
		key: text("key"),
		priority: integer("priority").notNull(),
		runAt: instant("run_at").notNull(),
		attempts: integer("attempts").notNull(),
		lockedBy: text("locked_by"),
		lockedUntil: instant("locked_until"),
		lastError: text("last_error"),
		createdAt: instant("created_at").notNull(),
	},
	(t) => [
		// Keyed jobs alone: most jobs (a message's send, a fan-out) have no key, and a null key
		// in the index is an entry written and removed for nothing (stop 35).
		uniqueIndex("jobs_key_unique").on(t.key).where(sql`${t.key} is not null`),
		index("jobs_due_idx").on(t.runAt),
		index("jobs_kind_due_idx").on(t.kind, t.runAt),
		// The claim order (repositories/jobs.ts).
		index("jobs_claim_idx").on(t.priority.desc(), t.runAt, t.id),
	],
);

export const schedules = pgTable("schedules", {
	name: text("name").primaryKey(),
	period: text("period").notNull(),
});

export const partners = pgTable(
	"partners",
	{
		id: text("id").primaryKey(),
		accountId: text("account_id").notNull(),
		tenantId: text("tenant_id"),
		name: text("name").notNull(),
		as2Id: text("as2_id").notNull(),
		url: text("url").notNull(),
		active: boolean("active").notNull(),
		sign: boolean("sign").notNull(),
		encrypt: boolean("encrypt").notNull(),
		compress: boolean("compress").notNull(),
		mdnMode: text("mdn_mode").notNull(),
		signAlgorithm: text("sign_algorithm"),
		encryptAlgorithm: text("encrypt_algorithm"),
		settings: json<PartnerSettings>("settings").notNull(),
		connectionStatus: json<{ lastTest: string; lastTestResult: string; responseTimeMs: number | null }>(
			"connection_status",
		),
		deactivatedAt: instant("deactivated_at"),
		deletedAt: instant("deleted_at"),
		createdAt: instant("created_at").notNull(),
		updatedAt: instant("updated_at").notNull(),
	},
	(t) => [
		// AS2 ids are unique among a tenant's live partners, and among an account's live master partners.
		uniqueIndex("partners_tenant_as2_id_idx")
			.on(t.tenantId, t.as2Id)
			.where(sql`${t.tenantId} IS NOT NULL AND ${t.deletedAt} IS NULL`),
		uniqueIndex("partners_master_as2_id_idx")
			.on(t.accountId, t.as2Id)
			.where(sql`${t.tenantId} IS NULL AND ${t.deletedAt} IS NULL`),
		index("partners_tenant_created_idx").on(t.tenantId, t.createdAt),
		index("partners_account_idx").on(t.accountId),
	],
);

export const partnerOverrides = pgTable(
	"partner_overrides",
	{
		tenantId: text("tenant_id").notNull(),
		masterPartnerId: text("master_partner_id").notNull(),
		name: text("name"),
		active: boolean("active"),
		settings: json<{ [key: string]: unknown }>("settings").notNull(),
		createdAt: instant("created_at").notNull(),
		updatedAt: instant("updated_at").notNull(),
	},
	(t) => [primaryKey({ columns: [t.tenantId, t.masterPartnerId] })],
);

export const certificates = pgTable(
	"certificates",
	{
		id: text("id").primaryKey(),
		accountId: text("account_id").notNull(),
		tenantId: text("tenant_id"),
		partnerId: text("partner_id"),
		type: text("type").notNull(),
		usage: text("usage").notNull(),
		origin: text("origin").notNull(),
		name: text("name").notNull(),
		subject: text("subject").notNull(),
		issuer: text("issuer").notNull(),
		serialNumber: text("serial_number").notNull(),
		fingerprint: text("fingerprint").notNull(),
		keyAlgorithm: text("key_algorithm").notNull(),
		keyBits: integer("key_bits").notNull(),
		notBefore: instant("not_before").notNull(),
		expiresAt: instant("expires_at").notNull(),
		certificatePem: text("certificate_pem").notNull(),
		chainPem: text("chain_pem"),
		privateKeySealed: text("private_key_sealed"),
		active: boolean("active").notNull(),
		activatedAt: instant("activated_at"),
		expiringNotifiedAt: instant("expiring_notified_at"),
		expiredNotifiedAt: instant("expired_notified_at"),
		deletedAt: instant("deleted_at"),
		createdAt: instant("created_at").notNull(),
		updatedAt: instant("updated_at").notNull(),
	},
	(t) => [
		index("certificates_tenant_idx").on(t.tenantId, t.createdAt),
		index("certificates_partner_idx").on(t.partnerId),
		index("certificates_account_idx").on(t.accountId),
		index("certificates_expiry_idx").on(t.expiresAt),
	],
);

export const messages = pgTable(
	"messages",
	{
		id: text("id").primaryKey(),
		accountId: text("account_id").notNull(),
		tenantId: text("tenant_id").notNull(),
		environment: text("environment").notNull(),
		direction: text("direction").notNull(),
		messageId: text("message_id").notNull(),
		partnerId: text("partner_id").notNull(),
		partnerName: text("partner_name").notNull(),
		partnerAs2Id: text("partner_as2_id").notNull(),
		partnerUrl: text("partner_url").notNull(),
		status: text("status").notNull(),
		fromAs2Id: text("from_as2_id").notNull(),
		toAs2Id: text("to_as2_id").notNull(),
		subject: text("subject"),
		contentType: text("content_type").notNull(),
		filename: text("filename"),
		bytes: big("bytes").notNull(),
		compressed: boolean("compressed").notNull(),
		encrypted: boolean("encrypted").notNull(),
		signed: boolean("signed").notNull(),
		mdnMode: text("mdn_mode").notNull(),
		mdnStatus: text("mdn_status").notNull(),
		mdnData: json<MdnData>("mdn_data"),
		rejectedMdns: json<RejectedMdn[]>("rejected_mdns").notNull().default(sql`'[]'::json`),
		mic: text("mic"),
		priority: text("priority").notNull(),
		headers: json<Record<string, string>>("headers").notNull(),
		payloadKey: text("payload_key"),
		scheduledAt: instant("scheduled_at"),
		attempts: integer("attempts").notNull(),
		lastAttemptAt: instant("last_attempt_at"),
		sentAt: instant("sent_at"),
		deliveredAt: instant("delivered_at"),
		failedAt: instant("failed_at"),
		mdnDeadline: instant("mdn_deadline"),
		errorCode: text("error_code"),
		errorMessage: text("error_message"),
		transmissionTimeMs: integer("transmission_time_ms"),
		details: json<{ [key: string]: Json }>("details").notNull(),
		createdAt: instant("created_at").notNull(),
		updatedAt: instant("updated_at").notNull(),
	},
	(t) => [
		// GET /v1/messages: per tenant, newest first (created_at, then id), narrowed by any filter.
		// Each filter has an index that ends in the list's order, so a page reads only its rows and
		// a (capped) count reads index entries alone; id is there so ties need no sort.
		// The status and MDN-status filters' indexes are message_states' (below).
		index("messages_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
		index("messages_tenant_partner_idx").on(t.tenantId, t.partnerId, t.createdAt, t.id),
		index("messages_tenant_direction_idx").on(t.tenantId, t.direction, t.createdAt, t.id),
		index("messages_tenant_environment_idx").on(t.tenantId, t.environment, t.createdAt, t.id),
		index("messages_tenant_content_type_idx").on(t.tenantId, t.contentType, t.createdAt, t.id),
		index("messages_tenant_encrypted_idx").on(t.tenantId, t.encrypted, t.createdAt, t.id),
		index("messages_tenant_signed_idx").on(t.tenantId, t.signed, t.createdAt, t.id),
		// has_errors is an expression; as an equality on the index's second column the planner
		// prefers this index without statistics, as it does the others.
		index("messages_tenant_has_errors_idx").on(t.tenantId, sql`(${t.errorCode} IS NOT NULL)`, t.createdAt, t.id),
		index("messages_message_id_idx").on(t.tenantId, t.messageId),
		// A partner's inbound Message-ID is stored once (decisions.md: duplicates are not stored twice).
		uniqueIndex("messages_inbound_unique_idx")
			.on(t.tenantId, t.partnerId, t.messageId)
			.where(sql`${t.direction} = 'inbound'`),
	],
);

/**
 * The columns of `messages` that every move changes (`status`, `mdn_status`, `mdn_deadline`),
 * with those the list orders and narrows them by, in a table of their own with the indexes of
 * their filters: `messages` then holds no index on a column a move changes, so its moves are
 * HOT updates (no index entry written; its fillfactor, migration 0008, leaves the page room),
 * and a move writes this narrow row and its few entries instead of the wide row's fifteen
 * (docs/performance-storage.md, "Status moves made HOT (stop 33)": −30 % WAL). Written by the
 * same statements as `messages` (the repository's CTEs), never by a trigger (which gave the
 * saving back); `messages` keeps the columns too, for whole-row reads.
 */
export const messageStates = pgTable(
	"message_states",
	{
		id: text("id").primaryKey(),
		tenantId: text("tenant_id").notNull(),
		partnerId: text("partner_id").notNull(),
		status: text("status").notNull(),
		mdnStatus: text("mdn_status").notNull(),
		mdnDeadline: instant("mdn_deadline"),
		createdAt: instant("created_at").notNull(),
	},
	(t) => [
		// GET /v1/messages' status, partner-and-status and MDN-status filters, in the list's order.
		index("message_states_tenant_status_idx").on(t.tenantId, t.status, t.createdAt, t.id),
		// "This partner's failed messages" is the combination people ask for most.
		index("message_states_tenant_partner_status_idx").on(t.tenantId, t.partnerId, t.status, t.createdAt, t.id),
		index("message_states_tenant_mdn_status_idx").on(t.tenantId, t.mdnStatus, t.createdAt, t.id),
		// The async-MDN timeout scan (listMdnOverdue).
		index("message_states_mdn_deadline_idx")
			.on(t.mdnDeadline)
			.where(sql`${t.mdnStatus} = 'pending' AND ${t.status} = 'sent'`),
	],
);

export const webhookEndpoints = pgTable(
	"webhook_endpoints",
	{
		id: text("id").primaryKey(),
		accountId: text("account_id").notNull(),
		tenantId: text("tenant_id").notNull(),
		url: text("url").notNull(),
		events: json<string[]>("events").notNull(),
		active: boolean("active").notNull(),
		// Existing endpoints: see the migration that added it (README, Webhooks: upgrading).
		accountEvents: boolean("account_events").notNull().default(false),
		secretSealed: text("secret_sealed").notNull(),
		failingSince: instant("failing_since"),
		disabledReason: text("disabled_reason"),
		// Counters behind GET /v1/webhook-endpoints-stats, kept as attempts finish.
		attemptCount: integer("attempt_count").notNull().default(0),
		successCount: integer("success_count").notNull().default(0),
		responseTimeTotalMs: big("response_time_total_ms").notNull().default(0),
		responseCount: integer("response_count").notNull().default(0),
		lastAttemptAt: instant("last_attempt_at"),
		createdAt: instant("created_at").notNull(),
		updatedAt: instant("updated_at").notNull(),
	},
	(t) => [
		index("webhook_endpoints_tenant_created_idx").on(t.tenantId, t.createdAt),
		index("webhook_endpoints_account_active_idx").on(t.accountId, t.active),
	],
);

export const webhookDeliveries = pgTable(
	"webhook_deliveries",
	{
		seq: bigserial("seq", { mode: "number" }).primaryKey(),
		id: text("id").notNull().unique(),
		accountId: text("account_id").notNull(),
		tenantId: text("tenant_id").notNull(),
		endpointId: text("endpoint_id").notNull(),
		eventId: text("event_id"),
		eventKind: text("event_kind").notNull(),
		orderingKey: text("ordering_key"),
		body: text("body").notNull(),
		status: text("status").notNull(),
		attempts: integer("attempts").notNull(),
		nextAttemptAt: instant("next_attempt_at"),
		lastAttemptAt: instant("last_attempt_at"),
		lastResponseStatus: integer("last_response_status"),
		lastError: text("last_error"),
		lockedBy: text("locked_by"),
		lockedUntil: instant("locked_until"),
		createdAt: instant("created_at").notNull(),
		updatedAt: instant("updated_at").notNull(),
	},
	(t) => [
		// NULL event ids (webhook.test) are distinct, as in SQLite.
		uniqueIndex("webhook_deliveries_event_endpoint_idx").on(t.eventId, t.endpointId),
		// A claim seeks each endpoint's earliest due deliveries (seq breaks ties of one instant
		// without a sort: 200,000 due at once took 55 ms a claim without it, 3 ms with); the list
		// reads an endpoint's newest.
		index("webhook_deliveries_endpoint_due_idx").on(t.endpointId, t.status, t.nextAttemptAt, t.seq),
		index("webhook_deliveries_endpoint_seq_idx").on(t.endpointId, t.seq),
		// A claim skips a delivery while one before it with its ordering key is pending.
		index("webhook_deliveries_ordering_idx").on(t.endpointId, t.orderingKey, t.status, t.seq),
		index("webhook_deliveries_finished_idx").on(t.updatedAt),
		index("webhook_deliveries_held_idx").on(t.status, t.lockedUntil),
	],
);

export const webhookAttempts = pgTable(
	"webhook_attempts",
	{
		deliveryId: text("delivery_id").notNull(),
		attempt: integer("attempt").notNull(),
		tenantId: text("tenant_id").notNull(),
		endpointId: text("endpoint_id").notNull(),
		succeeded: boolean("succeeded").notNull(),
		responseStatus: integer("response_status"),
		responseTimeMs: integer("response_time_ms"),
		responseBody: text("response_body"),
		error: text("error"),
		attemptedAt: instant("attempted_at").notNull(),
	},
	(t) => [primaryKey({ columns: [t.deliveryId, t.attempt] }), index("webhook_attempts_endpoint_idx").on(t.endpointId)],
);

/**
 * EPCIS events indexed from message payloads (issue #7). The EQ_ fields and both times are
 * columns, each with a (tenant, field, event_time) index that also serves the default order;
 * the identifier lists live in epcis_event_values, one row per value.
 */
export const epcisEvents = pgTable(
	"epcis_events",
	{
		// Insertion order, the tie-breaker of every ordering.
		id: bigserial("id", { mode: "number" }).primaryKey(),
		tenantId: text("tenant_id").notNull(),
		sourceMessageId: text("source_message_id").notNull(),
		eventIndex: integer("event_index").notNull(),
		type: text("type").notNull(),
		eventTime: instant("event_time").notNull(),
		recordTime: instant("record_time").notNull(),
		action: text("action"),
		bizStep: text("biz_step"),
		disposition: text("disposition"),
		readPoint: text("read_point"),
		bizLocation: text("biz_location"),
		transformationId: text("transformation_id"),
		eventId: text("event_id"),
		event: json<{ [key: string]: Json }>("event").notNull(),
	},
	(t) => [
		// A message's event is stored once: the indexing job may run again after a crash.
		uniqueIndex("epcis_events_message_idx").on(t.tenantId, t.sourceMessageId, t.eventIndex),
		index("epcis_events_time_idx").on(t.tenantId, t.eventTime),
		index("epcis_events_record_time_idx").on(t.tenantId, t.recordTime),
		index("epcis_events_biz_step_idx").on(t.tenantId, t.bizStep, t.eventTime),
		index("epcis_events_disposition_idx").on(t.tenantId, t.disposition, t.eventTime),
		index("epcis_events_read_point_idx").on(t.tenantId, t.readPoint, t.eventTime),
		index("epcis_events_biz_location_idx").on(t.tenantId, t.bizLocation, t.eventTime),
		index("epcis_events_event_id_idx").on(t.tenantId, t.eventId),
		index("epcis_events_transformation_idx").on(t.tenantId, t.transformationId),
	],
);

/** EPCs, classes, parent ids, business transactions, sources and destinations of an event. */
export const epcisEventValues = pgTable(
	"epcis_event_values",
	{
		eventRow: big("event_row").notNull(),
		tenantId: text("tenant_id").notNull(),
		kind: text("kind").notNull(),
		type: text("type").notNull(),
		value: text("value").notNull(),
	},
	(t) => [
		// MATCH_/EQ_ lookups: equality or a prefix range on value, covering, so no table access.
		// text_pattern_ops compares bytes, so a prefix (LIKE 'urn:epc:id:sgtin:0614141.%') is a
		// range in this index whatever the database's collation; equality works as well.
		index("epcis_event_values_lookup_idx").on(t.tenantId, t.kind, t.value.op("text_pattern_ops"), t.type, t.eventRow),
		// Per-event checks of the other MATCH_ conditions, covering too; also deletes by event.
		index("epcis_event_values_event_idx").on(t.eventRow, t.kind, t.value, t.type),
	],
);

/** The indexing outcome per message: status, counts, the error of a failed run. */
export const epcisDocuments = pgTable(
	"epcis_documents",
	{
		tenantId: text("tenant_id").notNull(),
		messageId: text("message_id").notNull(),
		status: text("status").notNull(),
		version: text("version"),
		eventCount: integer("event_count").notNull(),
		skippedEvents: integer("skipped_events").notNull(),
		errorCode: text("error_code"),
		errorMessage: text("error_message"),
		createdAt: instant("created_at").notNull(),
		updatedAt: instant("updated_at").notNull(),
	},
	(t) => [primaryKey({ columns: [t.tenantId, t.messageId] })],
);

/** Transmission attempts of messages and where their wire captures are (issue #18). */
export const messageAttempts = pgTable(
	"message_attempts",
	{
		messageId: text("message_id").notNull(),
		number: integer("number").notNull(),
		tenantId: text("tenant_id").notNull(),
		direction: text("direction").notNull(),
		startedAt: instant("started_at").notNull(),
		finishedAt: instant("finished_at"),
		url: text("url"),
		httpStatus: integer("http_status"),
		bytesSent: big("bytes_sent"),
		bytesReceived: big("bytes_received"),
		outcome: text("outcome").notNull(),
		errorCode: text("error_code"),
		errorMessage: text("error_message"),
		tlsVersion: text("tls_version"),
		peerCertificateSha256: text("peer_certificate_sha256"),
		phases: json<AttemptPhases>("phases").notNull(),
		request: json<WireCapture>("request"),
		response: json<WireCapture>("response"),
		mdn: json<WireCapture>("mdn"),
		/** When the captures are removed (the plan's retention); null when there are none. */
		wireExpiresAt: instant("wire_expires_at"),
	},
	(t) => [
		primaryKey({ columns: [t.messageId, t.number], name: "message_attempts_pk" }),
		index("message_attempts_wire_expires_idx").on(t.wireExpiresAt),
	],
);
