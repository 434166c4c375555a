CREATE TABLE "notification_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"notification_id" text,
	"subject_key" text,
	"channel" text NOT NULL,
	"purpose" text NOT NULL,
	"status" text NOT NULL,
	"reason" text NOT NULL,
	"due_at" bigint,
	"message" text NOT NULL,
	"seq" bigint,
	"digest_id" text,
	"created_at" bigint NOT NULL,
	"sent_at" bigint,
	CONSTRAINT "notification_deliveries_status" CHECK ("notification_deliveries"."status" in ('held', 'deferred', 'sent', 'cancelled', 'suppressed', 'digested', 'empty'))
);
--> statement-breakpoint
CREATE TABLE "notification_mutes" (
	"subject_key" text PRIMARY KEY NOT NULL,
	"until" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_subjects" (
	"subject_key" text PRIMARY KEY NOT NULL,
	"outages" text NOT NULL,
	"flapping_since" bigint,
	"last_change_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notification_events" ADD COLUMN "decision" text;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "snoozed_until" bigint;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "decision" text;--> statement-breakpoint
CREATE INDEX "notification_deliveries_status_idx" ON "notification_deliveries" USING btree ("status","due_at");--> statement-breakpoint
CREATE INDEX "notification_deliveries_notification_idx" ON "notification_deliveries" USING btree ("notification_id");--> statement-breakpoint
CREATE UNIQUE INDEX "notification_deliveries_seq_idx" ON "notification_deliveries" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "notifications_snoozed_idx" ON "notifications" USING btree ("snoozed_until") WHERE "notifications"."snoozed_until" is not null;