CREATE TABLE `push_sends` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`due_at` integer NOT NULL,
	`lease_until` integer,
	`lease_holder` text,
	`status` integer,
	`error` text,
	`created_at` integer NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE INDEX `push_sends_state_idx` ON `push_sends` (`state`,`due_at`);--> statement-breakpoint
CREATE INDEX `push_sends_delivery_idx` ON `push_sends` (`delivery_id`);