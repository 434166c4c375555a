import { demoProducts, sandboxTokens, seededRandom } from '../demo.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';
import { dailyTraffic, liveVisitors, splitByWeight, totalsBetween, type DayTraffic, type TrafficProfile } from './traffic.ts';

const HOUR_MS = 3_600_000;

const INVALID_KEY = "Invalid API key or site ID. Please make sure you're using a valid API key with access to the site you've requested.";
const MISSING_KEY = 'Missing API key. Please use a valid Plausible API key as a Bearer Token.';
const MISSING_SITE = 'Missing site ID. Please provide the required site_id parameter with your request.';

const weekdayHeavy = [0.62, 1.08, 1.12, 1.1, 1.04, 0.92, 0.58] as const;
const weekendHeavy = [1.22, 0.9, 0.88, 0.9, 0.94, 1.05, 1.3] as const;

interface SiteStory {
  profile: TrafficProfile;
  pages: { path: string; weight: number }[];
  sources: { name: string; weight: number }[];
}

/** Each demo product's website as Plausible sees it (siteId = the domain, as in demo.ts). */
const stories: Record<string, SiteStory> = {
  'pocketledger.app': {
    // A bad deploy 12 days ago dropped the script for a day: Plausible has no bucket for it.
    profile: { base: 420, launchedDaysAgo: 900, weekly: weekendHeavy, pagesPerVisit: 2.3, bounceRate: 0.46, avgDuration: 104, gaps: [12], spikes: [{ daysAgo: 41, factor: 3.2 }] },
    pages: [
      { path: '/', weight: 40 },
      { path: '/pricing', weight: 14 },
      { path: '/features', weight: 10 },
      { path: '/blog/zero-based-budgeting', weight: 9 },
      { path: '/download', weight: 8 },
      { path: '/blog/envelope-method-in-2025', weight: 6 },
      { path: '/support', weight: 4 },
      { path: '/blog/sync-your-bank', weight: 3.5 },
      { path: '/changelog', weight: 2.5 },
      { path: '/privacy', weight: 2 },
      { path: '/about', weight: 1.5 },
      { path: '/press', weight: 0.6 },
    ],
    sources: [
      { name: 'Direct / None', weight: 34 },
      { name: 'Google', weight: 30 },
      { name: 'apps.apple.com', weight: 9 },
      { name: 'Reddit', weight: 8 },
      { name: 'DuckDuckGo', weight: 4 },
      { name: 'Bing', weight: 3 },
      { name: 'Twitter', weight: 2.5 },
      { name: 'Hacker News', weight: 2 },
      { name: 'Facebook', weight: 1.5 },
      { name: 'Product Hunt', weight: 1.2 },
      { name: 'Newsletter', weight: 0.8 },
      { name: 'Ecosia', weight: 0.4 },
    ],
  },
  'formfox.io': {
    // Launched on Hacker News 9 days ago.
    profile: { base: 610, launchedDaysAgo: 600, weekly: weekdayHeavy, pagesPerVisit: 2.8, bounceRate: 0.38, avgDuration: 142, spikes: [{ daysAgo: 9, factor: 6.5 }, { daysAgo: 8, factor: 2.4 }] },
    pages: [
      { path: '/', weight: 34 },
      { path: '/pricing', weight: 16 },
      { path: '/templates', weight: 11 },
      { path: '/signup', weight: 9 },
      { path: '/templates/contact-form', weight: 7 },
      { path: '/docs', weight: 6 },
      { path: '/docs/webhooks', weight: 4 },
      { path: '/blog/form-conversion-tips', weight: 3.5 },
      { path: '/integrations/zapier', weight: 3 },
      { path: '/compare/typeform', weight: 2.5 },
      { path: '/changelog', weight: 1.5 },
      { path: '/login', weight: 1.2 },
    ],
    sources: [
      { name: 'Google', weight: 31 },
      { name: 'Direct / None', weight: 27 },
      { name: 'Hacker News', weight: 14 },
      { name: 'Reddit', weight: 6 },
      { name: 'Twitter', weight: 5 },
      { name: 'GitHub', weight: 4 },
      { name: 'Bing', weight: 3 },
      { name: 'LinkedIn', weight: 2.5 },
      { name: 'Product Hunt', weight: 2 },
      { name: 'DuckDuckGo', weight: 1.8 },
      { name: 'zapier.com', weight: 1.2 },
      { name: 'Indie Hackers', weight: 0.8 },
    ],
  },
  'tideline.app': {
    profile: { base: 260, launchedDaysAgo: 1400, weekly: weekendHeavy, pagesPerVisit: 1.9, bounceRate: 0.55, avgDuration: 76 },
    pages: [
      { path: '/', weight: 26 },
      { path: '/tides/san-francisco', weight: 15 },
      { path: '/tides/brighton', weight: 11 },
      { path: '/download', weight: 9 },
      { path: '/moon-phases', weight: 8 },
      { path: '/tides/cape-cod', weight: 7 },
      { path: '/open-data', weight: 5 },
      { path: '/blog/reading-tide-tables', weight: 4 },
      { path: '/tides/sydney', weight: 3.5 },
      { path: '/pricing', weight: 2.5 },
      { path: '/support', weight: 1.5 },
      { path: '/privacy', weight: 1 },
    ],
    sources: [
      { name: 'Google', weight: 44 },
      { name: 'Direct / None', weight: 24 },
      { name: 'apps.apple.com', weight: 7 },
      { name: 'play.google.com', weight: 6 },
      { name: 'Reddit', weight: 5 },
      { name: 'GitHub', weight: 3.5 },
      { name: 'Bing', weight: 3 },
      { name: 'DuckDuckGo', weight: 2.5 },
      { name: 'Hacker News', weight: 1.5 },
      { name: 'opencollective.com', weight: 1.2 },
      { name: 'Facebook', weight: 1 },
      { name: 'Mastodon', weight: 0.6 },
    ],
  },
};

