CREATE TABLE "push_sends" (
	"id" text PRIMARY KEY NOT NULL,
	"delivery_id" text NOT NULL,
	"subscription_id" text NOT NULL,
	"state" text NOT NULL,
	"attempts" integer NOT NULL,
	"due_at" bigint NOT NULL,
	"lease_until" bigint,
	"lease_holder" text,
	"status" integer,
	"error" text,
	"created_at" bigint NOT NULL,
	"sent_at" bigint
);
--> statement-breakpoint
CREATE INDEX "push_sends_state_idx" ON "push_sends" USING btree ("state","due_at");--> statement-breakpoint
CREATE INDEX "push_sends_delivery_idx" ON "push_sends" USING btree ("delivery_id");