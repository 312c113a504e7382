ALTER TABLE `webhook_deliveries` ADD `ordering_key` text;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_ordering_idx` ON `webhook_deliveries` (`endpoint_id`,`ordering_key`,`status`,`seq`);