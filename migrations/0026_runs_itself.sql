CREATE TABLE `alert_channels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`settings` text NOT NULL,
	`secret` text,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_channels_name_unique` ON `alert_channels` (`name`);--> statement-breakpoint
CREATE TABLE `alert_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer,
	`channel_id` integer,
	`what` text NOT NULL,
	`at` integer NOT NULL,
	`ok` integer NOT NULL,
	`error` text,
	FOREIGN KEY (`event_id`) REFERENCES `alert_events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `alert_channels`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `alert_deliveries_event_idx` ON `alert_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `alert_deliveries_at_idx` ON `alert_deliveries` (`at`);--> statement-breakpoint
CREATE TABLE `alert_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`rule_id` integer,
	`rule_name` text NOT NULL,
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`message` text NOT NULL,
	`state` text NOT NULL,
	`started_at` integer NOT NULL,
	`last_notified_at` integer,
	`notifications` integer DEFAULT 0 NOT NULL,
	`resolved_at` integer,
	FOREIGN KEY (`rule_id`) REFERENCES `alert_rules`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `alert_events_rule_idx` ON `alert_events` (`rule_id`,`subject`,`state`);--> statement-breakpoint
CREATE INDEX `alert_events_started_idx` ON `alert_events` (`started_at`);--> statement-breakpoint
CREATE TABLE `alert_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`params` text NOT NULL,
	`channel_ids` text DEFAULT '[]' NOT NULL,
	`repeat_minutes` integer DEFAULT 60 NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_rules_name_unique` ON `alert_rules` (`name`);--> statement-breakpoint
CREATE TABLE `backup_targets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`settings` text NOT NULL,
	`secret` text,
	`keep` integer DEFAULT 14 NOT NULL,
	`include_pbx` integer DEFAULT true NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `backup_targets_name_unique` ON `backup_targets` (`name`);--> statement-breakpoint
CREATE TABLE `backup_uploads` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`target_id` integer NOT NULL,
	`source` text NOT NULL,
	`name` text NOT NULL,
	`bytes` integer,
	`sha256` text,
	`key_id` text,
	`state` text NOT NULL,
	`error` text,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`target_id`) REFERENCES `backup_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `backup_uploads_target_idx` ON `backup_uploads` (`target_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `test_call_results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`test_call_id` integer NOT NULL,
	`at` integer NOT NULL,
	`ok` integer NOT NULL,
	`answered` integer NOT NULL,
	`answer_ms` integer,
	`duration_ms` integer NOT NULL,
	`rx_packets` integer,
	`tx_packets` integer,
	`loss_percent` integer,
	`jitter_ms` integer,
	`error` text,
	FOREIGN KEY (`test_call_id`) REFERENCES `test_calls`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `test_call_results_idx` ON `test_call_results` (`test_call_id`,`at`);--> statement-breakpoint
CREATE TABLE `test_calls` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`number` text NOT NULL,
	`context` text DEFAULT 'from-internal' NOT NULL,
	`interval_minutes` integer DEFAULT 15 NOT NULL,
	`answer_within_seconds` integer DEFAULT 10 NOT NULL,
	`listen_seconds` integer DEFAULT 5 NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `test_calls_name_unique` ON `test_calls` (`name`);