CREATE TABLE `ai_prices` (
	`model` text PRIMARY KEY NOT NULL,
	`input_text` real NOT NULL,
	`cached_input_text` real NOT NULL,
	`output_text` real NOT NULL,
	`input_audio` real NOT NULL,
	`cached_input_audio` real NOT NULL,
	`output_audio` real NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ai_test_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`script_id` integer NOT NULL,
	`assistant_id` integer NOT NULL,
	`trigger` text NOT NULL,
	`prompt_hash` text NOT NULL,
	`state` text NOT NULL,
	`result` text,
	`detail` text,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`script_id`) REFERENCES `ai_test_scripts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`assistant_id`) REFERENCES `ai_assistants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ai_test_runs_script_idx` ON `ai_test_runs` (`script_id`,`id`);--> statement-breakpoint
CREATE TABLE `ai_test_scripts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`assistant_id` integer NOT NULL,
	`name` text NOT NULL,
	`turns` text DEFAULT '[]' NOT NULL,
	`expect` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`assistant_id`) REFERENCES `ai_assistants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ai_test_scripts_assistant_idx` ON `ai_test_scripts` (`assistant_id`);--> statement-breakpoint
ALTER TABLE `ai_assistants` ADD `analysis` text;--> statement-breakpoint
ALTER TABLE `ai_assistants` ADD `call_cost_cap_usd` real;--> statement-breakpoint
ALTER TABLE `ai_assistants` ADD `call_seconds_cap` integer;--> statement-breakpoint
ALTER TABLE `ai_assistants` ADD `daily_spend_cap_usd` real;--> statement-breakpoint
ALTER TABLE `ai_assistants` ADD `cap_action` text DEFAULT 'hangup' NOT NULL;--> statement-breakpoint
ALTER TABLE `ai_assistants` ADD `cap_transfer_to` text;--> statement-breakpoint
ALTER TABLE `ai_call_logs` ADD `ended_at` integer;--> statement-breakpoint
ALTER TABLE `ai_call_logs` ADD `usage` text;--> statement-breakpoint
ALTER TABLE `ai_call_logs` ADD `cost_usd` real;--> statement-breakpoint
ALTER TABLE `ai_call_logs` ADD `price` text;--> statement-breakpoint
ALTER TABLE `ai_call_logs` ADD `latency_turns` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `ai_call_logs` ADD `end_reason` text;--> statement-breakpoint
ALTER TABLE `ai_call_logs` ADD `analysis` text;--> statement-breakpoint
ALTER TABLE `ai_call_logs` ADD `analysis_error` text;--> statement-breakpoint
CREATE INDEX `ai_call_logs_assistant_idx` ON `ai_call_logs` (`assistant_id`,`created_at`);