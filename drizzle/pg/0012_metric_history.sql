CREATE TABLE "metric_points" (
	"project" text NOT NULL,
	"metric" text NOT NULL,
	"date" text NOT NULL,
	"value" double precision NOT NULL,
	"currency" text,
	"late" boolean NOT NULL,
	"source" text NOT NULL,
	"taken_at" bigint NOT NULL,
	CONSTRAINT "metric_points_project_metric_date_pk" PRIMARY KEY("project","metric","date"),
	CONSTRAINT "metric_points_source" CHECK ("metric_points"."source" in ('snapshot', 'backfill', 'import'))
);
