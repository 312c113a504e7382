CREATE TABLE `message_search_rows` (
	`row` integer PRIMARY KEY NOT NULL,
	`message_pk` text NOT NULL,
	`tenant_id` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `message_search_rows_message_pk_unique` ON `message_search_rows` (`message_pk`);--> statement-breakpoint
DROP INDEX `messages_tenant_created_idx`;--> statement-breakpoint
DROP INDEX `messages_tenant_status_idx`;--> statement-breakpoint
DROP INDEX `messages_tenant_partner_idx`;--> statement-breakpoint
DROP INDEX `messages_tenant_direction_idx`;--> statement-breakpoint
DROP INDEX `messages_tenant_mdn_status_idx`;--> statement-breakpoint
CREATE INDEX `messages_tenant_partner_status_idx` ON `messages` (`tenant_id`,`partner_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_tenant_environment_idx` ON `messages` (`tenant_id`,`environment`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_tenant_content_type_idx` ON `messages` (`tenant_id`,`content_type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_tenant_encrypted_idx` ON `messages` (`tenant_id`,`encrypted`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_tenant_signed_idx` ON `messages` (`tenant_id`,`signed`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_tenant_has_errors_idx` ON `messages` (`tenant_id`,("error_code" IS NOT NULL),`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_tenant_created_idx` ON `messages` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_tenant_status_idx` ON `messages` (`tenant_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_tenant_partner_idx` ON `messages` (`tenant_id`,`partner_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_tenant_direction_idx` ON `messages` (`tenant_id`,`direction`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_tenant_mdn_status_idx` ON `messages` (`tenant_id`,`mdn_status`,`created_at`,`id`);