import { z } from 'zod';
import { isMetricKey, metricKeys, metricUnits, type MetricKey } from './metrics.ts';
import { slugSchema } from './projects.ts';
import { isTimeZone } from './quiet-hours.ts';

/**
 * The metric history: one value per project, metric and day, kept by the dashboard itself (a daily snapshot, each
 * provider's daily series read back once, CSV imports). Its routes' inputs and outputs.
 */

export const metricKeySchema = z.enum(metricKeys, { error: `metric is one of ${metricKeys.join(', ')}` });
export const metricUnitSchema = z.enum(metricUnits);
/** A calendar day, `YYYY-MM-DD`. */
export const historyDateSchema = z.iso.date({ error: 'a date is written YYYY-MM-DD' });

/** How a point came to be: the daily snapshot, a provider's daily series read back, or a CSV import. */
export const pointSources = ['snapshot', 'backfill', 'import'] as const;
export type PointSource = (typeof pointSources)[number];

export const historyPointSchema = z.object({
  date: historyDateSchema,
  value: z.number(),
  /** Present (true) when the snapshot was taken after its day's time had passed (the dashboard was off then). */
  late: z.literal(true).optional(),
});
export type HistoryPoint = z.infer<typeof historyPointSchema>;

/** `from`/`to` default to the year up to today; `from` after `to` is the caller's mistake. */
const rangeShape = {
  from: historyDateSchema.optional(),
  to: historyDateSchema.optional(),
};
const ordered = (value: { from?: string | undefined; to?: string | undefined }) => value.from === undefined || value.to === undefined || value.from <= value.to;
const orderedMessage = { message: 'from is on or before to', path: ['from'] };

export const historyQuerySchema = z.object({ project: slugSchema, metric: metricKeySchema, ...rangeShape }).refine(ordered, orderedMessage);
export type HistoryQuery = z.infer<typeof historyQuerySchema>;

/** `GET /api/history`: a metric's days of a project, oldest first; a day with no value is absent (a gap, never a zero). */
export const historySchema = z.object({
  project: z.string(),
  metric: metricKeySchema,
  unit: metricUnitSchema,
  /** With `money`: the currency of the values (the latest point's, when a source's currency changed). */
  currency: z.string().optional(),
  points: z.array(historyPointSchema),
});
export type History = z.infer<typeof historySchema>;

/**
 * `GET /api/history/series`: several metrics at once, for the widgets' trends and the history view: one project's (or,
 * without `project`, every project's), the metrics named (`metrics=revenue.mrr,analytics.visitors`) or all of them.
 */
export const historySeriesQuerySchema = z
  .object({
    project: z.union([slugSchema, z.literal('')]).optional().transform((value) => value || undefined),
    metrics: z
      .union([z.array(metricKeySchema), z.string().transform((value, ctx) => commaList(value, ctx))])
      .optional()
      .transform((value) => (value && value.length > 0 ? [...new Set(value)] : undefined)),
    ...rangeShape,
  })
  .refine(ordered, orderedMessage);
export type HistorySeriesQuery = z.input<typeof historySeriesQuerySchema>;

function commaList(value: string, ctx: z.RefinementCtx): MetricKey[] {
  const keys = value.split(',').map((key) => key.trim()).filter(Boolean);
  const unknown = keys.find((key) => !isMetricKey(key));
  if (unknown !== undefined) ctx.addIssue({ code: 'custom', message: `"${unknown}" is not a metric: metrics are ${metricKeys.join(', ')}` });
  return keys.filter(isMetricKey);
}

export const historySeriesSchema = z.object({ series: z.array(historySchema) });
export type HistorySeries = z.infer<typeof historySeriesSchema>;

/** `GET /api/history.csv`: one metric, or (no `metric`) every metric of the project. */
export const historyCsvQuerySchema = z.object({ project: slugSchema, metric: metricKeySchema.optional(), ...rangeShape }).refine(ordered, orderedMessage);
export type HistoryCsvQuery = z.infer<typeof historyCsvQuerySchema>;

/** The CSV's header, in its order: the export writes it, an import needs these columns (in any order). */
export const historyCsvColumns = ['date', 'project', 'metric', 'value', 'unit'] as const;

/** The CSV as a download: its text and the file name it is offered under. */
export const historyCsvSchema = z.object({ csv: z.string(), filename: z.string() });
export type HistoryCsv = z.infer<typeof historyCsvSchema>;

/** `GET /api/history/metrics[?project=]`: per project, every metric of the catalogue and whether it is kept. */
export const historyMetricsQuerySchema = z.object({ project: z.union([slugSchema, z.literal('')]).optional().transform((value) => value || undefined) });
export type HistoryMetricsQuery = z.infer<typeof historyMetricsQuerySchema>;

