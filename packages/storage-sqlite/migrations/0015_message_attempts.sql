CREATE TABLE `message_attempts` (
	`message_id` text NOT NULL,
	`number` integer NOT NULL,
	`tenant_id` text NOT NULL,
	`direction` text NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`url` text,
	`http_status` integer,
	`bytes_sent` integer,
	`bytes_received` integer,
	`outcome` text NOT NULL,
	`error_code` text,
	`error_message` text,
	`tls_version` text,
	`peer_certificate_sha256` text,
	`phases` text NOT NULL,
	`request` text,
	`response` text,
	`mdn` text,
	`wire_expires_at` integer,
	PRIMARY KEY(`message_id`, `number`)
);
--> statement-breakpoint
CREATE INDEX `message_attempts_wire_expires_idx` ON `message_attempts` (`wire_expires_at`);