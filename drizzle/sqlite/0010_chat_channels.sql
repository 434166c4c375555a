CREATE TABLE `channel_connections` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`min_severity` text NOT NULL,
	`settings` text NOT NULL,
	`sealed_secret` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_success_at` integer,
	`last_failure_at` integer,
	`last_failure` text,
	`attention_at` integer,
	`attention` text
);
--> statement-breakpoint
CREATE INDEX `channel_connections_created_idx` ON `channel_connections` (`created_at`);--> statement-breakpoint
CREATE TABLE `channel_sends` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`connection_id` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`due_at` integer NOT NULL,
	`lease_until` integer,
	`lease_holder` text,
	`status` integer,
	`error` text,
	`provider_id` text,
	`created_at` integer NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE INDEX `channel_sends_state_idx` ON `channel_sends` (`state`,`due_at`);--> statement-breakpoint
CREATE INDEX `channel_sends_connection_idx` ON `channel_sends` (`connection_id`);