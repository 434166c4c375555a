import { z } from 'zod';

/**
 * Stats API v2 (`POST /api/v2/query`): one row per dimension value, metrics positional in the order
 * the query asked for them. An aggregate (no dimensions) is one row with `dimensions: []`. Empty time
 * buckets are left out.
 */
export const queryRow = z
  .object({
    // A session metric over no visits comes back null on some versions.
    metrics: z.array(z.number().nullable()),
    dimensions: z.array(z.string()),
  })
  .loose();
export type PlausibleRow = z.infer<typeof queryRow>;

/** `meta.time_labels` (with `include.time_labels` and a time dimension): every bucket of the asked range, `YYYY-MM-DD` for `time:day`. */
export const queryResult = z
  .object({ results: z.array(queryRow), meta: z.object({ time_labels: z.array(z.string()).optional() }).loose().optional() })
  .loose();
export type PlausibleResult = z.infer<typeof queryResult>;

/** `GET /api/v1/stats/realtime/visitors`: a bare integer, visitors in the last 5 minutes. */
export const realtimeVisitors = z.number().int().nonnegative();

/** Every Plausible API error: `{"error": "..."}`. */
export const errorBody = z.object({ error: z.string() }).loose();

/** The query we send: only the parts of the v2 schema this connector uses. */
export interface PlausibleQuery {
  site_id: string;
  metrics: string[];
  date_range: [string, string];
  dimensions?: string[];
  order_by?: [string, 'asc' | 'desc'][];
  pagination?: { limit: number; offset: number };
  include?: { time_labels?: boolean };
}
