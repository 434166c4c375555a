CREATE TABLE "push_subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"browser" text,
	"endpoint" text NOT NULL,
	"sealed_keys" text NOT NULL,
	"expiration_time" bigint,
	"created_at" bigint NOT NULL,
	"last_success_at" bigint,
	"last_failure_at" bigint,
	"last_failure" text,
	"removed_at" bigint
);
--> statement-breakpoint
CREATE INDEX "push_subscriptions_created_idx" ON "push_subscriptions" USING btree ("created_at");