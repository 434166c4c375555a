CREATE TABLE `channel_connections` (
	`id` varchar(64) NOT NULL,
	`kind` varchar(16) NOT NULL,
	`name` varchar(80) NOT NULL,
	`min_severity` varchar(16) NOT NULL,
	`settings` text NOT NULL,
	`sealed_secret` text NOT NULL,
	`created_at` bigint NOT NULL,
	`last_success_at` bigint,
	`last_failure_at` bigint,
	`last_failure` text,
	`attention_at` bigint,
	`attention` text,
	CONSTRAINT `channel_connections_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `channel_sends` (
	`id` varchar(129) NOT NULL,
	`delivery_id` varchar(64) NOT NULL,
	`connection_id` varchar(64) NOT NULL,
	`state` varchar(16) NOT NULL,
	`attempts` int NOT NULL,
	`due_at` bigint NOT NULL,
	`lease_until` bigint,
	`lease_holder` varchar(64),
	`status` int,
	`error` text,
	`provider_id` varchar(64),
	`created_at` bigint NOT NULL,
	`sent_at` bigint,
	CONSTRAINT `channel_sends_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE INDEX `channel_connections_created_idx` ON `channel_connections` (`created_at`);--> statement-breakpoint
CREATE INDEX `channel_sends_state_idx` ON `channel_sends` (`state`,`due_at`);--> statement-breakpoint
CREATE INDEX `channel_sends_connection_idx` ON `channel_sends` (`connection_id`);