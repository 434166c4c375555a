import { z } from 'zod';
import { historyDateSchema, metricKeySchema } from './history.ts';
import type { MetricKey } from './metrics.ts';
import { slugSchema } from './projects.ts';

/**
 * Change alerts on the metric history: rules per project and metric, each of three kinds, evaluated at each snapshot,
 * each import (its last 48 hours only) and hourly on the fast metrics. One notification thread per project and metric.
 */

/**
 * `threshold`: above or below a value. `change`: more than `percent` % against a comparison period. `unusual`: outside
 * the band the metric's own same-weekday history makes expected (median and MAD of the last 8 same weekdays).
 */
export const metricAlertKinds = ['threshold', 'change', 'unusual'] as const;
export type MetricAlertKind = (typeof metricAlertKinds)[number];

/** `same_weekday`: the same weekday a week before; `previous_7` / `previous_28`: the mean of the 7 / 28 days before. */
export const changeComparisons = ['same_weekday', 'previous_7', 'previous_28'] as const;
export type ChangeComparison = (typeof changeComparisons)[number];

/** The severities a rule may give its alerts (a resolve is always `success`). */
export const metricAlertSeverities = ['info', 'warning', 'error'] as const;
export type MetricAlertSeverity = (typeof metricAlertSeverities)[number];

/** The metrics an `unusual` rule watches by default in every project that has them, each switchable. */
export const defaultUnusualMetrics = ['revenue.mrr', 'revenue.gross', 'analytics.visitors', 'errors.events', 'uptime.up_ratio'] as const satisfies readonly MetricKey[];

/** How sensitive `unusual` is: the robust z-score beyond which a day is out of its band (4 by default). */
export const DEFAULT_UNUSUAL_Z = 4;

const direction = z.enum(['above', 'below'], { error: 'direction is above or below' });
const eitherDirection = z.enum(['above', 'below', 'either'], { error: 'direction is above, below or either' });
const finite = (name: string) => z.number({ error: `${name} is a number` }).refine(Number.isFinite, `${name} is a finite number`);

export const thresholdParamsSchema = z.strictObject({ kind: z.literal('threshold'), direction, value: finite('value') });
export const changeParamsSchema = z.strictObject({
  kind: z.literal('change'),
  direction: eitherDirection,
  percent: finite('percent').refine((value) => value > 0 && value <= 1000, 'percent is more than 0 and at most 1000'),
  compareTo: z.enum(changeComparisons, { error: `compareTo is one of ${changeComparisons.join(', ')}` }),
});
export const unusualParamsSchema = z.strictObject({
  kind: z.literal('unusual'),
  direction: eitherDirection,
  /** The robust z beyond which a day is unusual: 2 (sensitive) to 10 (only the extreme). */
  z: finite('z').refine((value) => value >= 2 && value <= 10, 'z is between 2 and 10').default(DEFAULT_UNUSUAL_Z),
});
export const metricAlertParamsSchema = z.discriminatedUnion('kind', [thresholdParamsSchema, changeParamsSchema, unusualParamsSchema], {
  error: `kind is one of ${metricAlertKinds.join(', ')}`,
});
export type MetricAlertParams = z.infer<typeof metricAlertParamsSchema>;

const severity = z.enum(metricAlertSeverities, { error: `severity is one of ${metricAlertSeverities.join(', ')}` });

/** A rule as the API answers it. */
export const metricAlertRuleSchema = z.object({
  /** A built-in `unusual` rule's id is `default:<project>:<metric>`; a rule of the owner's is a UUID. */
  id: z.string(),
  project: z.string(),
  metric: metricKeySchema,
  params: metricAlertParamsSchema,
  severity,
  enabled: z.boolean(),
  /** One of the built-in `unusual` rules: it can be switched off or tuned, not deleted. */
  builtIn: z.boolean(),
  /** ISO 8601; null for a built-in rule never changed. */
  updatedAt: z.string().nullable(),
});
export type MetricAlertRule = z.infer<typeof metricAlertRuleSchema>;

/** `POST /api/metric-alerts`. Severity: `warning` unless set. */
export const metricAlertCreateSchema = z.strictObject({
  project: slugSchema,
  metric: metricKeySchema,
  params: metricAlertParamsSchema,
  severity: severity.default('warning'),
  enabled: z.boolean().default(true),
});
export type MetricAlertCreate = z.infer<typeof metricAlertCreateSchema>;

/** `PATCH /api/metric-alerts/:id`: what changes (the kind may change with its params). */
export const metricAlertPatchSchema = z
  .strictObject({ params: metricAlertParamsSchema.optional(), severity: severity.optional(), enabled: z.boolean().optional() })
  .refine((patch) => Object.keys(patch).length > 0, 'Say what changes: params, severity or enabled');
export type MetricAlertPatch = z.infer<typeof metricAlertPatchSchema>;

export const metricAlertIdSchema = z.strictObject({ id: z.string().trim().min(1, 'id is the rule id').max(200) });

export const metricAlertListQuerySchema = z.object({ project: z.union([slugSchema, z.literal('')]).optional().transform((value) => value || undefined) });
export const metricAlertListSchema = z.object({ rules: z.array(metricAlertRuleSchema) });
export type MetricAlertList = z.infer<typeof metricAlertListSchema>;

/** What a rule says about one day: `open` (it alerts), `remind` (still out a week later), `resolve` (back in range). */
export const metricAlertVerdicts = ['open', 'remind', 'resolve'] as const;

export const metricAlertFiringSchema = z.object({
  date: historyDateSchema,
  verdict: z.enum(metricAlertVerdicts),
  value: z.number(),
  /** The range the value was held to (a threshold's one side, a change's or a band's both): null where it has none. */
  expected: z.object({ low: z.number().nullable(), high: z.number().nullable() }).nullable(),
  /** The sentence the notification says: "Visitors unusually low: 610 on a Monday, expected 1,020–1,340". */
  message: z.string(),
});
export type MetricAlertFiring = z.infer<typeof metricAlertFiringSchema>;

/** `POST /api/metric-alerts/preview`: a rule not yet saved (or a saved one's new params) over the history. */
export const metricAlertPreviewInputSchema = z.strictObject({
  project: slugSchema,
  metric: metricKeySchema,
  params: metricAlertParamsSchema,
  /** How far back, 90 days unless said. */
  days: z.number().int().min(7).max(365).default(90),
});
export type MetricAlertPreviewInput = z.infer<typeof metricAlertPreviewInputSchema>;

export const metricAlertPreviewSchema = z.object({
  from: historyDateSchema,
  to: historyDateSchema,
  /** Days of the metric's history in the window (and before it, for the baselines). */
  points: z.number().int(),
  /** Oldest first. */
  firings: z.array(metricAlertFiringSchema),
  /** Why there may be fewer firings than expected ("unusual needs 3 weeks of history: 12 days so far"); null when none. */
  note: z.string().nullable(),
});
export type MetricAlertPreview = z.infer<typeof metricAlertPreviewSchema>;
