CREATE TABLE "metric_alert_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"project_slug" text NOT NULL,
	"metric" text NOT NULL,
	"params" text NOT NULL,
	"severity" text NOT NULL,
	"enabled" boolean NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "metric_alert_rules_severity" CHECK ("metric_alert_rules"."severity" in ('info', 'warning', 'error'))
);
--> statement-breakpoint
CREATE INDEX "metric_alert_rules_project_idx" ON "metric_alert_rules" USING btree ("project_slug");