CREATE TABLE `notification_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`notification_id` text,
	`subject_key` text,
	`channel` text NOT NULL,
	`purpose` text NOT NULL,
	`status` text NOT NULL,
	`reason` text NOT NULL,
	`due_at` integer,
	`message` text NOT NULL,
	`seq` integer,
	`digest_id` text,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	CONSTRAINT "notification_deliveries_status" CHECK("notification_deliveries"."status" in ('held', 'deferred', 'sent', 'cancelled', 'suppressed', 'digested', 'empty'))
);
--> statement-breakpoint
CREATE INDEX `notification_deliveries_status_idx` ON `notification_deliveries` (`status`,`due_at`);--> statement-breakpoint
CREATE INDEX `notification_deliveries_notification_idx` ON `notification_deliveries` (`notification_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `notification_deliveries_seq_idx` ON `notification_deliveries` (`seq`);--> statement-breakpoint
CREATE TABLE `notification_mutes` (
	`subject_key` text PRIMARY KEY NOT NULL,
	`until` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `notification_subjects` (
	`subject_key` text PRIMARY KEY NOT NULL,
	`outages` text NOT NULL,
	`flapping_since` integer,
	`last_change_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `notification_events` ADD `decision` text;--> statement-breakpoint
ALTER TABLE `notifications` ADD `snoozed_until` integer;--> statement-breakpoint
ALTER TABLE `notifications` ADD `decision` text;--> statement-breakpoint
CREATE INDEX `notifications_snoozed_idx` ON `notifications` (`snoozed_until`) WHERE "notifications"."snoozed_until" is not null;