const KNOWN_METRICS = ['visitors', 'visits', 'pageviews', 'bounce_rate', 'visit_duration', 'views_per_visit', 'events'] as const;
type Metric = (typeof KNOWN_METRICS)[number];
const SESSION_METRICS: readonly Metric[] = ['bounce_rate', 'visit_duration', 'views_per_visit'];
const DIMENSIONS = ['event:page', 'visit:source', 'time:day'] as const;
type Dimension = (typeof DIMENSIONS)[number];
const PRESETS: Record<string, number> = { day: 1, '7d': 7, '28d': 28, '30d': 30, '91d': 91 };
/** The `include` options the public API takes (the schema's others are internal). */
const INCLUDES = ['time_labels', 'imports', 'total_rows'];

const bad = (error: string): SandboxReply => ({ status: 400, body: { error } });

interface Site {
  story: SiteStory;
  days: DayTraffic[];
  live: number;
}

interface Query {
  siteId: string;
  metrics: Metric[];
  from: string;
  to: string;
  dateRange: unknown;
  dimension: Dimension | undefined;
  order: [string, 'asc' | 'desc'] | undefined;
  limit: number;
  offset: number;
  /** `include.time_labels`: every bucket of the range under `meta.time_labels`. */
  timeLabels: boolean;
  totalRows: boolean;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Every day from one date to another, both included. */
function daysFrom(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += 86_400_000) days.push(isoDay(at));
  return days;
}

