CREATE TABLE `metric_points` (
	`project` varchar(64) NOT NULL,
	`metric` varchar(64) NOT NULL,
	`date` varchar(10) NOT NULL,
	`value` double NOT NULL,
	`currency` varchar(3),
	`late` boolean NOT NULL,
	`source` varchar(16) NOT NULL,
	`taken_at` bigint NOT NULL,
	CONSTRAINT `metric_points_project_metric_date_pk` PRIMARY KEY(`project`,`metric`,`date`),
	CONSTRAINT `metric_points_source` CHECK(`metric_points`.`source` in ('snapshot', 'backfill', 'import'))
);
