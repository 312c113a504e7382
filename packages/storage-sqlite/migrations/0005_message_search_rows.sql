CREATE TABLE `message_search_rows` (
	`row` integer PRIMARY KEY NOT NULL,
	`message_pk` text NOT NULL,
	`tenant_id` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `message_search_rows_message_pk_unique` ON `message_search_rows` (`message_pk`);