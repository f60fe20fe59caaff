CREATE TABLE `queues` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`number` text NOT NULL,
	`name` text NOT NULL,
	`strategy` text NOT NULL,
	`agents` text DEFAULT '[]' NOT NULL,
	`max_wait` integer DEFAULT 0 NOT NULL,
	`timeout_kind` text,
	`timeout_target` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `queues_number_unique` ON `queues` (`number`);--> statement-breakpoint
-- The queues' list has an ETag (ADR 0029): its version goes up on every insert, update and delete.
INSERT INTO `table_versions` (`name`) VALUES ('queues');--> statement-breakpoint
CREATE TRIGGER `queues_version_insert` AFTER INSERT ON `queues` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'queues'; END;--> statement-breakpoint
CREATE TRIGGER `queues_version_update` AFTER UPDATE ON `queues` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'queues'; END;--> statement-breakpoint
CREATE TRIGGER `queues_version_delete` AFTER DELETE ON `queues` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'queues'; END;
