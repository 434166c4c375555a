import { analyticsSchema } from '@dash/contracts';
import { umamiDocumented as documented } from '@dash/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { insaneValues } from '@dash/sandbox/contract';
import { documentedContext, serveDocumented, type DocumentedAnswer } from '../documented-testing.ts';
import { umami } from './index.ts';

const SITE = '86d4095c-a2a8-4fc8-9521-103e858e2b41';
const site = `/websites/${SITE}`;

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** An Umami server (Cloud's `/v1` paths) answering each call with the given documented example. */
async function documentedUmami(answers: Record<string, DocumentedAnswer>) {
  const server = await serveDocumented(Object.fromEntries(Object.entries(answers).map(([path, answer]) => [`/v1${path}`, answer])));
  close = () => server.close();
  return { ctx: documentedContext(`${server.url}/v1`), server };
}

const currentServer = {
  '/websites': documented.websites,
  [`${site}/stats`]: documented.stats,
  [`${site}/metrics/expanded`]: documented.metricsExpanded,
  [`${site}/metrics`]: documented.metrics,
  [`${site}/pageviews`]: documented.pageviews,
  [`${site}/active`]: documented.active,
};

describe('Umami connector, on the examples of Umami’s documentation', () => {
  it('shows the current docs’ stats, top pages, referrers, chart and live visitors with the printed numbers', async () => {
    const { ctx } = await documentedUmami(currentServer);
    // The documented chart's days are 19 to 21 October 2025.
    const out = await umami.analytics(ctx, { siteId: SITE, range: '7d', now: Date.UTC(2025, 9, 21, 12) });
    expect(analyticsSchema.parse(out)).toEqual(out);
    expect(out).toMatchObject({ visitors: 4415, sessions: 5680, pageViews: 15171, liveVisitors: 5 });
    // 3567 bounces in 5680 visits; 809968 s over 5680 visits.
    expect([out.bounceRate, out.avgDuration]).toEqual([62.8, 143]);
    expect(out.topPages[0]).toEqual({ path: 'Mac OS', views: 74020, uniqueVisitors: 16982 });
    expect(out.topPages).toHaveLength(5);
    expect(out.referrers[0]).toEqual({ source: 'Mac OS', visitors: 1918 });
    expect(out.referrers).toHaveLength(7);
    expect(out.chart?.slice(-3)).toEqual([
      { date: '2025-10-19', visitors: 1397 },
      { date: '2025-10-20', visitors: 1880 },
      { date: '2025-10-21', visitors: 1469 },
    ]);
    expect(insaneValues(out)).toEqual([]);
  });

  it('reads the stats of Umami Cloud’s API changelog the same way', async () => {
    const { ctx } = await documentedUmami({ ...currentServer, [`${site}/stats`]: documented.cloudStats });
    const out = await umami.analytics(ctx, { siteId: SITE, range: '7d', now: Date.UTC(2025, 9, 21, 12) });
    expect(out).toMatchObject({ visitors: 9401, sessions: 12726, pageViews: 34210, bounceRate: 62.2, avgDuration: 410 });
  });

  it('shows a v2 server’s documented `{ value, prev }` stats, `url` pages, hourly chart and `{ x }` live count', async () => {
    // v2 has no metrics/expanded: the server answers 404 there and the connector asks for the `url` metric.
    const { ctx, server } = await documentedUmami({
      [`${site}/stats`]: documented.v2Stats,
      [`${site}/metrics`]: documented.v2Metrics,
      [`${site}/pageviews`]: documented.v2Pageviews,
      [`${site}/active`]: documented.v2Active,
    });
    const out = await umami.analytics(ctx, { siteId: SITE, range: '7d', now: Date.UTC(2020, 3, 21, 12) });
    expect(analyticsSchema.parse(out)).toEqual(out);
    expect(out).toMatchObject({ visitors: 847, sessions: 984, pageViews: 3018, bounceRate: 54.6, avgDuration: 153, liveVisitors: 5 });
    expect(out.topPages).toEqual([
      { path: '/', views: 46, uniqueVisitors: 46 },
      { path: '/docs', views: 17, uniqueVisitors: 17 },
      { path: '/download', views: 14, uniqueVisitors: 14 },
    ]);
    // Two hourly buckets of 20 April (2 and 4 visitors) make one day.
    expect(out.chart?.find((point) => point.date === '2020-04-20')).toEqual({ date: '2020-04-20', visitors: 6 });
    expect(insaneValues(out)).toEqual([]);
    expect(server.paths.filter((path) => path.endsWith('/metrics/expanded'))).toHaveLength(1);
  });

  it('passes the credential test on the documented website list', async () => {
    const { ctx, server } = await documentedUmami(currentServer);
    await expect(umami.test(ctx)).resolves.toBeUndefined();
    expect(server.paths).toEqual(['/v1/websites']);
  });

  it('reads the documented page views series into visitors (its sessions) and page views per day', async () => {
    const { ctx, server } = await documentedUmami(currentServer);
    const values = await umami.history?.series(ctx, { siteId: SITE, from: '2025-10-19', to: '2025-10-21', now: Date.UTC(2025, 9, 21, 12) });
    const day = (metric: 'analytics.visitors' | 'analytics.pageviews', date: string, value: number) => ({ metric, date, value });
    expect(values).toEqual([
      day('analytics.visitors', '2025-10-19', 1397),
      day('analytics.visitors', '2025-10-20', 1880),
      day('analytics.visitors', '2025-10-21', 1469),
      day('analytics.pageviews', '2025-10-19', 4129),
      day('analytics.pageviews', '2025-10-20', 6105),
      day('analytics.pageviews', '2025-10-21', 4936),
    ]);
    expect(server.paths).toEqual([`/v1${site}/pageviews`]);
  });

  it('reads the live count from both documented shapes of `active`', async () => {
    for (const active of [documented.active, documented.v2Active]) {
      const { ctx } = await documentedUmami({ [`${site}/active`]: active });
      expect(await umami.live?.(ctx, { siteId: SITE })).toBe(5);
      await close?.();
      close = undefined;
    }
  });
});
