CREATE TABLE `metric_alert_rules` (
	`id` varchar(200) NOT NULL,
	`project_slug` varchar(64) NOT NULL,
	`metric` varchar(64) NOT NULL,
	`params` text NOT NULL,
	`severity` varchar(8) NOT NULL,
	`enabled` boolean NOT NULL,
	`created_at` bigint NOT NULL,
	`updated_at` bigint NOT NULL,
	CONSTRAINT `metric_alert_rules_id` PRIMARY KEY(`id`),
	CONSTRAINT `metric_alert_rules_severity` CHECK(`metric_alert_rules`.`severity` in ('info', 'warning', 'error'))
);
--> statement-breakpoint
CREATE INDEX `metric_alert_rules_project_idx` ON `metric_alert_rules` (`project_slug`);