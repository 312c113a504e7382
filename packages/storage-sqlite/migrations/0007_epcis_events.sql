CREATE TABLE `epcis_documents` (
	`tenant_id` text NOT NULL,
	`message_id` text NOT NULL,
	`status` text NOT NULL,
	`version` text,
	`event_count` integer NOT NULL,
	`skipped_events` integer NOT NULL,
	`error_code` text,
	`error_message` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `message_id`)
);
--> statement-breakpoint
CREATE TABLE `epcis_event_values` (
	`event_row` integer NOT NULL,
	`tenant_id` text NOT NULL,
	`kind` text NOT NULL,
	`type` text NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `epcis_event_values_lookup_idx` ON `epcis_event_values` (`tenant_id`,`kind`,`value`,`type`,`event_row`);--> statement-breakpoint
CREATE INDEX `epcis_event_values_event_idx` ON `epcis_event_values` (`event_row`,`kind`,`value`,`type`);--> statement-breakpoint
CREATE TABLE `epcis_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`source_message_id` text NOT NULL,
	`event_index` integer NOT NULL,
	`type` text NOT NULL,
	`event_time` integer NOT NULL,
	`record_time` integer NOT NULL,
	`action` text,
	`biz_step` text,
	`disposition` text,
	`read_point` text,
	`biz_location` text,
	`transformation_id` text,
	`event_id` text,
	`event` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `epcis_events_message_idx` ON `epcis_events` (`tenant_id`,`source_message_id`,`event_index`);--> statement-breakpoint
CREATE INDEX `epcis_events_time_idx` ON `epcis_events` (`tenant_id`,`event_time`);--> statement-breakpoint
CREATE INDEX `epcis_events_record_time_idx` ON `epcis_events` (`tenant_id`,`record_time`);--> statement-breakpoint
CREATE INDEX `epcis_events_biz_step_idx` ON `epcis_events` (`tenant_id`,`biz_step`,`event_time`);--> statement-breakpoint
CREATE INDEX `epcis_events_disposition_idx` ON `epcis_events` (`tenant_id`,`disposition`,`event_time`);--> statement-breakpoint
CREATE INDEX `epcis_events_read_point_idx` ON `epcis_events` (`tenant_id`,`read_point`,`event_time`);--> statement-breakpoint
CREATE INDEX `epcis_events_biz_location_idx` ON `epcis_events` (`tenant_id`,`biz_location`,`event_time`);--> statement-breakpoint
CREATE INDEX `epcis_events_event_id_idx` ON `epcis_events` (`tenant_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `epcis_events_transformation_idx` ON `epcis_events` (`tenant_id`,`transformation_id`);