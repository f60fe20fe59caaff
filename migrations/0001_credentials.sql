CREATE TABLE `sip_provider_credentials` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`provider_id` text NOT NULL,
	`connection_id` text NOT NULL,
	`extension_id` integer,
	`name` text NOT NULL,
	`sip_username` text NOT NULL,
	`sip_password` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`extension_id`) REFERENCES `extensions`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sip_provider_credentials_provider_id_unique` ON `sip_provider_credentials` (`provider_id`);--> statement-breakpoint
ALTER TABLE `api_credentials` ADD `settings` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_credentials` ADD `secret_extra` text;--> statement-breakpoint
ALTER TABLE `api_credentials` ADD `last_test_ok` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `api_credentials` ADD `last_test_at` integer;--> statement-breakpoint
ALTER TABLE `api_credentials` ADD `last_test_message` text;