/** The v2 query body checked as Plausible's schema does; a reply when it is not a query Plausible runs. */
function parseQuery(body: unknown, now: number, firstDay: string): Query | SandboxReply {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('#: Expected a JSON object as the query');
  const q = body as Record<string, unknown>;
  const metrics = q.metrics;
  if (!Array.isArray(metrics) || metrics.length === 0) return bad('#/metrics: Expected a non-empty list of metrics');
  for (const [i, metric] of metrics.entries()) {
    if (!KNOWN_METRICS.includes(metric as Metric)) return bad(`#/metrics/${i}: Invalid metric ${JSON.stringify(metric)}`);
  }
  const dimensions = q.dimensions ?? [];
  if (!Array.isArray(dimensions) || dimensions.length > 1) return bad('#/dimensions: The sandbox answers at most one dimension');
  const dimension = dimensions[0] as Dimension | undefined;
  if (dimension !== undefined && !DIMENSIONS.includes(dimension)) return bad(`#/dimensions/0: Invalid dimension ${JSON.stringify(dimension)}`);
  const sessionMetrics = (metrics as Metric[]).filter((m) => SESSION_METRICS.includes(m));
  if (dimension === 'event:page' && sessionMetrics.length > 0) {
    return bad(`Session metric(s) \`${sessionMetrics.join(', ')}\` cannot be queried along with event dimensions.`);
  }
  const today = isoDay(now);
  let from: string;
  let to: string;
  const range = q.date_range;
  if (Array.isArray(range) && range.length === 2 && range.every((d) => typeof d === 'string' && /^\d{4}-\d{2}-\d{2}/.test(d))) {
    [from, to] = [(range[0] as string).slice(0, 10), (range[1] as string).slice(0, 10)];
    if (from > to) return bad('#/date_range: Invalid date range, the first date must come before the second');
  } else if (range === 'all') {
    [from, to] = [firstDay, today];
  } else if (typeof range === 'string' && PRESETS[range]) {
    [from, to] = [isoDay(now - ((PRESETS[range] ?? 1) - 1) * 86_400_000), today];
  } else {
    return bad(`#/date_range: Invalid date range ${JSON.stringify(range)}`);
  }
  const pagination = (q.pagination ?? {}) as { limit?: unknown; offset?: unknown };
  const limit = pagination.limit === undefined ? 10_000 : Number(pagination.limit);
  const offset = pagination.offset === undefined ? 0 : Number(pagination.offset);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) return bad('#/pagination/limit: Expected an integer between 1 and 10000');
  if (!Number.isInteger(offset) || offset < 0) return bad('#/pagination/offset: Expected a non-negative integer');
  const order = Array.isArray(q.order_by) ? (q.order_by[0] as [string, 'asc' | 'desc'] | undefined) : undefined;
  const include = (q.include ?? {}) as Record<string, unknown>;
  if (typeof include !== 'object' || Array.isArray(include)) return bad('#/include: Type mismatch. Expected Object but got Array.');
  for (const [key, value] of Object.entries(include)) {
    if (!INCLUDES.includes(key)) return bad(`#/include: Schema does not allow additional properties. (${key})`);
    if (typeof value !== 'boolean') return bad(`#/include/${key}: Type mismatch. Expected Boolean but got ${typeof value}.`);
  }
  const timeLabels = include.time_labels === true;
  if (timeLabels && dimension !== 'time:day') return bad('Invalid include.time_labels: requires a time dimension.');
  return { siteId: String(q.site_id), metrics: metrics as Metric[], from, to, dateRange: range, dimension, order, limit, offset, timeLabels, totalRows: include.total_rows === true };
}

function metricValues(metrics: readonly Metric[], t: { visitors: number; visits: number; pageviews: number; bounces: number; totalDuration: number }): number[] {
  return metrics.map((metric) => {
    switch (metric) {
      case 'visitors':
        return t.visitors;
      case 'visits':
        return t.visits;
      case 'pageviews':
      case 'events':
        return t.pageviews;
      case 'bounce_rate':
        return t.visits === 0 ? 0 : Math.round((t.bounces / t.visits) * 100);
      case 'visit_duration':
        return t.visits === 0 ? 0 : Math.round(t.totalDuration / t.visits);
      case 'views_per_visit':
        return t.visits === 0 ? 0 : Math.round((t.pageviews / t.visits) * 100) / 100;
    }
  });
}

function runQuery(site: Site, query: Query): { rows: { metrics: number[]; dimensions: string[] }[]; total: number } {
  const totals = totalsBetween(site.days, query.from, query.to);
  const wobble = (seed: string) => (i: number) => 0.88 + seededRandom(`${seed}:${query.from}:${query.to}:${i}`)() * 0.24;
  if (query.dimension === undefined) return { rows: [{ metrics: metricValues(query.metrics, totals), dimensions: [] }], total: 1 };
  let rows: { metrics: number[]; dimensions: string[]; sortBy: Record<string, number | string> }[];
  if (query.dimension === 'time:day') {
    rows = site.days
      .filter((d) => d.date >= query.from && d.date <= query.to)
      .map((d) => ({ metrics: metricValues(query.metrics, d), dimensions: [d.date], sortBy: { 'time:day': d.date, visitors: d.visitors } }));
  } else {
    const isPage = query.dimension === 'event:page';
    const split = isPage
      ? splitByWeight(site.story.pages, totals.pageviews, wobble(`${query.siteId}:pages`)).map((p, i) => {
          // A page's unique visitors: most people see it once; the home page is seen again.
          const visitors = Math.round(p.share * (0.62 + seededRandom(`${p.path}:${i}`)() * 0.22));
          return { name: p.path, t: { visitors, visits: visitors, pageviews: p.share, bounces: 0, totalDuration: 0 } };
        })
      : splitByWeight(site.story.sources, totals.visitors, wobble(`${query.siteId}:sources`)).map((s) => {
          const share = s.share / Math.max(1, totals.visitors);
          const part = (n: number) => Math.round(n * share);
          return { name: s.name, t: { visitors: s.share, visits: part(totals.visits), pageviews: part(totals.pageviews), bounces: part(totals.bounces), totalDuration: part(totals.totalDuration) } };
        });
    rows = split
      .filter((row) => row.t.visitors > 0)
      .map((row) => ({ metrics: metricValues(query.metrics, row.t), dimensions: [row.name], sortBy: { [query.dimension ?? '']: row.name, visitors: row.t.visitors, pageviews: row.t.pageviews, visits: row.t.visits } }));
  }
  const [key, direction] = query.order ?? (query.dimension === 'time:day' ? ['time:day', 'asc'] : ['visitors', 'desc']);
  rows.sort((a, b) => {
    const [x, y] = [a.sortBy[key] ?? 0, b.sortBy[key] ?? 0];
    const cmp = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return direction === 'desc' ? -cmp : cmp;
  });
  return { rows: rows.slice(query.offset, query.offset + query.limit).map(({ metrics, dimensions }) => ({ metrics, dimensions })), total: rows.length };
}

