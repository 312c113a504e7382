CREATE TABLE `webhook_attempts` (
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`tenant_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`succeeded` integer NOT NULL,
	`response_status` integer,
	`response_time_ms` integer,
	`response_body` text,
	`error` text,
	`attempted_at` integer NOT NULL,
	PRIMARY KEY(`delivery_id`, `attempt`)
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_endpoint_idx` ON `webhook_attempts` (`endpoint_id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`account_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_id` text,
	`event_kind` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer,
	`last_attempt_at` integer,
	`last_response_status` integer,
	`last_error` text,
	`locked_by` text,
	`locked_until` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_id_unique` ON `webhook_deliveries` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_endpoint_idx` ON `webhook_deliveries` (`event_id`,`endpoint_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_due_idx` ON `webhook_deliveries` (`endpoint_id`,`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_seq_idx` ON `webhook_deliveries` (`endpoint_id`,`seq`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_finished_idx` ON `webhook_deliveries` (`updated_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_held_idx` ON `webhook_deliveries` (`status`,`locked_until`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`active` integer NOT NULL,
	`secret_sealed` text NOT NULL,
	`failing_since` integer,
	`disabled_reason` text,
	`attempt_count` integer DEFAULT 0 NOT NULL,
	`success_count` integer DEFAULT 0 NOT NULL,
	`response_time_total_ms` integer DEFAULT 0 NOT NULL,
	`response_count` integer DEFAULT 0 NOT NULL,
	`last_attempt_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_tenant_created_idx` ON `webhook_endpoints` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `jobs_claim_idx` ON `jobs` ("priority" desc,`run_at`,`id`);