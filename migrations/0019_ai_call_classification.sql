ALTER TABLE `call_transcripts` ADD `intent` text;--> statement-breakpoint
ALTER TABLE `call_transcripts` ADD `rule_decision` text;