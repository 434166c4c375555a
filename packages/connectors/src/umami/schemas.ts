import { z } from 'zod';

/** A count: a number, or the numeric string some database drivers of older Umami versions sent. */
const count = z.union([z.number(), z.string().regex(/^\d+(\.\d+)?$/).transform(Number)]);

/** Umami v2 (to 2.x): every stat is `{ value, prev }` (the previous period beside it). */
const pair = z.object({ value: count, prev: count.optional() }).loose();
export const oldStats = z.object({ pageviews: pair, visitors: pair, visits: pair, bounces: pair, totaltime: pair }).loose();

/** Umami v3 and current Cloud: flat numbers, the previous period under `comparison`. */
export const newStats = z
  .object({ pageviews: count, visitors: count, visits: count, bounces: count, totaltime: count, comparison: z.object({}).loose().optional() })
  .loose();

/** `GET /websites/{id}/stats`: either shape, by server version. */
export const stats = z.union([newStats, oldStats]);
export type UmamiStats = z.infer<typeof stats>;

/**
 * `GET /websites/{id}/active`: `{ visitors: n }` now, `{ x: n }` on older servers (and a one-row
 * list `[{ x: n }]` on the oldest).
 */
export const active = z.union([
  z.object({ visitors: count }).loose(),
  z.object({ x: count }).loose(),
  z.array(z.object({ x: count }).loose()).max(1),
]);
export type UmamiActive = z.infer<typeof active>;

/** `GET /websites/{id}/metrics`: `[{ x, y }]`, largest first. */
export const metricRows = z.array(z.object({ x: z.string().nullable(), y: count }).loose());
export type UmamiMetricRow = z.infer<typeof metricRows>[number];

/** `GET /websites/{id}/metrics/expanded` (v3): per row its page views and distinct visitors. */
export const expandedRows = z.array(
  z.object({ name: z.string().nullable(), pageviews: count, visitors: count, visits: count.optional(), bounces: count.optional(), totaltime: count.optional() }).loose(),
);
export type UmamiExpandedRow = z.infer<typeof expandedRows>[number];

/** `GET /websites/{id}/pageviews`: two series, `x` the bucket's start ("2026-05-01T00:00:00Z" or "2026-05-01 00:00:00"). */
const series = z.array(z.object({ x: z.string(), y: count }).loose());
export const pageviewSeries = z.object({ pageviews: series, sessions: series }).loose();
export type UmamiPageviewSeries = z.infer<typeof pageviewSeries>;

/** `GET /websites`: a page of the account's websites. */
export const websiteList = z.object({ data: z.array(z.object({ id: z.string() }).loose()) }).loose();

/** `{"error": {"message", "code", "status"}}` now; older servers answered `{"error": "..."}` or plain text. */
export const errorBody = z.union([
  z.object({ error: z.object({ message: z.string() }).loose() }).loose(),
  z.object({ error: z.string() }).loose(),
  z.object({ message: z.string() }).loose(),
  // Plain text, not an HTML error page.
  z
    .string()
    .min(1)
    .refine((text) => !text.trimStart().startsWith('<')),
]);
