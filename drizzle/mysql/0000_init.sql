CREATE TABLE `api_cache` (
	`key` varchar(768) NOT NULL,
	`route` varchar(64) NOT NULL,
	`value` json NOT NULL,
	`fetched_at` varchar(30) NOT NULL,
	`expires_at` varchar(30) NOT NULL,
	CONSTRAINT `api_cache_key` PRIMARY KEY(`key`)
);
--> statement-breakpoint
CREATE TABLE `api_token` (
	`id` varchar(64) NOT NULL,
	`name` varchar(200) NOT NULL,
	`secret_hash` varchar(128) NOT NULL,
	`scope` varchar(8) NOT NULL,
	`created_at` varchar(30) NOT NULL,
	`last_used_at` varchar(30),
	`expires_at` varchar(30),
	CONSTRAINT `api_token_id` PRIMARY KEY(`id`),
	CONSTRAINT `api_token_scope` CHECK(`api_token`.`scope` in ('read', 'write'))
);
--> statement-breakpoint
CREATE TABLE `auth_owner` (
	`id` int NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` varchar(30) NOT NULL,
	`updated_at` varchar(30) NOT NULL,
	CONSTRAINT `auth_owner_id` PRIMARY KEY(`id`),
	CONSTRAINT `auth_owner_single_row` CHECK(`auth_owner`.`id` = 1)
);
--> statement-breakpoint
CREATE TABLE `auth_session` (
	`id` varchar(64) NOT NULL,
	`secret_hash` varchar(128) NOT NULL,
	`created_at` varchar(30) NOT NULL,
	`last_seen_at` varchar(30) NOT NULL,
	`user_agent` text,
	`ip` varchar(64),
	CONSTRAINT `auth_session_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `credentials` (
	`key` varchar(128) NOT NULL,
	`sealed` text NOT NULL,
	`updated_at` varchar(30) NOT NULL,
	CONSTRAINT `credentials_key` PRIMARY KEY(`key`)
);
--> statement-breakpoint
CREATE TABLE `leases` (
	`name` varchar(128) NOT NULL,
	`holder` varchar(128) NOT NULL,
	`expires_at` varchar(30) NOT NULL,
	CONSTRAINT `leases_name` PRIMARY KEY(`name`)
);
--> statement-breakpoint
CREATE TABLE `notification_dedup` (
	`source_event_id` varchar(512) NOT NULL,
	`notification_id` varchar(64) NOT NULL,
	`first_seen_at` varchar(30) NOT NULL,
	`expires_at` varchar(30) NOT NULL,
	`hits` int NOT NULL,
	CONSTRAINT `notification_dedup_source_event_id` PRIMARY KEY(`source_event_id`)
);
--> statement-breakpoint
CREATE TABLE `notification_deliveries` (
	`id` varchar(64) NOT NULL,
	`notification_id` varchar(64),
	`subject_key` varchar(512),
	`channel` varchar(8) NOT NULL,
	`purpose` varchar(16) NOT NULL,
	`status` varchar(16) NOT NULL,
	`reason` text NOT NULL,
	`due_at` bigint,
	`message` text NOT NULL,
	`seq` bigint,
	`digest_id` varchar(64),
	`created_at` bigint NOT NULL,
	`sent_at` bigint,
	CONSTRAINT `notification_deliveries_id` PRIMARY KEY(`id`),
	CONSTRAINT `notification_deliveries_seq_idx` UNIQUE(`seq`),
	CONSTRAINT `notification_deliveries_status` CHECK(`notification_deliveries`.`status` in ('held', 'deferred', 'sent', 'cancelled', 'suppressed', 'digested', 'empty'))
);
--> statement-breakpoint
CREATE TABLE `notification_events` (
	`id` varchar(64) NOT NULL,
	`notification_id` varchar(64) NOT NULL,
	`source_event_id` varchar(512) NOT NULL,
	`integration` varchar(64) NOT NULL,
	`type` varchar(128) NOT NULL,
	`subject_key` varchar(512),
	`transition` varchar(8),
	`severity` varchar(8) NOT NULL,
	`title` text NOT NULL,
	`url` text,
	`project_slug` varchar(64),
	`occurred_at` varchar(30) NOT NULL,
	`received_at` varchar(30) NOT NULL,
	`relay_event_id` varchar(128),
	`decision` text,
	CONSTRAINT `notification_events_id` PRIMARY KEY(`id`),
	CONSTRAINT `notification_events_transition` CHECK(`notification_events`.`transition` in ('trigger', 'resolve')),
	CONSTRAINT `notification_events_severity` CHECK(`notification_events`.`severity` in ('info', 'success', 'warning', 'error'))
);
--> statement-breakpoint
CREATE TABLE `notification_mutes` (
	`subject_key` varchar(512) NOT NULL,
	`until` bigint NOT NULL,
	`created_at` bigint NOT NULL,
	CONSTRAINT `notification_mutes_subject_key` PRIMARY KEY(`subject_key`)
);
--> statement-breakpoint
CREATE TABLE `notification_seq` (
	`id` int NOT NULL,
	`last` bigint NOT NULL,
	CONSTRAINT `notification_seq_id` PRIMARY KEY(`id`),
	CONSTRAINT `notification_seq_single_row` CHECK(`notification_seq`.`id` = 1)
);
--> statement-breakpoint
CREATE TABLE `notification_subjects` (
	`subject_key` varchar(512) NOT NULL,
	`outages` text NOT NULL,
	`flapping_since` bigint,
	`last_change_at` bigint NOT NULL,
	CONSTRAINT `notification_subjects_subject_key` PRIMARY KEY(`subject_key`)
);
--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` varchar(64) NOT NULL,
	`seq` bigint NOT NULL,
	`created_seq` bigint NOT NULL,
	`integration` varchar(64) NOT NULL,
	`type` varchar(128) NOT NULL,
	`subject_key` varchar(512),
	`status` varchar(8) NOT NULL,
	`severity` varchar(8) NOT NULL,
	`title` text NOT NULL,
	`url` text,
	`project_slug` varchar(64),
	`event_count` int NOT NULL,
	`first_at` varchar(30) NOT NULL,
	`last_at` varchar(30) NOT NULL,
	`resolved_at` varchar(30),
	`received_at` varchar(30) NOT NULL,
	`read_at` varchar(30),
	`snoozed_until` bigint,
	`decision` text,
	`open_subject` varchar(512) GENERATED ALWAYS AS (case when status = 'open' then subject_key end) STORED,
	CONSTRAINT `notifications_id` PRIMARY KEY(`id`),
	CONSTRAINT `notifications_seq_idx` UNIQUE(`seq`),
	CONSTRAINT `notifications_open_subject_idx` UNIQUE(`open_subject`),
	CONSTRAINT `notifications_created_seq_idx` UNIQUE(`created_seq`),
	CONSTRAINT `notifications_status` CHECK(`notifications`.`status` in ('open', 'resolved', 'info')),
	CONSTRAINT `notifications_severity` CHECK(`notifications`.`severity` in ('info', 'success', 'warning', 'error'))
);
--> statement-breakpoint
CREATE TABLE `projects` (
	`slug` varchar(64) NOT NULL,
	`name` text NOT NULL,
	`color` varchar(32),
	`integrations` json NOT NULL,
	`position` int NOT NULL,
	`version` int NOT NULL DEFAULT 1,
	`created_at` varchar(30) NOT NULL,
	`updated_at` varchar(30) NOT NULL,
	CONSTRAINT `projects_slug` PRIMARY KEY(`slug`)
);
--> statement-breakpoint
CREATE TABLE `relay_cursor` (
	`relay_url` varchar(768) NOT NULL,
	`since` bigint NOT NULL,
	`updated_at` varchar(30) NOT NULL,
	CONSTRAINT `relay_cursor_relay_url` PRIMARY KEY(`relay_url`)
);
--> statement-breakpoint
CREATE TABLE `user_settings` (
	`key` varchar(255) NOT NULL,
	`value` json,
	`updated_at` varchar(30) NOT NULL,
	CONSTRAINT `user_settings_key` PRIMARY KEY(`key`)
);
--> statement-breakpoint
CREATE INDEX `api_cache_route_idx` ON `api_cache` (`route`);--> statement-breakpoint
CREATE INDEX `notification_dedup_expires_idx` ON `notification_dedup` (`expires_at`);--> statement-breakpoint
CREATE INDEX `notification_deliveries_status_idx` ON `notification_deliveries` (`status`,`due_at`);--> statement-breakpoint
CREATE INDEX `notification_deliveries_notification_idx` ON `notification_deliveries` (`notification_id`);--> statement-breakpoint
CREATE INDEX `notification_events_notification_idx` ON `notification_events` (`notification_id`);--> statement-breakpoint
CREATE INDEX `notifications_read_idx` ON `notifications` (`read_at`,`created_seq`);--> statement-breakpoint
CREATE INDEX `notifications_snoozed_idx` ON `notifications` (`snoozed_until`);--> statement-breakpoint
CREATE INDEX `notifications_subject_idx` ON `notifications` (`subject_key`);