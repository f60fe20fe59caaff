DROP TABLE `config_backups`;--> statement-breakpoint
DROP TABLE `sip_auth_logs`;--> statement-breakpoint
DROP TABLE `vps_status`;--> statement-breakpoint
ALTER TABLE `api_credentials` DROP COLUMN `status`;--> statement-breakpoint
ALTER TABLE `api_credentials` DROP COLUMN `last_used`;