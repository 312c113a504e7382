DROP INDEX `tenants_account_created_idx`;--> statement-breakpoint
CREATE INDEX `tenants_account_created_id_idx` ON `tenants` (`account_id`,`created_at`,`id`);