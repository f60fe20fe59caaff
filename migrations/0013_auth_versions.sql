-- The tables every signed-in request's checks read (ADR 0035): sessions, users, two-factor secrets and the
-- console settings. Their versions go up on every write by any connection or process, like the lists' (0012),
-- so the session check can keep what it read until one of them changes. And the transcripts list's ETag.
INSERT INTO `table_versions` (`name`) VALUES ('sessions'), ('users'), ('user_totp'), ('console_settings'), ('call_transcripts');--> statement-breakpoint
CREATE TRIGGER `sessions_version_insert` AFTER INSERT ON `sessions` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'sessions'; END;--> statement-breakpoint
CREATE TRIGGER `sessions_version_update` AFTER UPDATE ON `sessions` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'sessions'; END;--> statement-breakpoint
CREATE TRIGGER `sessions_version_delete` AFTER DELETE ON `sessions` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'sessions'; END;--> statement-breakpoint
CREATE TRIGGER `users_version_insert` AFTER INSERT ON `users` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'users'; END;--> statement-breakpoint
CREATE TRIGGER `users_version_update` AFTER UPDATE ON `users` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'users'; END;--> statement-breakpoint
CREATE TRIGGER `users_version_delete` AFTER DELETE ON `users` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'users'; END;--> statement-breakpoint
CREATE TRIGGER `user_totp_version_insert` AFTER INSERT ON `user_totp` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'user_totp'; END;--> statement-breakpoint
CREATE TRIGGER `user_totp_version_update` AFTER UPDATE ON `user_totp` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'user_totp'; END;--> statement-breakpoint
CREATE TRIGGER `user_totp_version_delete` AFTER DELETE ON `user_totp` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'user_totp'; END;--> statement-breakpoint
CREATE TRIGGER `console_settings_version_insert` AFTER INSERT ON `console_settings` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'console_settings'; END;--> statement-breakpoint
CREATE TRIGGER `console_settings_version_update` AFTER UPDATE ON `console_settings` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'console_settings'; END;--> statement-breakpoint
CREATE TRIGGER `console_settings_version_delete` AFTER DELETE ON `console_settings` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'console_settings'; END;--> statement-breakpoint
CREATE TRIGGER `call_transcripts_version_insert` AFTER INSERT ON `call_transcripts` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'call_transcripts'; END;--> statement-breakpoint
CREATE TRIGGER `call_transcripts_version_update` AFTER UPDATE ON `call_transcripts` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'call_transcripts'; END;--> statement-breakpoint
CREATE TRIGGER `call_transcripts_version_delete` AFTER DELETE ON `call_transcripts` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'call_transcripts'; END;
