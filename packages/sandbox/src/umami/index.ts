import { DAY_MS, demoProducts, sandboxTokens, seededRandom } from '../demo.ts';
import { dailyTraffic, liveVisitors, splitByWeight, totalsBetween, type DayTraffic, type TrafficProfile } from '../plausible/traffic.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';

/**
 * TEST SWITCH: a request with header `x-sandbox-umami-shape: old` is answered as an Umami v2 server
 * would: stats as `{ value, prev }` pairs, `active` as `{ x }`, page metric type `url` counting views
 * (no `path` type, no `/metrics/expanded`), chart buckets as "YYYY-MM-DD HH:mm:ss", errors as plain
 * text. Without it the fake is current Umami (v3 / Cloud). Real Umami has no such header.
 */
export const UMAMI_SHAPE_HEADER = 'x-sandbox-umami-shape';

const weekendHeavy = [1.25, 0.92, 0.9, 0.9, 0.95, 1.04, 1.28] as const;

interface AppStory {
  name: string;
  domain: string;
  profile: TrafficProfile;
  screens: { path: string; weight: number }[];
  referrers: { name: string; weight: number }[];
}

/** The demo products' apps as their Umami websites (ids as in demo.ts). */
const stories: Record<string, AppStory> = {
  '3f1c2a9e-6d4b-4e1f-9a7c-2b5d8e0f1a34': {
    name: 'Pocket Ledger iOS',
    domain: 'ios.pocketledger.app',
    // Featured in the App Store's "Apps We Love" 20 days ago.
    profile: { base: 950, launchedDaysAgo: 700, weekly: weekendHeavy, pagesPerVisit: 4.6, bounceRate: 0.21, avgDuration: 186, spikes: [{ daysAgo: 20, factor: 2.6 }, { daysAgo: 19, factor: 1.7 }] },
    screens: [
      { path: '/budgets', weight: 26 },
      { path: '/transactions', weight: 21 },
      { path: '/transactions/new', weight: 14 },
      { path: '/accounts', weight: 9 },
      { path: '/bills', weight: 7 },
      { path: '/reports/monthly', weight: 6 },
      { path: '/onboarding', weight: 4 },
      { path: '/goals', weight: 3.5 },
      { path: '/paywall', weight: 3 },
      { path: '/settings', weight: 2.5 },
      { path: '/settings/sync', weight: 1.5 },
      { path: '/search', weight: 1 },
    ],
    referrers: [
      { name: 'apps.apple.com', weight: 38 },
      { name: 'google.com', weight: 17 },
      { name: 'pocketledger.app', weight: 14 },
      { name: 'reddit.com', weight: 9 },
      { name: 'news.ycombinator.com', weight: 5 },
      { name: 't.co', weight: 4 },
      { name: 'duckduckgo.com', weight: 3 },
      { name: 'producthunt.com', weight: 2.5 },
      { name: 'facebook.com', weight: 2 },
      { name: 'bing.com', weight: 1.5 },
      { name: 'youtube.com', weight: 1 },
      { name: 'linkedin.com', weight: 0.5 },
    ],
  },
  '8a0e4c71-2f9d-4b3a-8e6c-5d1f7a2b9c03': {
    name: 'Tideline Android',
    domain: 'android.tideline.app',
    // Release 2.13.1 shipped without the analytics SDK 33 days ago and 2.13.2 put it back the next day: no events that day.
    profile: { base: 540, launchedDaysAgo: 800, weekly: weekendHeavy, pagesPerVisit: 3.1, bounceRate: 0.3, avgDuration: 97, gaps: [33] },
    screens: [
      { path: '/today', weight: 33 },
      { path: '/tides', weight: 19 },
      { path: '/stations/search', weight: 10 },
      { path: '/moon', weight: 9 },
      { path: '/stations/favorites', weight: 8 },
      { path: '/forecast/week', weight: 6 },
      { path: '/widgets', weight: 4 },
      { path: '/paywall', weight: 3 },
      { path: '/onboarding', weight: 3 },
      { path: '/settings', weight: 2.5 },
      { path: '/about/open-data', weight: 1 },
      { path: '/settings/units', weight: 0.8 },
    ],
    referrers: [
      { name: 'play.google.com', weight: 41 },
      { name: 'google.com', weight: 20 },
      { name: 'tideline.app', weight: 12 },
      { name: 'reddit.com', weight: 8 },
      { name: 'github.com', weight: 4 },
      { name: 'news.ycombinator.com', weight: 3 },
      { name: 'opencollective.com', weight: 2.5 },
      { name: 'duckduckgo.com', weight: 2 },
      { name: 'facebook.com', weight: 1.5 },
      { name: 'bing.com', weight: 1.2 },
      { name: 'apps.apple.com', weight: 1 },
      { name: 'mastodon.social', weight: 0.6 },
    ],
  },
};

