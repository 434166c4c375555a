CREATE TABLE `rate_calls` (
	`id` bigint AUTO_INCREMENT NOT NULL,
	`key` varchar(64) NOT NULL,
	`at` bigint NOT NULL,
	CONSTRAINT `rate_calls_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `rate_limits` (
	`key` varchar(64) NOT NULL,
	`paused_until` bigint NOT NULL,
	CONSTRAINT `rate_limits_key` PRIMARY KEY(`key`)
);
--> statement-breakpoint
CREATE INDEX `rate_calls_key_at_idx` ON `rate_calls` (`key`,`at`);