CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"plan" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "accounts_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"tenant_id" text,
	"user_id" text,
	"name" text NOT NULL,
	"key_prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"key_last4" text NOT NULL,
	"scope" text NOT NULL,
	"environment" text NOT NULL,
	"permissions" json NOT NULL,
	"allowed_tenant_ids" json,
	"last_used_at" timestamp (3) with time zone,
	"expires_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "certificates" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"tenant_id" text,
	"partner_id" text,
	"type" text NOT NULL,
	"usage" text NOT NULL,
	"origin" text NOT NULL,
	"name" text NOT NULL,
	"subject" text NOT NULL,
	"issuer" text NOT NULL,
	"serial_number" text NOT NULL,
	"fingerprint" text NOT NULL,
	"key_algorithm" text NOT NULL,
	"key_bits" integer NOT NULL,
	"not_before" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"certificate_pem" text NOT NULL,
	"chain_pem" text,
	"private_key_sealed" text,
	"active" boolean NOT NULL,
	"activated_at" timestamp (3) with time zone,
	"expiring_notified_at" timestamp (3) with time zone,
	"expired_notified_at" timestamp (3) with time zone,
	"deleted_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "epcis_documents" (
	"tenant_id" text NOT NULL,
	"message_id" text NOT NULL,
	"status" text NOT NULL,
	"version" text,
	"event_count" integer NOT NULL,
	"skipped_events" integer NOT NULL,
	"error_code" text,
	"error_message" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "epcis_documents_tenant_id_message_id_pk" PRIMARY KEY("tenant_id","message_id")
);
--> statement-breakpoint
CREATE TABLE "epcis_event_values" (
	"event_row" bigint NOT NULL,
	"tenant_id" text NOT NULL,
	"kind" text NOT NULL,
	"type" text NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "epcis_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"source_message_id" text NOT NULL,
	"event_index" integer NOT NULL,
	"type" text NOT NULL,
	"event_time" timestamp (3) with time zone NOT NULL,
	"record_time" timestamp (3) with time zone NOT NULL,
	"action" text,
	"biz_step" text,
	"disposition" text,
	"read_point" text,
	"biz_location" text,
	"transformation_id" text,
	"event_id" text,
	"event" json NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"account_id" text NOT NULL,
	"tenant_id" text,
	"kind" text NOT NULL,
	"data" json NOT NULL,
	"environment" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "events_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"payload" json NOT NULL,
	"key" text,
	"priority" integer NOT NULL,
	"run_at" timestamp (3) with time zone NOT NULL,
	"attempts" integer NOT NULL,
	"locked_by" text,
	"locked_until" timestamp (3) with time zone,
	"last_error" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "jobs_key_unique" UNIQUE("key")
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "memberships_account_id_user_id_pk" PRIMARY KEY("account_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"environment" text NOT NULL,
	"direction" text NOT NULL,
	"message_id" text NOT NULL,
	"partner_id" text NOT NULL,
	"partner_name" text NOT NULL,
	"partner_as2_id" text NOT NULL,
	"partner_url" text NOT NULL,
	"status" text NOT NULL,
	"from_as2_id" text NOT NULL,
	"to_as2_id" text NOT NULL,
	"subject" text,
	"content_type" text NOT NULL,
	"filename" text,
	"bytes" bigint NOT NULL,
	"compressed" boolean NOT NULL,
	"encrypted" boolean NOT NULL,
	"signed" boolean NOT NULL,
	"mdn_mode" text NOT NULL,
	"mdn_status" text NOT NULL,
	"mdn_data" json,
	"mic" text,
	"priority" text NOT NULL,
	"headers" json NOT NULL,
	"payload_key" text,
	"scheduled_at" timestamp (3) with time zone,
	"attempts" integer NOT NULL,
	"last_attempt_at" timestamp (3) with time zone,
	"sent_at" timestamp (3) with time zone,
	"delivered_at" timestamp (3) with time zone,
	"failed_at" timestamp (3) with time zone,
	"mdn_deadline" timestamp (3) with time zone,
	"error_code" text,
	"error_message" text,
	"transmission_time_ms" integer,
	"details" json NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "partner_overrides" (
	"tenant_id" text NOT NULL,
	"master_partner_id" text NOT NULL,
	"name" text,
	"active" boolean,
	"settings" json NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "partner_overrides_tenant_id_master_partner_id_pk" PRIMARY KEY("tenant_id","master_partner_id")
);
--> statement-breakpoint
CREATE TABLE "partners" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"tenant_id" text,
	"name" text NOT NULL,
	"as2_id" text NOT NULL,
	"url" text NOT NULL,
	"active" boolean NOT NULL,
	"sign" boolean NOT NULL,
	"encrypt" boolean NOT NULL,
	"compress" boolean NOT NULL,
	"mdn_mode" text NOT NULL,
	"sign_algorithm" text,
	"encrypt_algorithm" text,
	"settings" json NOT NULL,
	"connection_status" json,
	"deactivated_at" timestamp (3) with time zone,
	"deleted_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_buckets" (
	"key" text PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_slots" (
	"id" text PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "schedules" (
	"name" text PRIMARY KEY NOT NULL,
	"period" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"account_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"as2_id" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "tenants_as2_id_unique" UNIQUE("as2_id")
);
--> statement-breakpoint
CREATE TABLE "usage_counters" (
	"account_id" text NOT NULL,
	"period" text NOT NULL,
	"metric" text NOT NULL,
	"value" bigint NOT NULL,
	CONSTRAINT "usage_counters_account_id_period_metric_pk" PRIMARY KEY("account_id","period","metric")
);
--> statement-breakpoint
CREATE TABLE "usage_thresholds" (
	"account_id" text NOT NULL,
	"period" text NOT NULL,
	"metric" text NOT NULL,
	"threshold" bigint NOT NULL,
	CONSTRAINT "usage_thresholds_account_id_period_metric_threshold_pk" PRIMARY KEY("account_id","period","metric","threshold")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"delivery_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"tenant_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"succeeded" boolean NOT NULL,
	"response_status" integer,
	"response_time_ms" integer,
	"response_body" text,
	"error" text,
	"attempted_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "webhook_attempts_delivery_id_attempt_pk" PRIMARY KEY("delivery_id","attempt")
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"account_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"event_id" text,
	"event_kind" text NOT NULL,
	"body" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer NOT NULL,
	"next_attempt_at" timestamp (3) with time zone,
	"last_attempt_at" timestamp (3) with time zone,
	"last_response_status" integer,
	"last_error" text,
	"locked_by" text,
	"locked_until" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "webhook_deliveries_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"url" text NOT NULL,
	"events" json NOT NULL,
	"active" boolean NOT NULL,
	"secret_sealed" text NOT NULL,
	"failing_since" timestamp (3) with time zone,
	"disabled_reason" text,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"success_count" integer DEFAULT 0 NOT NULL,
	"response_time_total_ms" bigint DEFAULT 0 NOT NULL,
	"response_count" integer DEFAULT 0 NOT NULL,
	"last_attempt_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "api_keys_account_created_idx" ON "api_keys" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "certificates_tenant_idx" ON "certificates" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "certificates_partner_idx" ON "certificates" USING btree ("partner_id");--> statement-breakpoint
CREATE INDEX "certificates_account_idx" ON "certificates" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "certificates_expiry_idx" ON "certificates" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "epcis_event_values_lookup_idx" ON "epcis_event_values" USING btree ("tenant_id","kind","value","type","event_row");--> statement-breakpoint
CREATE INDEX "epcis_event_values_event_idx" ON "epcis_event_values" USING btree ("event_row","kind","value","type");--> statement-breakpoint
CREATE UNIQUE INDEX "epcis_events_message_idx" ON "epcis_events" USING btree ("tenant_id","source_message_id","event_index");--> statement-breakpoint
CREATE INDEX "epcis_events_time_idx" ON "epcis_events" USING btree ("tenant_id","event_time");--> statement-breakpoint
CREATE INDEX "epcis_events_record_time_idx" ON "epcis_events" USING btree ("tenant_id","record_time");--> statement-breakpoint
CREATE INDEX "epcis_events_biz_step_idx" ON "epcis_events" USING btree ("tenant_id","biz_step","event_time");--> statement-breakpoint
CREATE INDEX "epcis_events_disposition_idx" ON "epcis_events" USING btree ("tenant_id","disposition","event_time");--> statement-breakpoint
CREATE INDEX "epcis_events_read_point_idx" ON "epcis_events" USING btree ("tenant_id","read_point","event_time");--> statement-breakpoint
CREATE INDEX "epcis_events_biz_location_idx" ON "epcis_events" USING btree ("tenant_id","biz_location","event_time");--> statement-breakpoint
CREATE INDEX "epcis_events_event_id_idx" ON "epcis_events" USING btree ("tenant_id","event_id");--> statement-breakpoint
CREATE INDEX "epcis_events_transformation_idx" ON "epcis_events" USING btree ("tenant_id","transformation_id");--> statement-breakpoint
CREATE INDEX "events_account_seq_idx" ON "events" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree ("run_at");--> statement-breakpoint
CREATE INDEX "jobs_kind_due_idx" ON "jobs" USING btree ("kind","run_at");--> statement-breakpoint
CREATE INDEX "jobs_claim_idx" ON "jobs" USING btree ("priority" DESC NULLS LAST,"run_at","id");--> statement-breakpoint
CREATE INDEX "memberships_user_idx" ON "memberships" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "messages_tenant_created_idx" ON "messages" USING btree ("tenant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_tenant_status_idx" ON "messages" USING btree ("tenant_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_tenant_partner_idx" ON "messages" USING btree ("tenant_id","partner_id","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_tenant_partner_status_idx" ON "messages" USING btree ("tenant_id","partner_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_tenant_direction_idx" ON "messages" USING btree ("tenant_id","direction","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_tenant_mdn_status_idx" ON "messages" USING btree ("tenant_id","mdn_status","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_tenant_environment_idx" ON "messages" USING btree ("tenant_id","environment","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_tenant_content_type_idx" ON "messages" USING btree ("tenant_id","content_type","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_tenant_encrypted_idx" ON "messages" USING btree ("tenant_id","encrypted","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_tenant_signed_idx" ON "messages" USING btree ("tenant_id","signed","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_tenant_has_errors_idx" ON "messages" USING btree ("tenant_id",("error_code" IS NOT NULL),"created_at","id");--> statement-breakpoint
CREATE INDEX "messages_message_id_idx" ON "messages" USING btree ("tenant_id","message_id");--> statement-breakpoint
CREATE UNIQUE INDEX "messages_inbound_unique_idx" ON "messages" USING btree ("tenant_id","partner_id","message_id") WHERE "messages"."direction" = 'inbound';--> statement-breakpoint
CREATE INDEX "messages_mdn_deadline_idx" ON "messages" USING btree ("mdn_deadline") WHERE "messages"."mdn_status" = 'pending' AND "messages"."status" = 'sent';--> statement-breakpoint
CREATE UNIQUE INDEX "partners_tenant_as2_id_idx" ON "partners" USING btree ("tenant_id","as2_id") WHERE "partners"."tenant_id" IS NOT NULL AND "partners"."deleted_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "partners_master_as2_id_idx" ON "partners" USING btree ("account_id","as2_id") WHERE "partners"."tenant_id" IS NULL AND "partners"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX "partners_tenant_created_idx" ON "partners" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "partners_account_idx" ON "partners" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "rate_slots_key_idx" ON "rate_slots" USING btree ("key","expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "tenants_account_slug_idx" ON "tenants" USING btree ("account_id","slug");--> statement-breakpoint
CREATE INDEX "tenants_account_created_idx" ON "tenants" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_attempts_endpoint_idx" ON "webhook_attempts" USING btree ("endpoint_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_endpoint_idx" ON "webhook_deliveries" USING btree ("event_id","endpoint_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_due_idx" ON "webhook_deliveries" USING btree ("endpoint_id","status","next_attempt_at","seq");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_seq_idx" ON "webhook_deliveries" USING btree ("endpoint_id","seq");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_finished_idx" ON "webhook_deliveries" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_held_idx" ON "webhook_deliveries" USING btree ("status","locked_until");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_tenant_created_idx" ON "webhook_endpoints" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_account_active_idx" ON "webhook_endpoints" USING btree ("account_id","active");