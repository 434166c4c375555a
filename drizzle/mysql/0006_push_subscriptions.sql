CREATE TABLE `push_subscriptions` (
	`id` varchar(64) NOT NULL,
	`name` varchar(80) NOT NULL,
	`browser` varchar(80),
	`endpoint` text NOT NULL,
	`sealed_keys` text NOT NULL,
	`expiration_time` bigint,
	`created_at` bigint NOT NULL,
	`last_success_at` bigint,
	`last_failure_at` bigint,
	`last_failure` text,
	`removed_at` bigint,
	CONSTRAINT `push_subscriptions_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE INDEX `push_subscriptions_created_idx` ON `push_subscriptions` (`created_at`);