CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`direction` text NOT NULL,
	`message_id` text NOT NULL,
	`partner_id` text NOT NULL,
	`partner_name` text NOT NULL,
	`partner_as2_id` text NOT NULL,
	`partner_url` text NOT NULL,
	`status` text NOT NULL,
	`from_as2_id` text NOT NULL,
	`to_as2_id` text NOT NULL,
	`subject` text,
	`content_type` text NOT NULL,
	`filename` text,
	`bytes` integer NOT NULL,
	`compressed` integer NOT NULL,
	`encrypted` integer NOT NULL,
	`signed` integer NOT NULL,
	`mdn_mode` text NOT NULL,
	`mdn_status` text NOT NULL,
	`mdn_data` text,
	`mic` text,
	`priority` text NOT NULL,
	`headers` text NOT NULL,
	`payload_key` text,
	`scheduled_at` integer,
	`attempts` integer NOT NULL,
	`last_attempt_at` integer,
	`sent_at` integer,
	`delivered_at` integer,
	`failed_at` integer,
	`mdn_deadline` integer,
	`error_code` text,
	`error_message` text,
	`transmission_time_ms` integer,
	`details` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `messages_tenant_created_idx` ON `messages` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_tenant_status_idx` ON `messages` (`tenant_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_tenant_partner_idx` ON `messages` (`tenant_id`,`partner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_tenant_direction_idx` ON `messages` (`tenant_id`,`direction`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_tenant_mdn_status_idx` ON `messages` (`tenant_id`,`mdn_status`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_message_id_idx` ON `messages` (`tenant_id`,`message_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `messages_inbound_unique_idx` ON `messages` (`tenant_id`,`partner_id`,`message_id`) WHERE "messages"."direction" = 'inbound';--> statement-breakpoint
CREATE INDEX `messages_mdn_deadline_idx` ON `messages` (`mdn_deadline`) WHERE "messages"."mdn_status" = 'pending' AND "messages"."status" = 'sent';