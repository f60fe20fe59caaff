CREATE TABLE `announcements` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`recording` integer,
	`allow_skip` integer DEFAULT false NOT NULL,
	`after_kind` text,
	`after_target` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `announcements_name_unique` ON `announcements` (`name`);--> statement-breakpoint
ALTER TABLE `ivrs` ADD `greeting` integer;--> statement-breakpoint
ALTER TABLE `ivrs` ADD `retries` integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE `ivrs` ADD `options` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `ivrs` ADD `invalid_kind` text;--> statement-breakpoint
ALTER TABLE `ivrs` ADD `invalid_target` text;--> statement-breakpoint
ALTER TABLE `ivrs` ADD `timeout_kind` text;--> statement-breakpoint
ALTER TABLE `ivrs` ADD `timeout_target` text;--> statement-breakpoint
-- The wizard's IVRs (the only ones before this migration) keep what they said, in the new columns.
UPDATE `ivrs` SET `retries` = MIN(MAX(`invalid_retries`, 0), 9), `timeout` = MIN(MAX(`timeout`, 1), 60);--> statement-breakpoint
UPDATE `ivrs` SET `greeting` = CAST(`announcement` AS INTEGER) WHERE `announcement` GLOB '[0-9]*' AND NOT `announcement` GLOB '*[^0-9]*';--> statement-breakpoint
UPDATE `ivrs` SET `timeout_kind` = 'extension', `timeout_target` = `timeout_destination` WHERE `timeout_destination` GLOB '[0-9]*' AND NOT `timeout_destination` GLOB '*[^0-9]*';--> statement-breakpoint
UPDATE `ivrs` SET `invalid_kind` = 'extension', `invalid_target` = `invalid_destination` WHERE `invalid_destination` GLOB '[0-9]*' AND NOT `invalid_destination` GLOB '*[^0-9]*';--> statement-breakpoint
-- An IVR is found on the PBX by its name when the console has no record of it: names become unique.
UPDATE `ivrs` SET `name` = `name` || ' (' || `id` || ')' WHERE `id` NOT IN (SELECT MIN(`id`) FROM `ivrs` GROUP BY `name`);--> statement-breakpoint
CREATE UNIQUE INDEX `ivrs_name_unique` ON `ivrs` (`name`);--> statement-breakpoint
ALTER TABLE `ivrs` DROP COLUMN `description`;--> statement-breakpoint
ALTER TABLE `ivrs` DROP COLUMN `announcement`;--> statement-breakpoint
ALTER TABLE `ivrs` DROP COLUMN `invalid_retries`;--> statement-breakpoint
ALTER TABLE `ivrs` DROP COLUMN `timeout_destination`;--> statement-breakpoint
ALTER TABLE `ivrs` DROP COLUMN `invalid_destination`;--> statement-breakpoint
ALTER TABLE `ivrs` DROP COLUMN `direct_dial`;;--> statement-breakpoint
-- The IVRs' and announcements' lists have an ETag (ADR 0029): their version goes up on every write.
INSERT INTO `table_versions` (`name`) VALUES ('ivrs'), ('announcements');--> statement-breakpoint
CREATE TRIGGER `ivrs_version_insert` AFTER INSERT ON `ivrs` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ivrs'; END;--> statement-breakpoint
CREATE TRIGGER `ivrs_version_update` AFTER UPDATE ON `ivrs` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ivrs'; END;--> statement-breakpoint
CREATE TRIGGER `ivrs_version_delete` AFTER DELETE ON `ivrs` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ivrs'; END;--> statement-breakpoint
CREATE TRIGGER `announcements_version_insert` AFTER INSERT ON `announcements` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'announcements'; END;--> statement-breakpoint
CREATE TRIGGER `announcements_version_update` AFTER UPDATE ON `announcements` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'announcements'; END;--> statement-breakpoint
CREATE TRIGGER `announcements_version_delete` AFTER DELETE ON `announcements` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'announcements'; END;
