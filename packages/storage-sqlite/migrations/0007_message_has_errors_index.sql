DROP INDEX `messages_tenant_errors_idx`;--> statement-breakpoint
CREATE INDEX `messages_tenant_has_errors_idx` ON `messages` (`tenant_id`,("error_code" IS NOT NULL),`created_at`,`id`);