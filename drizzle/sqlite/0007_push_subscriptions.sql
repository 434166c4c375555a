CREATE TABLE `push_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`browser` text,
	`endpoint` text NOT NULL,
	`sealed_keys` text NOT NULL,
	`expiration_time` integer,
	`created_at` integer NOT NULL,
	`last_success_at` integer,
	`last_failure_at` integer,
	`last_failure` text,
	`removed_at` integer
);
--> statement-breakpoint
CREATE INDEX `push_subscriptions_created_idx` ON `push_subscriptions` (`created_at`);