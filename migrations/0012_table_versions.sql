CREATE TABLE `table_versions` (
	`name` text PRIMARY KEY NOT NULL,
	`version` integer DEFAULT 0 NOT NULL
);--> statement-breakpoint
-- The lists with an ETag (ADR 0029): each table's version goes up by one on every insert, update and delete,
-- from any connection (the console, the CLI, another process), so a list's ETag changes with every write.
INSERT INTO `table_versions` (`name`) VALUES ('extensions'), ('trunks'), ('inbound_routes'), ('outbound_routes'), ('ptt_groups'), ('ai_assistants'), ('ai_routing_rules');--> statement-breakpoint
CREATE TRIGGER `extensions_version_insert` AFTER INSERT ON `extensions` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'extensions'; END;--> statement-breakpoint
CREATE TRIGGER `extensions_version_update` AFTER UPDATE ON `extensions` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'extensions'; END;--> statement-breakpoint
CREATE TRIGGER `extensions_version_delete` AFTER DELETE ON `extensions` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'extensions'; END;--> statement-breakpoint
CREATE TRIGGER `trunks_version_insert` AFTER INSERT ON `trunks` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'trunks'; END;--> statement-breakpoint
CREATE TRIGGER `trunks_version_update` AFTER UPDATE ON `trunks` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'trunks'; END;--> statement-breakpoint
CREATE TRIGGER `trunks_version_delete` AFTER DELETE ON `trunks` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'trunks'; END;--> statement-breakpoint
CREATE TRIGGER `inbound_routes_version_insert` AFTER INSERT ON `inbound_routes` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'inbound_routes'; END;--> statement-breakpoint
CREATE TRIGGER `inbound_routes_version_update` AFTER UPDATE ON `inbound_routes` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'inbound_routes'; END;--> statement-breakpoint
CREATE TRIGGER `inbound_routes_version_delete` AFTER DELETE ON `inbound_routes` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'inbound_routes'; END;--> statement-breakpoint
CREATE TRIGGER `outbound_routes_version_insert` AFTER INSERT ON `outbound_routes` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'outbound_routes'; END;--> statement-breakpoint
CREATE TRIGGER `outbound_routes_version_update` AFTER UPDATE ON `outbound_routes` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'outbound_routes'; END;--> statement-breakpoint
CREATE TRIGGER `outbound_routes_version_delete` AFTER DELETE ON `outbound_routes` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'outbound_routes'; END;--> statement-breakpoint
CREATE TRIGGER `ptt_groups_version_insert` AFTER INSERT ON `ptt_groups` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ptt_groups'; END;--> statement-breakpoint
CREATE TRIGGER `ptt_groups_version_update` AFTER UPDATE ON `ptt_groups` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ptt_groups'; END;--> statement-breakpoint
CREATE TRIGGER `ptt_groups_version_delete` AFTER DELETE ON `ptt_groups` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ptt_groups'; END;--> statement-breakpoint
CREATE TRIGGER `ai_assistants_version_insert` AFTER INSERT ON `ai_assistants` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ai_assistants'; END;--> statement-breakpoint
CREATE TRIGGER `ai_assistants_version_update` AFTER UPDATE ON `ai_assistants` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ai_assistants'; END;--> statement-breakpoint
CREATE TRIGGER `ai_assistants_version_delete` AFTER DELETE ON `ai_assistants` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ai_assistants'; END;--> statement-breakpoint
CREATE TRIGGER `ai_routing_rules_version_insert` AFTER INSERT ON `ai_routing_rules` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ai_routing_rules'; END;--> statement-breakpoint
CREATE TRIGGER `ai_routing_rules_version_update` AFTER UPDATE ON `ai_routing_rules` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ai_routing_rules'; END;--> statement-breakpoint
CREATE TRIGGER `ai_routing_rules_version_delete` AFTER DELETE ON `ai_routing_rules` BEGIN UPDATE `table_versions` SET `version` = `version` + 1 WHERE `name` = 'ai_routing_rules'; END;
