CREATE TABLE `time_conditions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`time_group_id` integer NOT NULL,
	`time_zone` text,
	`match_kind` text,
	`match_target` text,
	`no_match_kind` text,
	`no_match_target` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `time_conditions_name_unique` ON `time_conditions` (`name`);--> statement-breakpoint
CREATE TABLE `time_groups` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`weekly` text DEFAULT '[]' NOT NULL,
	`holidays` text DEFAULT '[]' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `time_groups_name_unique` ON `time_groups` (`name`);--> statement-breakpoint
-- Their lists have an ETag (ADR 0029): the version goes up on every write.
INSERT INTO `table_versions` (`name`) VALUES ('time_groups'), ('time_conditions');--> statement-breakpoint
CREATE TRIGGER `time_groups_version_insert` AFTER INSERT ON `time_groups` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'time_groups'; END;--> statement-breakpoint
CREATE TRIGGER `time_groups_version_update` AFTER UPDATE ON `time_groups` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'time_groups'; END;--> statement-breakpoint
CREATE TRIGGER `time_groups_version_delete` AFTER DELETE ON `time_groups` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'time_groups'; END;--> statement-breakpoint
CREATE TRIGGER `time_conditions_version_insert` AFTER INSERT ON `time_conditions` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'time_conditions'; END;--> statement-breakpoint
CREATE TRIGGER `time_conditions_version_update` AFTER UPDATE ON `time_conditions` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'time_conditions'; END;--> statement-breakpoint
CREATE TRIGGER `time_conditions_version_delete` AFTER DELETE ON `time_conditions` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'time_conditions'; END;
