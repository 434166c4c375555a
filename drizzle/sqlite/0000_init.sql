CREATE TABLE `api_cache` (
	`key` text PRIMARY KEY NOT NULL,
	`route` text NOT NULL,
	`value` text NOT NULL,
	`fetched_at` text NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `api_cache_route_idx` ON `api_cache` (`route`);--> statement-breakpoint
CREATE TABLE `credentials` (
	`key` text PRIMARY KEY NOT NULL,
	`sealed` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `projects` (
	`slug` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`color` text,
	`integrations` text NOT NULL,
	`position` integer NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `user_settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text,
	`updated_at` text NOT NULL
);
