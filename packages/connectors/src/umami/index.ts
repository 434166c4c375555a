import type { AnalyticsConnector } from '../connector.ts';
import type { ConnectorContext } from '../context.ts';
import { daysOf } from '../dates.ts';
import { ConnectorError } from '../errors.ts';
import { defineClient, type Client, type ClientSpec } from '../http.ts';
import { dailyValues, liveOf, pagesFromExpanded, pagesFromUrlMetric, toReferrers, toTotals, visitorChart } from './map.ts';
import { dayStart, nextDay, readableWindow, windowsOf } from '../series.ts';
import { active, errorBody, expandedRows, metricRows, pageviewSeries, stats, websiteList } from './schemas.ts';

const SERVICE = 'Umami';
const CLOUD_HOST = 'api.umami.is';
/**
 * Umami answers a series in the unit asked only when the range allows it, else silently in its smallest allowed one
 * (`getAllowedUnits`): day buckets up to six calendar months (some versions: 90 days), months beyond. A month's bucket
 * would read as its first day's, so a longer window is asked in parts of this many days.
 */
const DAY_UNIT_DAYS = 90;

function reasonOf(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  if (!parsed.success) return undefined;
  const error = parsed.data;
  if (typeof error === 'string') return error.slice(0, 200);
  if ('message' in error && typeof error.message === 'string') return error.message;
  const inner: unknown = error.error;
  if (typeof inner === 'string') return inner;
  return typeof inner === 'object' && inner !== null && 'message' in inner && typeof inner.message === 'string' ? inner.message : undefined;
}

const common: Omit<ClientSpec, 'headers'> = { service: SERVICE, errorMessage: reasonOf };
/** Umami Cloud takes its API key in `x-umami-api-key`. */
const cloud = defineClient({ ...common, headers: (credentials) => ({ 'x-umami-api-key': credentials.apiKey ?? '' }) });
/** A self-hosted server takes a login token (or, from 3.4, an API key) as a Bearer token. */
const selfHosted = defineClient({ ...common, headers: (credentials) => ({ authorization: `Bearer ${credentials.apiKey ?? ''}` }) });

export const isUmamiCloud = (baseUrl: string): boolean => {
  try {
    return new URL(baseUrl).hostname === CLOUD_HOST;
  } catch {
    return false;
  }
};
const clientFor = (ctx: ConnectorContext): Client => (isUmamiCloud(ctx.baseUrl) ? cloud : selfHosted);

/** The endpoint or metric type is one this server does not have (an older or newer version). */
const unsupported = (error: unknown) =>
  error instanceof ConnectorError && (error.kind === 'not_found' || (error.kind === 'upstream' && !error.retryable && /\(400\)/.test(error.message)));

/**
 * Umami (Cloud at api.umami.is/v1, or self-hosted at https://host/api): website stats, top pages,
 * referrers, the daily visitors chart and visitors active now.
 */
export const umami: AnalyticsConnector = {
  service: 'umami',
  defaultBaseUrl: 'https://api.umami.is/v1',
  // Umami Cloud: 50 calls per 15 s per key. Self-hosted servers have no limit of their own.
  rateLimit: { limit: 50, windowMs: 15_000 },

  async test(ctx) {
    await clientFor(ctx).get(ctx, '/websites', { pageSize: 1 }, websiteList);
  },

  async analytics(ctx, { siteId, range, now }) {
    const client = clientFor(ctx);
    const site = `/websites/${encodeURIComponent(siteId)}`;
    const days = daysOf(range, now);
    const window = { startAt: Date.parse(`${days[0] ?? ''}T00:00:00Z`), endAt: now };

    async function topPages() {
      try {
        // v3 answers views and distinct visitors per path in one call.
        return pagesFromExpanded(await client.get(ctx, `${site}/metrics/expanded`, { type: 'path', limit: 10, ...window }, expandedRows));
      } catch (error) {
        if (!unsupported(error)) throw error;
        // Before v3 there is no expanded metric and the page type is `url` (views only).
        return pagesFromUrlMetric(await client.get(ctx, `${site}/metrics`, { type: 'url', limit: 10, ...window }, metricRows));
      }
    }

    const [totals, pages, referrers, chart, live] = await Promise.all([
      client.get(ctx, `${site}/stats`, window, stats),
      topPages(),
      client.get(ctx, `${site}/metrics`, { type: 'referrer', limit: 10, ...window }, metricRows),
      client.get(ctx, `${site}/pageviews`, { unit: 'day', timezone: 'UTC', ...window }, pageviewSeries),
      client.get(ctx, `${site}/active`, {}, active),
    ]);
    return {
      ...toTotals(totals),
      liveVisitors: liveOf(live),
      topPages: pages,
      referrers: toReferrers(referrers),
      chart: visitorChart(range, now, chart.sessions),
    };
  },

  async live(ctx, { siteId }) {
    return liveOf(await clientFor(ctx).get(ctx, `/websites/${encodeURIComponent(siteId)}/active`, {}, active));
  },

  history: {
    // A year: five requests of Umami Cloud's 50 per 15 s.
    seriesDays: 365,
    /**
     * Page views and visitors per UTC day from the page views series (`unit=day`, `timezone=UTC`), in parts Umami
     * answers by day. Its `sessions` series counts each day's distinct sessions, which is what Umami's stats call
     * visitors (the widget's chart reads it the same way). Umami leaves a day without page views out and its own
     * chart draws it as 0: so does this, from the first day with a bucket on (`countedFromFirst`).
     */
    async series(ctx, { siteId, ...window }) {
      const span = readableWindow(window);
      if (!span) return [];
      const client = clientFor(ctx);
      const path = `/websites/${encodeURIComponent(siteId)}/pageviews`;
      const parts = await Promise.all(
        windowsOf(span, DAY_UNIT_DAYS).map(({ from, to }) =>
          client.get(ctx, path, { unit: 'day', timezone: 'UTC', startAt: dayStart(from), endAt: Math.min(window.now, dayStart(nextDay(to)) - 1) }, pageviewSeries),
        ),
      );
      return dailyValues(parts, span);
    },
  },
};
