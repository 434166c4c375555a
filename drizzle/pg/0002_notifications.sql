CREATE SEQUENCE "public"."notification_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "leases" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_dedup" (
	"source_event_id" text PRIMARY KEY NOT NULL,
	"notification_id" text NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"hits" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_events" (
	"id" text PRIMARY KEY NOT NULL,
	"notification_id" text NOT NULL,
	"source_event_id" text NOT NULL,
	"integration" text NOT NULL,
	"type" text NOT NULL,
	"subject_key" text,
	"transition" text,
	"severity" text NOT NULL,
	"title" text NOT NULL,
	"url" text,
	"project_slug" text,
	"occurred_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"relay_event_id" text,
	CONSTRAINT "notification_events_transition" CHECK ("notification_events"."transition" in ('trigger', 'resolve')),
	CONSTRAINT "notification_events_severity" CHECK ("notification_events"."severity" in ('info', 'success', 'warning', 'error'))
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL,
	"created_seq" bigint NOT NULL,
	"integration" text NOT NULL,
	"type" text NOT NULL,
	"subject_key" text,
	"status" text NOT NULL,
	"severity" text NOT NULL,
	"title" text NOT NULL,
	"url" text,
	"project_slug" text,
	"event_count" integer NOT NULL,
	"first_at" timestamp with time zone NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	"resolved_at" timestamp with time zone,
	"received_at" timestamp with time zone NOT NULL,
	"read_at" timestamp with time zone,
	CONSTRAINT "notifications_status" CHECK ("notifications"."status" in ('open', 'resolved', 'info')),
	CONSTRAINT "notifications_severity" CHECK ("notifications"."severity" in ('info', 'success', 'warning', 'error'))
);
--> statement-breakpoint
CREATE TABLE "relay_cursor" (
	"relay_url" text PRIMARY KEY NOT NULL,
	"since" bigint NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "notification_dedup_expires_idx" ON "notification_dedup" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "notification_events_notification_idx" ON "notification_events" USING btree ("notification_id");--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_seq_idx" ON "notifications" USING btree ("seq");--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_open_subject_idx" ON "notifications" USING btree ("subject_key") WHERE "notifications"."status" = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_created_seq_idx" ON "notifications" USING btree ("created_seq");--> statement-breakpoint
CREATE INDEX "notifications_unread_idx" ON "notifications" USING btree ("created_seq") WHERE "notifications"."read_at" is null;