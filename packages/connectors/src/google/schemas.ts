import { z } from 'zod';

/** Google APIs' error envelope: `{"error":{"code":403,"message":"…","status":"PERMISSION_DENIED","errors":[{"reason":…}]}}`. */
export const apiError = z
  .object({
    error: z
      .object({
        code: z.number(),
        message: z.string(),
        status: z.string().optional(),
        errors: z.array(z.object({ reason: z.string().optional(), message: z.string().optional() }).loose()).optional(),
      })
      .loose(),
  })
  .loose();
export type GoogleApiError = z.infer<typeof apiError>['error'];

/** `GET /webmasters/v3/sites`; an account with no properties gets `{}`, without `siteEntry`; WmxSite promises neither of its fields. */
export const siteList = z
  .object({
    siteEntry: z.array(z.object({ siteUrl: z.string().optional(), permissionLevel: z.string().optional() }).loose()).optional(),
  })
  .loose();

/**
 * One row of searchAnalytics.query: `keys` in the order of the request's dimensions, absent without
 * dimensions. Google's description (ApiDataRow) requires none of its fields, the metrics included.
 */
export const searchRow = z
  .object({
    keys: z.array(z.string()).optional(),
    /** Counts, though the description types every metric as a double. */
    clicks: z.number().nonnegative().optional(),
    impressions: z.number().nonnegative().optional(),
    /** A 0–1 fraction. */
    ctr: z.number().min(0).max(1).optional(),
    /** Average rank, 1-based. */
    position: z.number().nonnegative().optional(),
  })
  .loose();
export type SearchRow = z.infer<typeof searchRow>;

/** Without data `rows` is absent: `{"responseAggregationType":"auto"}`. */
export const searchAnalytics = z.object({ rows: z.array(searchRow).optional(), responseAggregationType: z.string().optional() }).loose();

/** What we send to searchAnalytics.query. */
export interface SearchAnalyticsQuery {
  startDate: string;
  endDate: string;
  dimensions: string[];
  type: 'web';
  /** `final` (the default) or `all`, which adds the fresh days Google is still filling in. */
  dataState: 'final' | 'all';
  rowLimit?: number;
  startRow?: number;
}
