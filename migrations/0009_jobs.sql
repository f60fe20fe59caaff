CREATE TABLE `job_results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`job_id` integer NOT NULL,
	`label` text NOT NULL,
	`status` text NOT NULL,
	`message` text NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `job_results_job_idx` ON `job_results` (`job_id`,`id`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`target` text NOT NULL,
	`started_by` text NOT NULL,
	`started_by_user_id` text,
	`started_at` integer NOT NULL,
	`deadline_at` integer NOT NULL,
	`finished_at` integer,
	`state` text NOT NULL,
	`total` integer,
	`current` text,
	`cancelled_by` text,
	`summary` text,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `jobs_state_idx` ON `jobs` (`state`);