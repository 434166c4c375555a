CREATE TABLE "email_sends" (
	"id" text PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"attempts" integer NOT NULL,
	"due_at" bigint NOT NULL,
	"lease_until" bigint,
	"lease_holder" text,
	"provider_id" text,
	"error" text,
	"created_at" bigint NOT NULL,
	"sent_at" bigint
);
--> statement-breakpoint
CREATE INDEX "email_sends_state_idx" ON "email_sends" USING btree ("state","due_at");