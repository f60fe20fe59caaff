ALTER TABLE `extensions` ADD `recording_in_external` text DEFAULT 'dontcare';--> statement-breakpoint
ALTER TABLE `extensions` ADD `recording_out_external` text DEFAULT 'dontcare';--> statement-breakpoint
ALTER TABLE `extensions` ADD `recording_in_internal` text DEFAULT 'dontcare';--> statement-breakpoint
ALTER TABLE `extensions` ADD `recording_out_internal` text DEFAULT 'dontcare';--> statement-breakpoint
ALTER TABLE `extensions` ADD `recording_on_demand` text DEFAULT 'disabled';--> statement-breakpoint
ALTER TABLE `inbound_routes` ADD `recording` text DEFAULT 'dontcare';--> statement-breakpoint
ALTER TABLE `outbound_routes` ADD `recording` text DEFAULT 'dontcare';--> statement-breakpoint
-- Rows that existed before the policy leave it to the PBX (NULL: the deploy keeps FreePBX's values, ADR 0061);
-- a row made from now on gets FreePBX's own default, which the console then owns.
UPDATE `extensions` SET `recording_in_external` = NULL, `recording_out_external` = NULL, `recording_in_internal` = NULL, `recording_out_internal` = NULL, `recording_on_demand` = NULL;--> statement-breakpoint
UPDATE `inbound_routes` SET `recording` = NULL;--> statement-breakpoint
UPDATE `outbound_routes` SET `recording` = NULL;
