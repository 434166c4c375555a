CREATE TABLE `email_sends` (
	`id` varchar(64) NOT NULL,
	`state` varchar(16) NOT NULL,
	`attempts` int NOT NULL,
	`due_at` bigint NOT NULL,
	`lease_until` bigint,
	`lease_holder` varchar(64),
	`provider_id` varchar(128),
	`error` text,
	`created_at` bigint NOT NULL,
	`sent_at` bigint,
	CONSTRAINT `email_sends_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE INDEX `email_sends_state_idx` ON `email_sends` (`state`,`due_at`);