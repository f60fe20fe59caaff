ALTER TABLE `trunks` ADD `auth_mode` text DEFAULT 'credentials' NOT NULL;--> statement-breakpoint
ALTER TABLE `trunks` ADD `provider_addresses` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- A trunk without a username and a secret (the wizard makes them) is IP-authenticated; with both, it keeps its credentials.
UPDATE `trunks` SET `auth_mode` = 'ip' WHERE `username` IS NULL OR `username` = '' OR `secret` IS NULL OR `secret` = '';