interface Website {
  story: AppStory;
  days: DayTraffic[];
  live: number;
  createdAt: string;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const isOld = (request: SandboxRequest) => request.headers[UMAMI_SHAPE_HEADER] === 'old';

/** Umami's own error replies: `{ error: { message, code, status } }` now, plain text on v2. */
const errorReply = (request: SandboxRequest, status: number, message: string, code: string): SandboxReply =>
  isOld(request) ? { status, body: message } : { status, body: { error: { message, code, status } } };
const badRequest = (request: SandboxRequest) => errorReply(request, 400, 'Bad request', 'bad-request');

/**
 * Umami (Cloud API `https://api.umami.is/v1`: `/websites`, `/websites/:id/stats|metrics|metrics/expanded|
 * pageviews|active`) over the demo products' apps. Accepts the Cloud header `x-umami-api-key` and, as
 * a self-hosted server does, `Authorization: Bearer`.
 */
export function umamiService(now: number): SandboxService {
  const websites = new Map<string, Website>();
  for (const product of demoProducts) {
    for (const platform of product.analytics) {
      const story = stories[platform.siteId];
      if (platform.provider !== 'umami' || !story) continue;
      const days = dailyTraffic(`umami:${platform.siteId}`, now, story.profile);
      websites.set(platform.siteId, {
        story,
        days,
        live: liveVisitors(days, platform.siteId),
        createdAt: new Date(now - (story.profile.launchedDaysAgo + 3) * DAY_MS).toISOString(),
      });
    }
  }

  /** The website and the requested window (epoch ms), or Umami's answer when either is wrong. */
  function windowOf(request: SandboxRequest): { site: Website; from: string; to: string; startAt: number; endAt: number } | SandboxReply {
    const site = websites.get(request.params.id ?? '');
    // Umami answers a website the key cannot see (or that does not exist) with 401.
    if (!site) return errorReply(request, 401, 'Unauthorized', 'unauthorized');
    const startAt = Number(request.query.get('startAt'));
    const endAt = Number(request.query.get('endAt'));
    if (!request.query.get('startAt') || !request.query.get('endAt') || !Number.isFinite(startAt) || !Number.isFinite(endAt) || startAt > endAt) {
      return badRequest(request);
    }
    return { site, from: isoDay(startAt), to: isoDay(endAt), startAt, endAt };
  }

  const wobble = (seed: string) => (i: number) => 0.88 + seededRandom(`${seed}:${i}`)() * 0.24;

  return {
    name: 'umami',
    basePath: '/v1',
    authorize: (request) =>
      request.headers['x-umami-api-key'] === sandboxTokens.umami || request.headers.authorization === `Bearer ${sandboxTokens.umami}`,
    unauthorized: (request) => errorReply(request, 401, 'Unauthorized', 'unauthorized'),
    // Umami Cloud: 50 calls per 15 s per key. The 429's body is Umami's own `tooManyRequests()`; the
    // Retry-After header is an assumption (Cloud documents the limit, not its headers).
    rateLimit: {
      limit: 50,
      windowMs: 15_000,
      tooMany: (retryAfterMs) => ({
        status: 429,
        headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
        body: { error: { message: 'Too many requests', code: 'too-many-requests', status: 429 } },
      }),
    },
    routes: [
      {
        method: 'GET',
        path: '/websites',
        handle: (request) => {
          const pageSize = Math.max(1, Number(request.query.get('pageSize') ?? 20) || 20);
          const page = Math.max(1, Number(request.query.get('page') ?? 1) || 1);
          const all = [...websites.entries()].map(([id, w]) => ({
            id,
            name: w.story.name,
            domain: w.story.domain,
            shareId: null,
            resetAt: null,
            userId: '41e2b680-648e-4b09-bcd7-3e2b10c06264',
            teamId: null,
            createdBy: '41e2b680-648e-4b09-bcd7-3e2b10c06264',
            createdAt: w.createdAt,
            updatedAt: w.createdAt,
            deletedAt: null,
            // The docs' list answer names each website's owner.
            user: { username: 'founder@example.com', id: '41e2b680-648e-4b09-bcd7-3e2b10c06264' },
          }));
          return { body: { data: all.slice((page - 1) * pageSize, page * pageSize), count: all.length, page, pageSize } };
        },
      },
      {
        method: 'GET',
        path: '/websites/:id/stats',
        handle: (request) => {
          const w = windowOf(request);
          if (!('site' in w)) return w;
          const current = totalsBetween(w.site.days, w.from, w.to);
          const span = w.endAt - w.startAt;
          const prev = totalsBetween(w.site.days, isoDay(w.startAt - span - 1), isoDay(w.startAt - 1));
          const keys = [['pageviews', 'pageviews'], ['visitors', 'visitors'], ['visits', 'visits'], ['bounces', 'bounces'], ['totaltime', 'totalDuration']] as const;
          if (isOld(request)) return { body: Object.fromEntries(keys.map(([name, key]) => [name, { value: current[key], prev: prev[key] }])) };
          return { body: { ...Object.fromEntries(keys.map(([name, key]) => [name, current[key]])), comparison: Object.fromEntries(keys.map(([name, key]) => [name, prev[key]])) } };
        },
      },
      {
        method: 'GET',
        path: '/websites/:id/metrics',
        handle: (request) => {
          const w = windowOf(request);
          if (!('site' in w)) return w;
          const type = request.query.get('type');
          const limit = Math.max(1, Number(request.query.get('limit') ?? 500) || 500);
          const totals = totalsBetween(w.site.days, w.from, w.to);
          const seed = `${request.params.id}:${w.from}:${w.to}`;
          // v3 renamed the page type `url` to `path` and counts distinct visitors per page; v2 counted views.
          const pageType = isOld(request) ? 'url' : 'path';
          let rows: { x: string; y: number }[];
          if (type === pageType) {
            rows = splitByWeight(w.site.story.screens, totals.pageviews, wobble(`${seed}:pages`)).map((s) => ({
              x: s.path,
              y: isOld(request) ? s.share : Math.round(s.share * (0.55 + seededRandom(s.path)() * 0.2)),
            }));
          } else if (type === 'referrer') {
            rows = splitByWeight(w.site.story.referrers, Math.round(totals.visitors * 0.46), wobble(`${seed}:refs`)).map((r) => ({ x: r.name, y: r.share }));
          } else {
            return badRequest(request);
          }
          return { body: rows.filter((r) => r.y > 0).sort((a, b) => b.y - a.y).slice(0, limit) };
        },
      },
      {
        method: 'GET',
        path: '/websites/:id/metrics/expanded',
        handle: (request) => {
          // Umami v2 has no expanded metrics: Next.js answers its 404 page.
          if (isOld(request)) return { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!DOCTYPE html><title>404: This page could not be found.</title>' };
          const w = windowOf(request);
          if (!('site' in w)) return w;
          if (request.query.get('type') !== 'path') return badRequest(request);
          const limit = Math.max(1, Number(request.query.get('limit') ?? 500) || 500);
          const totals = totalsBetween(w.site.days, w.from, w.to);
          const rows = splitByWeight(w.site.story.screens, totals.pageviews, wobble(`${request.params.id}:${w.from}:${w.to}:pages`)).map((s) => {
            const visitors = Math.round(s.share * (0.55 + seededRandom(s.path)() * 0.2));
            const visits = Math.round(visitors * 1.3);
            return { name: s.path, pageviews: s.share, visitors, visits, bounces: Math.round(visits * 0.18), totaltime: Math.round(visits * 41) };
          });
          return { body: rows.filter((r) => r.pageviews > 0).sort((a, b) => b.visitors - a.visitors || b.visits - a.visits).slice(0, limit) };
        },
      },
      {
        method: 'GET',
        path: '/websites/:id/pageviews',
        handle: (request) => {
          const w = windowOf(request);
          if (!('site' in w)) return w;
          if (request.query.get('unit') !== 'day') return badRequest(request);
          const x = (date: string) => (isOld(request) ? `${date} 00:00:00` : `${date}T00:00:00Z`);
          const within = w.site.days.filter((d) => d.date >= w.from && d.date <= w.to);
          return { body: { pageviews: within.map((d) => ({ x: x(d.date), y: d.pageviews })), sessions: within.map((d) => ({ x: x(d.date), y: d.visitors })) } };
        },
      },
      {
        method: 'GET',
        path: '/websites/:id/active',
        handle: (request) => {
          const site = websites.get(request.params.id ?? '');
          if (!site) return errorReply(request, 401, 'Unauthorized', 'unauthorized');
          return { body: isOld(request) ? { x: site.live } : { visitors: site.live } };
        },
      },
    ],
  };
}
