ALTER TABLE `events` ADD `subject_id` text;--> statement-breakpoint
CREATE INDEX `events_subject_seq_idx` ON `events` (`subject_id`,`seq`);--> statement-breakpoint
UPDATE `events` SET `subject_id` = json_extract(`data`, '$.id') WHERE json_type(`data`, '$.id') = 'text';
