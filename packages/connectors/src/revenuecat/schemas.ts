import { z } from 'zod';

/**
 * RevenueCat API v2. Money is in major units of the asked currency (RevenueCat converts); chart
 * `cohort`s are the bucket starts in Unix seconds.
 */
export const overviewMetric = z.object({ id: z.string(), value: z.number() }).loose();

export const overview = z
  .object({
    object: z.literal('overview_metrics'),
    currency: z.string(),
    metrics: z.array(overviewMetric),
  })
  .loose();
export type RevenueCatOverview = z.infer<typeof overview>;

export const chartValue = z
  .object({
    cohort: z.number(),
    measure: z.number().int().nonnegative(),
    value: z.number(),
    incomplete: z.boolean().optional(),
  })
  .loose();

export const chartMeasure = z.object({ display_name: z.string(), unit: z.string().optional() }).loose();

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
