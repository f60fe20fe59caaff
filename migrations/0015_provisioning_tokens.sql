CREATE TABLE `provisioning_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`extension_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`extension_id`) REFERENCES `extensions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `provisioning_tokens_extension_id_unique` ON `provisioning_tokens` (`extension_id`);