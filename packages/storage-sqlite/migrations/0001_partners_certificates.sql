CREATE TABLE `certificates` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`tenant_id` text,
	`partner_id` text,
	`type` text NOT NULL,
	`usage` text NOT NULL,
	`origin` text NOT NULL,
	`name` text NOT NULL,
	`subject` text NOT NULL,
	`issuer` text NOT NULL,
	`serial_number` text NOT NULL,
	`fingerprint` text NOT NULL,
	`key_algorithm` text NOT NULL,
	`key_bits` integer NOT NULL,
	`not_before` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`certificate_pem` text NOT NULL,
	`chain_pem` text,
	`private_key_sealed` text,
	`active` integer NOT NULL,
	`activated_at` integer,
	`expiring_notified_at` integer,
	`expired_notified_at` integer,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `certificates_tenant_idx` ON `certificates` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `certificates_partner_idx` ON `certificates` (`partner_id`);--> statement-breakpoint
CREATE INDEX `certificates_account_idx` ON `certificates` (`account_id`);--> statement-breakpoint
CREATE INDEX `certificates_expiry_idx` ON `certificates` (`expires_at`);--> statement-breakpoint
CREATE TABLE `partner_overrides` (
	`tenant_id` text NOT NULL,
	`master_partner_id` text NOT NULL,
	`name` text,
	`active` integer,
	`settings` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `master_partner_id`)
);
--> statement-breakpoint
CREATE TABLE `partners` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`tenant_id` text,
	`name` text NOT NULL,
	`as2_id` text NOT NULL,
	`url` text NOT NULL,
	`active` integer NOT NULL,
	`sign` integer NOT NULL,
	`encrypt` integer NOT NULL,
	`compress` integer NOT NULL,
	`mdn_mode` text NOT NULL,
	`sign_algorithm` text,
	`encrypt_algorithm` text,
	`settings` text NOT NULL,
	`connection_status` text,
	`deactivated_at` integer,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `partners_tenant_as2_id_idx` ON `partners` (`tenant_id`,`as2_id`) WHERE "partners"."tenant_id" IS NOT NULL AND "partners"."deleted_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `partners_master_as2_id_idx` ON `partners` (`account_id`,`as2_id`) WHERE "partners"."tenant_id" IS NULL AND "partners"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `partners_tenant_created_idx` ON `partners` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `partners_account_idx` ON `partners` (`account_id`);