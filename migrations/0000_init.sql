CREATE TABLE `ai_assistants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`provider` text DEFAULT 'openai' NOT NULL,
	`model` text DEFAULT 'gpt-4o-realtime-preview' NOT NULL,
	`system_prompt` text NOT NULL,
	`voice` text DEFAULT 'alloy' NOT NULL,
	`temperature` integer DEFAULT 80 NOT NULL,
	`tools` text DEFAULT '[]' NOT NULL,
	`extension_id` text,
	`ivr_id` text,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ai_routing_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`priority` integer DEFAULT 0 NOT NULL,
	`conditions` text NOT NULL,
	`action` text NOT NULL,
	`action_params` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_credentials` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`api_key` text,
	`client_id` text,
	`client_secret` text,
	`api_url` text,
	`status` text DEFAULT 'active' NOT NULL,
	`last_used` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_credentials_type_unique` ON `api_credentials` (`type`);--> statement-breakpoint
CREATE TABLE `call_transcripts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`call_id` text,
	`extension_id` text,
	`phone_number` text,
	`direction` text,
	`transcript` text NOT NULL,
	`summary` text,
	`sentiment` text,
	`keywords` text DEFAULT '[]' NOT NULL,
	`duration` integer,
	`recording_url` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `config_backups` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`config_data` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `extensions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`extension` text NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`position` text,
	`personal_phone` text,
	`voicemail` integer DEFAULT false NOT NULL,
	`secret` text,
	`status` text DEFAULT 'available' NOT NULL,
	`user_id` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `extensions_extension_unique` ON `extensions` (`extension`);--> statement-breakpoint
CREATE TABLE `inbound_routes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`description` text NOT NULL,
	`did_number` text,
	`trunk_id` integer,
	`destination` text NOT NULL,
	`destination_type` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`trunk_id`) REFERENCES `trunks`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE TABLE `ivrs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`announcement` text,
	`timeout` integer DEFAULT 10 NOT NULL,
	`invalid_retries` integer DEFAULT 3 NOT NULL,
	`timeout_destination` text,
	`invalid_destination` text,
	`direct_dial` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `outbound_routes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`dial_patterns` text DEFAULT '[]' NOT NULL,
	`trunk_id` integer NOT NULL,
	`route_order` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`trunk_id`) REFERENCES `trunks`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE TABLE `ptt_groups` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`extension` text NOT NULL,
	`description` text,
	`members` text DEFAULT '[]' NOT NULL,
	`duplex` integer DEFAULT false NOT NULL,
	`auto_answer` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ptt_groups_extension_unique` ON `ptt_groups` (`extension`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `sip_auth_logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`device_id` text,
	`extension_id` text,
	`username` text,
	`ip_address` text,
	`user_agent` text,
	`auth_method` text,
	`success` integer DEFAULT false NOT NULL,
	`failure_reason` text,
	`timestamp` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `trunks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`host` text NOT NULL,
	`port` integer,
	`username` text,
	`secret` text,
	`from_domain` text,
	`from_user` text,
	`contact_user` text,
	`auth_type` text DEFAULT 'outbound' NOT NULL,
	`registration_enabled` integer DEFAULT false NOT NULL,
	`rewrite_contact` integer DEFAULT false NOT NULL,
	`trust_rpid` integer DEFAULT false NOT NULL,
	`send_rpid` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'unregistered' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`password` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_unique` ON `users` (`username`);--> statement-breakpoint
CREATE TABLE `vps_status` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`status` text,
	`ip_address` text,
	`hostname` text,
	`cpu` real,
	`memory` real,
	`disk` real,
	`network_in` real,
	`network_out` real,
	`uptime` integer,
	`last_updated` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
