import type { AnalyticsConnector } from '../connector.ts';
import type { ConnectorContext } from '../context.ts';
import { daysOf } from '../dates.ts';
import { ConnectorError } from '../errors.ts';
import { collectPages, defineClient, parseRetryAfter, type ClientSpec } from '../http.ts';
import { AGGREGATE_METRICS, dailyValues, toReferrers, toTopPages, toTotals, visitorChart, visitorsPerDay } from './map.ts';
import { errorBody, queryResult, realtimeVisitors, type PlausibleQuery, type PlausibleResult, type PlausibleRow } from './schemas.ts';
import { readableWindow } from '../series.ts';

const SERVICE = 'Plausible';
const HOUR_MS = 3_600_000;
/** Rows per page of the daily chart: `all` (five years of days) takes a few pages. */
export const CHART_PAGE_SIZE = 500;

const reasonOf = (body: unknown): string | undefined => {
  const parsed = errorBody.safeParse(body);
  return parsed.success ? parsed.data.error : undefined;
};

/**
 * Plausible counts requests per key in fixed one-hour buckets (`Plausible.RateLimit`: bucket =
 * now div 1 h) and its 429 carries no Retry-After: the budget comes back at the top of the next hour.
 * A Retry-After, when a proxy in front of a self-hosted instance sends one, wins.
 */
export function plausibleRetryAfterMs(headers: Headers, now: number): number {
  return parseRetryAfter(headers.get('retry-after'), now) ?? (Math.floor(now / HOUR_MS) + 1) * HOUR_MS - now;
}

const spec: ClientSpec = {
  service: SERVICE,
  headers: (credentials) => ({ authorization: `Bearer ${credentials.apiKey ?? ''}` }),
  errorMessage: reasonOf,
  classify(status, headers, body, now) {
    if (status !== 429) return undefined;
    const reason = reasonOf(body);
    return new ConnectorError('rate_limited', `${SERVICE} is rate limiting us (429)${reason ? `: ${reason}` : ''}`, {
      retryAfterMs: plausibleRetryAfterMs(headers, now),
    });
  },
};
const client = defineClient(spec);

async function ask(ctx: ConnectorContext, body: PlausibleQuery): Promise<PlausibleResult> {
  return (await client.request(ctx, { method: 'POST', path: '/api/v2/query', body, schema: queryResult })).data;
}

async function query(ctx: ConnectorContext, body: PlausibleQuery): Promise<PlausibleRow[]> {
  return (await ask(ctx, body)).results;
}

/** Plausible (plausible.io or self-hosted CE): Stats API v2 for the numbers, v1 realtime for live visitors. */
export const plausible: AnalyticsConnector = {
  service: 'plausible',
  defaultBaseUrl: 'https://plausible.io',
  rateLimit: { limit: 600, windowMs: HOUR_MS },

  /**
   * The key alone, without a site: Plausible checks the Bearer key before the site, so a good key
   * without `site_id` is answered 400 "Missing site ID" and a bad one 401. Sites API listing would be
   * cleaner but plausible.io only (not Community Edition).
   */
  async test(ctx) {
    try {
      await client.get(ctx, '/api/v1/stats/realtime/visitors', {}, realtimeVisitors);
    } catch (error) {
      if (error instanceof ConnectorError && error.kind === 'upstream' && !error.retryable && /missing site id/i.test(error.message)) return;
      throw error;
    }
  },

  async analytics(ctx, { siteId, range, now }) {
    const days = daysOf(range, now);
    const base = { site_id: siteId, date_range: [days[0] ?? '', days.at(-1) ?? ''] as [string, string] };
    const top = { order_by: [['visitors', 'desc']] as [string, 'desc'][], pagination: { limit: 10, offset: 0 } };
    const [totals, pages, sources, daily, live] = await Promise.all([
      query(ctx, { ...base, metrics: [...AGGREGATE_METRICS] }),
      // Session metrics (bounce_rate, visit_duration) cannot go with event:page: pages get their own.
      query(ctx, { ...base, metrics: ['visitors', 'pageviews'], dimensions: ['event:page'], ...top }),
      query(ctx, { ...base, metrics: ['visitors'], dimensions: ['visit:source'], ...top }),
      collectPages<PlausibleRow, number>(
        0,
        async (offset = 0) => {
          const rows = await query(ctx, {
            ...base,
            metrics: ['visitors'],
            dimensions: ['time:day'],
            order_by: [['time:day', 'asc']],
            pagination: { limit: CHART_PAGE_SIZE, offset },
          });
          return { items: rows, next: rows.length === CHART_PAGE_SIZE ? offset + CHART_PAGE_SIZE : undefined };
        },
        { maxPages: 10 },
      ),
      client.get(ctx, '/api/v1/stats/realtime/visitors', { site_id: siteId }, realtimeVisitors),
    ]);
    return {
      ...toTotals(totals[0]),
      liveVisitors: live,
      topPages: toTopPages(pages),
      referrers: toReferrers(sources),
      chart: visitorChart(range, now, visitorsPerDay(daily)),
    };
  },

  live: (ctx, { siteId }) => client.get(ctx, '/api/v1/stats/realtime/visitors', { site_id: siteId }, realtimeVisitors),

  history: {
    // Plausible keeps every day since the site was added; two years is what a backfill asks of it (two pages).
    seriesDays: 730,
    /**
     * Visitors and page views per day from one `time:day` query over the window, paged as the chart is. Plausible
     * leaves a day without visitors out of `results`; `include.time_labels` lists every day of the range it counted,
     * so a listed day without a row is 0 (Plausible's own chart draws it as 0), from the first day with a row on: see
     * `countedFromFirst` for the days before it. A server that sends no labels leaves such days as gaps.
     */
    async series(ctx, { siteId, ...window }) {
      const span = readableWindow(window);
      if (!span) return [];
      const labels: string[] = [];
      const rows = await collectPages<PlausibleRow, number>(
        0,
        async (offset = 0) => {
          const answer = await ask(ctx, {
            site_id: siteId,
            metrics: ['visitors', 'pageviews'],
            date_range: [span.from, span.to],
            dimensions: ['time:day'],
            order_by: [['time:day', 'asc']],
            include: { time_labels: true },
            pagination: { limit: CHART_PAGE_SIZE, offset },
          });
          if (offset === 0) labels.push(...(answer.meta?.time_labels ?? []));
          const page = answer.results;
          return { items: page, next: page.length === CHART_PAGE_SIZE ? offset + CHART_PAGE_SIZE : undefined };
        },
        { maxPages: Math.ceil((Date.parse(span.to) - Date.parse(span.from)) / (CHART_PAGE_SIZE * 86_400_000)) + 1 },
      );
      return dailyValues(rows, labels, span);
    },
  },
};
