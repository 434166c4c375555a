import type { SeoConnector } from '../connector.ts';
import type { ConnectorContext } from '../context.ts';
import { ConnectorError } from '../errors.ts';
import { collectPages, defineClient, parseRetryAfter, type HttpRequest } from '../http.ts';
import { dailyValues, searchWindow, toSeo } from './map.ts';
import { RejectedTokenError, withAccessToken } from '../oauth.ts';
import { apiError, searchAnalytics, siteList, type SearchAnalyticsQuery, type SearchRow } from './schemas.ts';

const SERVICE = 'Google Search Console';
const MINUTE_MS = 60_000;
/** The widget lists this many top queries. */
const TOP_QUERIES = 25;
/** Rows per page of the daily series: the most the description allows (a row is a day, so one page is 13 years). */
const DAY_ROWS = 5000;
/** Over-quota answers Google sends as 403 (research §7) rather than 429. */
const QUOTA_REASONS = new Set(['quotaExceeded', 'rateLimitExceeded', 'userRateLimitExceeded']);

const reasonOf = (body: unknown): string | undefined => {
  const parsed = apiError.safeParse(body);
  return parsed.success ? parsed.data.error.message : undefined;
};

const client = defineClient({
  service: SERVICE,
  // The Bearer access token is added per request: it comes from the token cache, not the credentials.
  headers: () => ({}),
  errorMessage: reasonOf,
  classify(status, headers, body, now) {
    if (status === 401) return new RejectedTokenError(SERVICE, reasonOf(body));
    const parsed = apiError.safeParse(body);
    if (status !== 403 || !parsed.success) return undefined;
    const { error } = parsed.data;
    const overQuota = error.status === 'RESOURCE_EXHAUSTED' || (error.errors ?? []).some((e) => QUOTA_REASONS.has(e.reason ?? ''));
    if (!overQuota) return undefined;
    const retryAfterMs = parseRetryAfter(headers.get('retry-after'), now);
    return new ConnectorError('rate_limited', `${SERVICE} is rate limiting us (403): ${error.message}`, retryAfterMs === undefined ? {} : { retryAfterMs });
  },
});

/** One API call with the account's access token; a 401 on a token already held gets one more try with a new one. */
function call<T>(ctx: ConnectorContext, request: HttpRequest<T>): Promise<T> {
  return withAccessToken(ctx, 'google', async (token) => (await client.request(ctx, { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } })).data);
}

async function query(ctx: ConnectorContext, siteUrl: string, body: SearchAnalyticsQuery): Promise<SearchRow[]> {
  const path = `/webmasters/v3/sites/${encodeURIComponent(siteUrl)}/searchAnalytics/query`;
  return (await call(ctx, { method: 'POST', path, body, schema: searchAnalytics })).rows ?? [];
}

/** Google Search Console (Search Analytics), signed in with an OAuth 2.0 refresh token. */
export const google: SeoConnector = {
  service: 'google',
  defaultBaseUrl: 'https://www.googleapis.com',
  // Search Analytics allows 1,200 queries a minute per site and per user.
  rateLimit: { limit: 1200, windowMs: MINUTE_MS },

  /** The properties this account can see: the token refresh and the API scope in one call. */
  async test(ctx) {
    await call(ctx, { path: '/webmasters/v3/sites', schema: siteList });
  },

  /**
   * Top 25 queries (Google orders them by clicks) and the property's totals over the last 28 days of
   * final data; see `searchWindow` for the dates.
   */
  async seo(ctx, { siteUrl, now }) {
    const window = searchWindow(now);
    const base = { ...window, type: 'web', dataState: 'final' } as const;
    const [queryRows, totalRows] = await Promise.all([
      query(ctx, siteUrl, { ...base, dimensions: ['query'], rowLimit: TOP_QUERIES }),
      query(ctx, siteUrl, { ...base, dimensions: [] }),
    ]);
    return toSeo(queryRows, totalRows);
  },

  history: {
    // Search Console keeps 16 months; older days are gone unless stored.
    seriesDays: 480,
    /**
     * Clicks, impressions, ctr and position per day from one `date` query: `from` and `to` are Pacific days, as
     * Google counts them, and `dataState: 'all'` brings the fresh days the widget's final data leaves out (the
     * daily snapshot re-reads them as they settle). Google leaves a day without data out: that day is a gap.
     */
    async series(ctx, { siteUrl, from, to }) {
      if (from > to) return [];
      const rows = await collectPages<SearchRow, number>(
        0,
        async (startRow = 0) => {
          const page = await query(ctx, siteUrl, { startDate: from, endDate: to, dimensions: ['date'], type: 'web', dataState: 'all', rowLimit: DAY_ROWS, startRow });
          return { items: page, next: page.length === DAY_ROWS ? startRow + DAY_ROWS : undefined };
        },
        { maxPages: 3 },
      );
      return dailyValues(rows, from, to);
    },
  },
};
