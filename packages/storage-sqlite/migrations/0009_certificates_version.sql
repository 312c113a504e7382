CREATE TABLE `certificates_version` (
	`id` integer PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `certificates_version` (`id`, `version`) VALUES (1, 0);
--> statement-breakpoint
-- In the transaction of the change itself: a reader that sees the change sees the new version.
CREATE TRIGGER `certificates_version_insert` AFTER INSERT ON `certificates` BEGIN
	UPDATE `certificates_version` SET `version` = `version` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `certificates_version_update` AFTER UPDATE ON `certificates` BEGIN
	UPDATE `certificates_version` SET `version` = `version` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `certificates_version_delete` AFTER DELETE ON `certificates` BEGIN
	UPDATE `certificates_version` SET `version` = `version` + 1 WHERE `id` = 1;
END;
