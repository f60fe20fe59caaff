CREATE TABLE `user_totp` (
	`user_id` text PRIMARY KEY NOT NULL,
	`pending_secret` text,
	`secret` text,
	`enabled_at` integer,
	`last_step` integer,
	`recovery_codes` text DEFAULT '[]' NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
