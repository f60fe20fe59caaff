CREATE TABLE `ring_groups` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`number` text NOT NULL,
	`name` text NOT NULL,
	`strategy` text NOT NULL,
	`ring_time` integer NOT NULL,
	`members` text DEFAULT '[]' NOT NULL,
	`no_answer_kind` text,
	`no_answer_target` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ring_groups_number_unique` ON `ring_groups` (`number`);--> statement-breakpoint
-- The ring groups' list has an ETag (ADR 0029): its version goes up on every insert, update and delete.
INSERT INTO `table_versions` (`name`) VALUES ('ring_groups');--> statement-breakpoint
CREATE TRIGGER `ring_groups_version_insert` AFTER INSERT ON `ring_groups` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ring_groups'; END;--> statement-breakpoint
CREATE TRIGGER `ring_groups_version_update` AFTER UPDATE ON `ring_groups` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ring_groups'; END;--> statement-breakpoint
CREATE TRIGGER `ring_groups_version_delete` AFTER DELETE ON `ring_groups` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ring_groups'; END;
