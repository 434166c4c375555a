import { z } from 'zod';

/**
 * RevenueCat API v2, as its OpenAPI description has it. Money is in major units of the asked currency
 * (RevenueCat converts; `OverviewMetrics` has no currency of its own); chart `cohort`s are the bucket
 * starts in Unix seconds.
 */
export const overviewMetric = z.object({ id: z.string(), value: z.number() }).loose();

/** `OverviewMetrics`: `object` and `metrics`, nothing else (`additionalProperties: false`). */
export const overview = z
  .object({
    object: z.literal('overview_metrics'),
    metrics: z.array(overviewMetric),
  })
  .loose();
export type RevenueCatOverview = z.infer<typeof overview>;

/** A point as RevenueCat's charts send it: `{ cohort, measure, value }`. */
export const chartPoint = z
  .object({
    cohort: z.number(),
    measure: z.number().int().nonnegative(),
    value: z.number().nullable(),
    incomplete: z.boolean().optional(),
  })
  .loose();

/**
 * `ChartData.values` items are `oneOf` an array of (nullable) numbers or a free-form object. A row is
 * read as `[cohort, measure 0, measure 1, …]`; an object without a numeric cohort says nothing we can
 * place on a day, and is passed over rather than failing the whole chart.
 */
export const chartValue = z.union([z.array(z.number().nullable()), chartPoint, z.record(z.string(), z.unknown())]);

/** `measures` items are free-form objects in the description: a name and a unit when RevenueCat gives them. */
export const chartMeasure = z.object({ display_name: z.string().optional(), unit: z.string().optional() }).loose();

export const chart = z
  .object({
    object: z.literal('chart_data'),
    resolution: z.string(),
    values: z.array(chartValue),
    measures: z.array(chartMeasure).nullable().optional(),
    yaxis_currency: z.string().nullable().optional(),
  })
  .loose();
export type RevenueCatChart = z.infer<typeof chart>;

/** `GET /projects`: `{ object: 'list', items, next_page }`. */
export const projectList = z
  .object({
    object: z.literal('list'),
    items: z.array(z.object({ id: z.string() }).loose()),
    next_page: z.string().nullable(),
  })
  .loose();

/** `{"object":"error","type":"authentication_error","message":"Invalid API key.","retryable":false,...}`; 429s add `backoff_ms`. */
export const errorBody = z
  .object({
    type: z.string().optional(),
    message: z.string(),
    backoff_ms: z.number().nonnegative().optional(),
  })
  .loose();
