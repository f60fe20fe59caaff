CREATE TABLE `ai_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`call_id` text,
	`assistant_id` integer,
	`caller_number` text,
	`caller_name` text,
	`recipient` text NOT NULL,
	`message` text NOT NULL,
	`callback_number` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`assistant_id`) REFERENCES `ai_assistants`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `ai_messages_created_idx` ON `ai_messages` (`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `ai_call_logs` ADD `events` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `call_transcripts` ADD `outcome` text;--> statement-breakpoint
ALTER TABLE `call_transcripts` ADD `partial` integer DEFAULT false NOT NULL;--> statement-breakpoint
INSERT INTO `table_versions` (`name`) VALUES ('ai_messages');--> statement-breakpoint
CREATE TRIGGER `ai_messages_version_insert` AFTER INSERT ON `ai_messages` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ai_messages'; END;--> statement-breakpoint
CREATE TRIGGER `ai_messages_version_update` AFTER UPDATE ON `ai_messages` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ai_messages'; END;--> statement-breakpoint
CREATE TRIGGER `ai_messages_version_delete` AFTER DELETE ON `ai_messages` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ai_messages'; END;
