-- Search over subjects and AS2 Message-IDs (see message_search_rows in src/schema.ts).
-- Trigram tokens find any substring of 3 characters or more, case-insensitively; the index
-- stores no text of its own (content=''), only what a match needs.
CREATE VIRTUAL TABLE `message_search` USING fts5(`subject`, `message_id`, content='', contentless_delete=1, tokenize='trigram');
--> statement-breakpoint
-- Messages stored before this migration: keys in list order, ties in a millisecond by id.
INSERT INTO `message_search_rows` (`row`, `message_pk`, `tenant_id`)
	SELECT `created_at` * 1048576 + row_number() OVER (PARTITION BY `created_at` ORDER BY `id`) - 1, `id`, `tenant_id`
	FROM `messages`;
--> statement-breakpoint
INSERT INTO `message_search` (`rowid`, `subject`, `message_id`)
	SELECT r.`row`, m.`subject`, m.`message_id`
	FROM `message_search_rows` r JOIN `messages` m ON m.`id` = r.`message_pk`;
--> statement-breakpoint
INSERT INTO `message_search` (`message_search`) VALUES ('optimize');
--> statement-breakpoint
-- A new message takes the next free slot of its millisecond.
CREATE TRIGGER `messages_search_insert` AFTER INSERT ON `messages` BEGIN
	INSERT INTO `message_search_rows` (`row`, `message_pk`, `tenant_id`)
		SELECT coalesce(max(`row`) + 1, new.`created_at` * 1048576), new.`id`, new.`tenant_id`
		FROM `message_search_rows`
		WHERE `row` >= new.`created_at` * 1048576 AND `row` < (new.`created_at` + 1) * 1048576;
	INSERT INTO `message_search` (`rowid`, `subject`, `message_id`)
		SELECT `row`, new.`subject`, new.`message_id` FROM `message_search_rows` WHERE `message_pk` = new.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_search_update` AFTER UPDATE OF `subject`, `message_id` ON `messages` BEGIN
	DELETE FROM `message_search` WHERE `rowid` = (SELECT `row` FROM `message_search_rows` WHERE `message_pk` = old.`id`);
	INSERT INTO `message_search` (`rowid`, `subject`, `message_id`)
		SELECT `row`, new.`subject`, new.`message_id` FROM `message_search_rows` WHERE `message_pk` = new.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_search_delete` AFTER DELETE ON `messages` BEGIN
	DELETE FROM `message_search` WHERE `rowid` = (SELECT `row` FROM `message_search_rows` WHERE `message_pk` = old.`id`);
	DELETE FROM `message_search_rows` WHERE `message_pk` = old.`id`;
END;
