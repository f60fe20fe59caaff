ALTER TABLE `api_tokens` ADD `role` text;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `expires_at` integer;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `networks` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `created_by` text;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `created_by_user_id` text;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `last_used_from` text;