CREATE TABLE `leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `notification_dedup` (
	`source_event_id` text PRIMARY KEY NOT NULL,
	`notification_id` text NOT NULL,
	`first_seen_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`hits` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notification_dedup_expires_idx` ON `notification_dedup` (`expires_at`);--> statement-breakpoint
CREATE TABLE `notification_events` (
	`id` text PRIMARY KEY NOT NULL,
	`notification_id` text NOT NULL,
	`source_event_id` text NOT NULL,
	`integration` text NOT NULL,
	`type` text NOT NULL,
	`subject_key` text,
	`transition` text,
	`severity` text NOT NULL,
	`title` text NOT NULL,
	`url` text,
	`project_slug` text,
	`occurred_at` text NOT NULL,
	`received_at` text NOT NULL,
	`relay_event_id` text,
	CONSTRAINT "notification_events_transition" CHECK("notification_events"."transition" in ('trigger', 'resolve')),
	CONSTRAINT "notification_events_severity" CHECK("notification_events"."severity" in ('info', 'success', 'warning', 'error'))
);
--> statement-breakpoint
CREATE INDEX `notification_events_notification_idx` ON `notification_events` (`notification_id`);--> statement-breakpoint
CREATE TABLE `notification_seq` (
	`id` integer PRIMARY KEY NOT NULL,
	`last` integer NOT NULL,
	CONSTRAINT "notification_seq_single_row" CHECK("notification_seq"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`created_seq` integer NOT NULL,
	`integration` text NOT NULL,
	`type` text NOT NULL,
	`subject_key` text,
	`status` text NOT NULL,
	`severity` text NOT NULL,
	`title` text NOT NULL,
	`url` text,
	`project_slug` text,
	`event_count` integer NOT NULL,
	`first_at` text NOT NULL,
	`last_at` text NOT NULL,
	`resolved_at` text,
	`received_at` text NOT NULL,
	`read_at` text,
	CONSTRAINT "notifications_status" CHECK("notifications"."status" in ('open', 'resolved', 'info')),
	CONSTRAINT "notifications_severity" CHECK("notifications"."severity" in ('info', 'success', 'warning', 'error'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_seq_idx` ON `notifications` (`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_open_subject_idx` ON `notifications` (`subject_key`) WHERE "notifications"."status" = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_created_seq_idx` ON `notifications` (`created_seq`);--> statement-breakpoint
CREATE INDEX `notifications_unread_idx` ON `notifications` (`created_seq`) WHERE "notifications"."read_at" is null;--> statement-breakpoint
CREATE TABLE `relay_cursor` (
	`relay_url` text PRIMARY KEY NOT NULL,
	`since` integer NOT NULL,
	`updated_at` text NOT NULL
);
