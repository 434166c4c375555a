CREATE TABLE "channel_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"min_severity" text NOT NULL,
	"settings" text NOT NULL,
	"sealed_secret" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_success_at" bigint,
	"last_failure_at" bigint,
	"last_failure" text,
	"attention_at" bigint,
	"attention" text
);
--> statement-breakpoint
CREATE TABLE "channel_sends" (
	"id" text PRIMARY KEY NOT NULL,
	"delivery_id" text NOT NULL,
	"connection_id" text NOT NULL,
	"state" text NOT NULL,
	"attempts" integer NOT NULL,
	"due_at" bigint NOT NULL,
	"lease_until" bigint,
	"lease_holder" text,
	"status" integer,
	"error" text,
	"provider_id" text,
	"created_at" bigint NOT NULL,
	"sent_at" bigint
);
--> statement-breakpoint
CREATE INDEX "channel_connections_created_idx" ON "channel_connections" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "channel_sends_state_idx" ON "channel_sends" USING btree ("state","due_at");--> statement-breakpoint
CREATE INDEX "channel_sends_connection_idx" ON "channel_sends" USING btree ("connection_id");