CREATE TABLE `push_sends` (
	`id` varchar(129) NOT NULL,
	`delivery_id` varchar(64) NOT NULL,
	`subscription_id` varchar(64) NOT NULL,
	`state` varchar(16) NOT NULL,
	`attempts` int NOT NULL,
	`due_at` bigint NOT NULL,
	`lease_until` bigint,
	`lease_holder` varchar(64),
	`status` int,
	`error` text,
	`created_at` bigint NOT NULL,
	`sent_at` bigint,
	CONSTRAINT `push_sends_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE INDEX `push_sends_state_idx` ON `push_sends` (`state`,`due_at`);--> statement-breakpoint
CREATE INDEX `push_sends_delivery_idx` ON `push_sends` (`delivery_id`);