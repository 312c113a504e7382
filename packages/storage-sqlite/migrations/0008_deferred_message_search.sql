CREATE TABLE `message_search_pending` (
	`seq` integer PRIMARY KEY NOT NULL,
	`message_pk` text NOT NULL
);
--> statement-breakpoint
-- A new message waits in message_search_pending; search-indexing.ts gives it its key and
-- indexes it in a batch (one FTS5 segment per batch, not per message).
DROP TRIGGER `messages_search_insert`;
--> statement-breakpoint
CREATE TRIGGER `messages_search_insert` AFTER INSERT ON `messages` BEGIN
	INSERT INTO `message_search_pending` (`message_pk`) VALUES (new.`id`);
END;
--> statement-breakpoint
-- The update trigger of 0006 stays: a message still waiting has no key yet, so it changes
-- nothing, and the batch reads the new values. A deleted message leaves the queue too.
DROP TRIGGER `messages_search_delete`;
--> statement-breakpoint
CREATE TRIGGER `messages_search_delete` AFTER DELETE ON `messages` BEGIN
	DELETE FROM `message_search` WHERE `rowid` = (SELECT `row` FROM `message_search_rows` WHERE `message_pk` = old.`id`);
	DELETE FROM `message_search_rows` WHERE `message_pk` = old.`id`;
	DELETE FROM `message_search_pending` WHERE `message_pk` = old.`id`;
END;
