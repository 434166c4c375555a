CREATE TABLE `email_sends` (
	`id` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`due_at` integer NOT NULL,
	`lease_until` integer,
	`lease_holder` text,
	`provider_id` text,
	`error` text,
	`created_at` integer NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE INDEX `email_sends_state_idx` ON `email_sends` (`state`,`due_at`);