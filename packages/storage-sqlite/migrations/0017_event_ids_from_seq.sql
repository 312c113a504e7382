-- An event's evt_ id is now its own seq (repositories/events.ts), not a value of the
-- `sequences` table: one statement and one page fewer per event (issue #20). seq is
-- AUTOINCREMENT, so sqlite_sequence holds the largest seq ever taken and no value is reused
-- after retention deletes events. The next seq must also lie past every evt_ id handed out
-- before: the counter starts past the old sequence and every evt_ id stored.
INSERT INTO `sqlite_sequence` (`name`, `seq`)
	SELECT 'events', 0 WHERE NOT EXISTS (SELECT 1 FROM `sqlite_sequence` WHERE `name` = 'events');
--> statement-breakpoint
UPDATE `sqlite_sequence` SET `seq` = max(
	`seq`,
	coalesce((SELECT `value` FROM `sequences` WHERE `prefix` = 'evt_'), 0),
	coalesce((SELECT max(`seq`) FROM `events`), 0),
	coalesce((SELECT max(CAST(substr(`id`, 5) AS INTEGER)) FROM `events` WHERE `id` GLOB 'evt_[0-9]*'), 0)
) WHERE `name` = 'events';
--> statement-breakpoint
DELETE FROM `sequences` WHERE `prefix` = 'evt_';