export const historyMetricSchema = z.object({
  key: metricKeySchema,
  label: z.string(),
  unit: metricUnitSchema,
  currency: z.string().optional(),
  kind: z.enum(['flow', 'stock']),
  integration: z.string(),
  /** The project has the integration this metric comes from: the snapshot takes it. */
  configured: z.boolean(),
  /** The provider keeps a daily series the dashboard reads back (backfill); false: history starts with the first snapshot. */
  backfill: z.boolean(),
  /** Days stored, and the first and last of them. */
  points: z.number().int().nonnegative(),
  first: historyDateSchema.nullable(),
  last: historyDateSchema.nullable(),
});
export type HistoryMetric = z.infer<typeof historyMetricSchema>;

export const historyMetricsSchema = z.object({
  projects: z.array(z.object({ project: z.string(), name: z.string(), metrics: z.array(historyMetricSchema) })),
});
export type HistoryMetrics = z.infer<typeof historyMetricsSchema>;

/** What a snapshot or a backfill could not read: the project, the metric's integration, the upstream's reason. */
export const historyFailureSchema = z.object({ project: z.string(), integration: z.string(), error: z.string() });

/** `POST /api/history/snapshot`: the day it was taken for (the owner's time zone), and what it wrote. */
export const snapshotResultSchema = z.object({
  date: historyDateSchema,
  /** Points written (stocks of the day and the flows of the days the providers answered). */
  points: z.number().int().nonnegative(),
  late: z.boolean(),
  failed: z.array(historyFailureSchema),
});
export type SnapshotResult = z.infer<typeof snapshotResultSchema>;

export const backfillInputSchema = z.strictObject({ project: slugSchema.optional() });
export type BackfillInput = z.infer<typeof backfillInputSchema>;

/** `POST /api/history/backfill`: the days each provider still had, read back. */
export const backfillResultSchema = z.object({
  points: z.number().int().nonnegative(),
  projects: z.array(z.object({ project: z.string(), metrics: z.array(z.object({ metric: metricKeySchema, points: z.number().int().nonnegative(), first: historyDateSchema.nullable() })) })),
  failed: z.array(historyFailureSchema),
});
export type BackfillResult = z.infer<typeof backfillResultSchema>;

/** Most rows one import takes (a year of 20 metrics for 10 projects is 73,000). */
export const MAX_IMPORT_ROWS = 200_000;
export const MAX_IMPORT_BYTES = 16 * 1024 * 1024;

/** `POST /api/history/import`: a CSV of `historyCsvColumns` (its text as the body, `text/csv`). */
export const historyImportInputSchema = z.strictObject({ csv: z.string().max(MAX_IMPORT_BYTES, 'the CSV is larger than 16 MB') });
export type HistoryImportInput = z.infer<typeof historyImportInputSchema>;

export const historyImportResultSchema = z.object({
  /** Rows read. */
  rows: z.number().int().nonnegative(),
  /** Days that had no value before, and days whose value the import replaced (0 on a second import of the same file). */
  created: z.number().int().nonnegative(),
  updated: z.number().int().nonnegative(),
  unchanged: z.number().int().nonnegative(),
});
export type HistoryImportResult = z.infer<typeof historyImportResultSchema>;

/** When the daily snapshot is taken: a local time in the owner's time zone (06:00 by default, before the briefing). */
export const historyScheduleSchema = z.strictObject({
  time: z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, 'time is written HH:MM, from 00:00 to 23:59'),
  timezone: z.string().trim().min(1, 'timezone is required').refine(isTimeZone, 'timezone is not a time zone this server knows (e.g. Europe/Berlin)'),
});
export type HistorySchedule = z.infer<typeof historyScheduleSchema>;
export const defaultHistorySchedule: HistorySchedule = { time: '06:00', timezone: 'UTC' };

/** `GET /api/history/settings`: the schedule, the last snapshot, the next, and how much is kept. */
export const historySettingsSchema = z.object({
  schedule: historyScheduleSchema,
  /** When the next snapshot is taken; null while there is no project to take. */
  nextAt: z.iso.datetime({ offset: true }).nullable(),
  last: z
    .object({ date: historyDateSchema, at: z.iso.datetime({ offset: true }), late: z.boolean(), points: z.number().int().nonnegative(), failed: z.array(historyFailureSchema) })
    .nullable(),
  /** Rows of history stored, across projects and metrics. */
  rows: z.number().int().nonnegative(),
});
export type HistorySettings = z.infer<typeof historySettingsSchema>;
