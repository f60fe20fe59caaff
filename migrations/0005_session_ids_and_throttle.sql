CREATE TABLE `sign_in_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`last_failure_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `sessions` ADD `id` text NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `client_ip` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `user_agent` text;--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_id_unique` ON `sessions` (`id`);