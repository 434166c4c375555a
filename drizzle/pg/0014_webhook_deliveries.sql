CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"received_at" bigint NOT NULL,
	"source" text NOT NULL,
	"integration" text NOT NULL,
	"event_type" text,
	"delivery_id" text,
	"source_event_id" text,
	"outcome" text NOT NULL,
	"detail" text,
	"title" text,
	"project_slug" text,
	"notification_id" text,
	"event_id" text,
	"duplicate_of" text,
	"replay_of" text,
	"replay_request" text,
	"body_until" bigint,
	"event" text,
	"body" text,
	CONSTRAINT "webhook_deliveries_source" CHECK ("webhook_deliveries"."source" in ('relay', 'local', 'replay')),
	CONSTRAINT "webhook_deliveries_outcome" CHECK ("webhook_deliveries"."outcome" in ('notified', 'threaded', 'duplicate', 'ignored', 'invalid'))
);
--> statement-breakpoint
CREATE TABLE "webhook_refusals" (
	"hour" bigint NOT NULL,
	"source" text NOT NULL,
	"integration" text NOT NULL,
	"reason" text NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "webhook_refusals_hour_source_integration_reason_pk" PRIMARY KEY("hour","source","integration","reason")
);
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_received_idx" ON "webhook_deliveries" USING btree ("received_at","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_integration_idx" ON "webhook_deliveries" USING btree ("integration","received_at","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_outcome_idx" ON "webhook_deliveries" USING btree ("outcome","received_at","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_notification_idx" ON "webhook_deliveries" USING btree ("notification_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_source_event_idx" ON "webhook_deliveries" USING btree ("source_event_id","received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_replay_idx" ON "webhook_deliveries" USING btree ("replay_request","replay_of");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_replay_of_idx" ON "webhook_deliveries" USING btree ("replay_of") WHERE "webhook_deliveries"."replay_of" is not null;