ALTER TABLE `outbound_routes` ADD `position` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `outbound_routes` SET `position` = (SELECT COUNT(*) FROM `outbound_routes` AS `o` WHERE `o`.`route_order` > `outbound_routes`.`route_order` OR (`o`.`route_order` = `outbound_routes`.`route_order` AND `o`.`id` < `outbound_routes`.`id`));
