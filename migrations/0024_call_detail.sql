ALTER TABLE `ai_call_logs` ADD `linkedid` text;--> statement-breakpoint
ALTER TABLE `call_transcripts` ADD `turns` text DEFAULT '[]' NOT NULL;