/**
 * Plausible (`POST /api/v2/query`, `GET /api/v1/stats/realtime/visitors`) over the demo products'
 * websites. Its limit is 600 requests per key per hour in fixed hourly buckets, and a 429 has no
 * Retry-After and no rate-limit headers: only `{"error": "Too many API requests. ..."}`.
 */
export function plausibleService(now: number): SandboxService {
  const sites = new Map<string, Site>();
  for (const product of demoProducts) {
    for (const platform of product.analytics) {
      const story = stories[platform.siteId];
      if (platform.provider !== 'plausible' || !story) continue;
      const days = dailyTraffic(`plausible:${platform.siteId}`, now, story.profile);
      sites.set(platform.siteId, { story, days, live: liveVisitors(days, platform.siteId) });
    }
  }

  const siteOr = (siteId: string | null | undefined): Site | SandboxReply => {
    if (!siteId) return bad(MISSING_SITE);
    return sites.get(siteId) ?? { status: 401, body: { error: INVALID_KEY } };
  };

  return {
    name: 'plausible',
    basePath: '',
    authorize: (request) => request.headers.authorization === `Bearer ${sandboxTokens.plausible}`,
    unauthorized: (request) => ({ body: { error: /^Bearer\s+\S/.test(request.headers.authorization ?? '') ? INVALID_KEY : MISSING_KEY } }),
    rateLimit: {
      limit: 600,
      windowMs: HOUR_MS,
      tooMany: () => ({
        status: 429,
        body: { error: 'Too many API requests. Your API key is limited to 600 requests per hour. Please contact us to request more capacity.' },
      }),
    },
    routes: [
      {
        method: 'POST',
        path: '/api/v2/query',
        handle: (request: SandboxRequest) => {
          const siteId = (request.body as { site_id?: unknown } | undefined)?.site_id;
          const site = siteOr(typeof siteId === 'string' ? siteId : null);
          if (!('days' in site)) return site;
          const query = parseQuery(request.body, request.now, site.days[0]?.date ?? isoDay(request.now));
          if (!('siteId' in query)) return query;
          const { rows, total } = runQuery(site, query);
          // Plausible lists every day of the range here, the days it has no row for (no visitors) too.
          const meta = { ...(query.timeLabels ? { time_labels: daysFrom(query.from, query.to) } : {}), ...(query.totalRows ? { total_rows: total } : {}) };
          return {
            body: {
              results: rows,
              meta,
              query: {
                site_id: query.siteId,
                metrics: query.metrics,
                date_range: [`${query.from}T00:00:00Z`, `${query.to}T23:59:59Z`],
                filters: [],
                dimensions: query.dimension ? [query.dimension] : [],
                order_by: query.order ? [query.order] : [],
                // Plausible echoes the include options that are on.
                include: { ...(query.timeLabels ? { time_labels: true } : {}), ...(query.totalRows ? { total_rows: true } : {}) },
                pagination: { limit: query.limit, offset: query.offset },
              },
            },
          };
        },
      },
      {
        method: 'GET',
        path: '/api/v1/stats/realtime/visitors',
        handle: (request) => {
          const site = siteOr(request.query.get('site_id'));
          return 'days' in site ? { body: site.live } : site;
        },
      },
    ],
  };
}
