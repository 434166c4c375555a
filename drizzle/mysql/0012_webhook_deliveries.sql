CREATE TABLE `webhook_deliveries` (
	`id` varchar(64) NOT NULL,
	`received_at` bigint NOT NULL,
	`source` varchar(8) NOT NULL,
	`integration` varchar(64) NOT NULL,
	`event_type` varchar(128),
	`delivery_id` varchar(200),
	`source_event_id` varchar(512),
	`outcome` varchar(16) NOT NULL,
	`detail` text,
	`title` text,
	`project_slug` varchar(64),
	`notification_id` varchar(64),
	`event_id` varchar(64),
	`duplicate_of` varchar(64),
	`replay_of` varchar(64),
	`replay_request` varchar(100),
	`body_until` bigint,
	`event` mediumtext,
	`body` mediumtext,
	CONSTRAINT `webhook_deliveries_id` PRIMARY KEY(`id`),
	CONSTRAINT `webhook_deliveries_replay_idx` UNIQUE(`replay_request`,`replay_of`),
	CONSTRAINT `webhook_deliveries_source` CHECK(`webhook_deliveries`.`source` in ('relay', 'local', 'replay')),
	CONSTRAINT `webhook_deliveries_outcome` CHECK(`webhook_deliveries`.`outcome` in ('notified', 'threaded', 'duplicate', 'ignored', 'invalid'))
);
--> statement-breakpoint
CREATE TABLE `webhook_refusals` (
	`hour` bigint NOT NULL,
	`source` varchar(8) NOT NULL,
	`integration` varchar(64) NOT NULL,
	`reason` varchar(32) NOT NULL,
	`count` int NOT NULL,
	CONSTRAINT `webhook_refusals_hour_source_integration_reason_pk` PRIMARY KEY(`hour`,`source`,`integration`,`reason`)
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_received_idx` ON `webhook_deliveries` (`received_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_integration_idx` ON `webhook_deliveries` (`integration`,`received_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_outcome_idx` ON `webhook_deliveries` (`outcome`,`received_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_notification_idx` ON `webhook_deliveries` (`notification_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_source_event_idx` ON `webhook_deliveries` (`source_event_id`,`received_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_replay_of_idx` ON `webhook_deliveries` (`replay_of`);