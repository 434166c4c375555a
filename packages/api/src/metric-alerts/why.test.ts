import { describe, expect, it } from 'vitest';
import type { Analytics, DataResult, ErrorTracker, Shipping, Storefront } from '@dash/contracts';
import { testClock } from '@dash/connectors/testing';
import { demoSetup, demoUpstreamsOf } from '@dash/sandbox';
import { dataOf } from '../data/reads.ts';
import { events } from '../notifications/test-events.ts';
import { dataReadsOf } from '../router/data.ts';
import { startDemo } from '../router/demo.ts';
import { createTestApi } from '../testing.ts';
import { deliveryTests } from '../testing/delivery.ts';
import { whyLines } from './why.ts';

// The why lines of a metric alert over the demo's sandbox, through the real data procedures and cache: what a founder
// reads for a window (deploys, Sentry's new issues, a referrer that moved, an outage, the balance), the line for a window
// where nothing else moved, a source that fails named in one line, and what one alert costs the upstreams.

const DAY = 86_400_000;

// The sandbox and the clock read real time as if the file had begun at noon UTC: "yesterday" does not move mid-test.
const offset = Math.floor(Date.now() / DAY) * DAY + DAY / 2 - Date.now();
const atNoon = () => Date.now() + offset;

const { sandbox, cleanup } = deliveryTests({ now: atNoon });

async function withDemo(options: { fetch?: typeof fetch } = {}) {
  const clock = testClock(atNoon());
  const api = await createTestApi({ clock, demo: { setup: () => Promise.resolve(demoSetup(demoUpstreamsOf(sandbox))) }, ...options });
  cleanup(() => api.dispose());
  await startDemo(api.ctx);
  const reads = dataReadsOf(api.ctx);
  const now = clock.now();
  return { api, reads, now, why: (input: Omit<Parameters<typeof whyLines>[1], 'now'>) => whyLines(reads, { ...input, now }, { store: api.ctx.store }) };
}

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** "Mon 30 Nov", as a founder reads a day. */
const said = (iso: string) => new Date(iso).toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });
/** The last `n` whole days before now, newest first. */
const pastDays = (now: number, n: number) => Array.from({ length: n }, (_, i) => dateOf(now - (i + 1) * DAY));
/** A data procedure's answer for a demo project, which has every integration the tests read. */
function answerOf<T extends object>(result: DataResult<T>): T {
  const data = dataOf(result);
  if (!data) throw new Error('not configured');
  return data;
}

describe('why a metric moved', () => {
  it('lists the production deploys of the window, how many, on which day, and the latest one’s title', async () => {
    const { reads, why, now } = await withDemo();
    const shipping = answerOf<Shipping>(await reads.shipping({ project: 'formfox', limit: 200 }));
    const deploysOn = (day: string) => shipping.items.filter((item) => item.source === 'deploy_host' && item.shippedAt.startsWith(day));
    const day = pastDays(now, 6).find((d) => deploysOn(d).length >= 2);
    expect(day, 'formfox ships a dozen times a week: some day of the last six has two deploys').toBeDefined();
    const deploys = deploysOn(day as string);

    const lines = await why({ project: 'formfox', metric: 'shipping.deploys', from: day as string, to: day as string });
    expect(lines[0]).toBe(`${deploys.length} production deploys on ${said(deploys[0]?.shippedAt ?? '')} (latest: "${deploys[0]?.title}")`);
    expect(lines.length).toBeLessThanOrEqual(6);
  });

  it('keeps a stranger’s title plain text on one short line: not escaped, control characters gone, clipped at 80', async () => {
    // Every Formfox deploy's commit headline, as someone pushed it.
    const headline = `<b>Fix</b> "checkout" & \u202Espoof\u202C\ttotals ${'x'.repeat(100)}`;
    const pushed: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!url.includes('/v6/deployments')) return response;
      const page = (await response.json()) as { deployments: { meta?: Record<string, string> }[] };
      for (const deployment of page.deployments) deployment.meta = { ...deployment.meta, githubCommitMessage: headline };
      return new Response(JSON.stringify(page), { status: response.status, headers: { 'content-type': 'application/json' } });
    };
    const { reads, why, now } = await withDemo({ fetch: pushed });
    const shipping = answerOf<Shipping>(await reads.shipping({ project: 'formfox', limit: 200 }));
    const day = pastDays(now, 6).find((d) => shipping.items.some((item) => item.source === 'deploy_host' && item.shippedAt.startsWith(d))) as string;
    const lines = await why({ project: 'formfox', metric: 'shipping.deploys', from: day, to: day });
    const clipped = `<b>Fix</b> "checkout" & spoof totals ${'x'.repeat(42)}…`;
    expect([...clipped]).toHaveLength(80);
    expect(lines[0]).toMatch(/^\d+ production deploys? on /);
    expect(lines[0]).toContain(`"${clipped}"`);
  });

  it('names the Sentry issues first seen in the window, the busiest one first, when errors moved', async () => {
    const { reads, why, now } = await withDemo();
    const errors = answerOf<ErrorTracker>(await reads.errortracker({ project: 'pocket-ledger' }));
    const newOn = (day: string) => errors.issues.filter((issue) => issue.firstSeen.startsWith(day));
    const day = pastDays(now, 6).find((d) => newOn(d).length > 0) as string;
    expect(day).toBeDefined();
    const fresh = newOn(day).sort((a, b) => (b.count ?? 0) - (a.count ?? 0));
    const top = fresh[0];

    const lines = await why({ project: 'pocket-ledger', metric: 'errors.events', from: day, to: day });
    // The metric's own source comes first.
    expect(lines[0]).toMatch(new RegExp(`^Sentry: ${fresh.length} new issues?, "`));
    expect(lines[0]).toContain(`"${top?.title.slice(0, 60)}`);
    expect(lines[0]).toMatch(new RegExp(`" first seen ${said(top?.firstSeen ?? '')}, ${(top?.count ?? 0).toLocaleString('en-US')} events?$`));
  });

  it('says which referrer’s share moved, against the period before the window (Plausible)', async () => {
    // The fake's sources keep their shares; here Hacker News brings 1,500 more visitors over the last week, in the
    // sources of every range that covers it, as Plausible would count them.
    const extra = 1500;
    const tampered: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { site_id?: string; dimensions?: string[] }) : {};
      if (!url.endsWith('/api/v2/query') || body.site_id !== 'formfox.io' || body.dimensions?.[0] !== 'visit:source') return response;
      const answer = (await response.json()) as { results: { metrics: number[]; dimensions: string[] }[] };
      for (const row of answer.results) if (row.dimensions[0] === 'Hacker News') row.metrics[0] = (row.metrics[0] ?? 0) + extra;
      return new Response(JSON.stringify(answer), { status: response.status, headers: { 'content-type': 'application/json' } });
    };
    const { reads, why, now } = await withDemo({ fetch: tampered });
    const yesterday = dateOf(now - DAY);
    const lines = await why({ project: 'formfox', metric: 'analytics.visitors', from: yesterday, to: yesterday });

    const week = answerOf<Analytics>(await reads.analytics({ project: 'formfox', range: '7d' }));
    const month = answerOf<Analytics>(await reads.analytics({ project: 'formfox', range: '30d' }));
    const hn = (answer: Analytics) => answer.referrers.find((referrer) => referrer.source === 'Hacker News')?.visitors ?? 0;
    const share = Math.round((hn(week) / week.visitors) * 100);
    const before = Math.round(((hn(month) - hn(week)) / (month.visitors - week.visitors)) * 100);
    expect(share).toBeGreaterThan(before * 1.5);
    // Visitors moved: the referrers lead.
    expect(lines[0]).toBe(`Referrer Hacker News: ${share} % of visitors, up from ${before} %`);
  });

  it('says nothing else moved, naming the sources it looked at, for a window with nothing in them', async () => {
    const { api, reads, why, now } = await withDemo();
    // A day of the demo with no deploy, merge, new issue, incident or one-star review for Pocket Ledger (no collective).
    const shipping = answerOf<Shipping>(await reads.shipping({ project: 'pocket-ledger', limit: 200 }));
    const errors = answerOf<ErrorTracker>(await reads.errortracker({ project: 'pocket-ledger' }));
    const storefront = answerOf<Storefront>(await reads.storefront({ project: 'pocket-ledger' }));
    const quiet = pastDays(now, 6).find(
      (day) =>
        !shipping.items.some((item) => item.source !== 'issue_tracker' && item.shippedAt.startsWith(day)) &&
        !errors.issues.some((issue) => issue.firstSeen.startsWith(day)) &&
        !storefront.reviews.some((review) => review.rating === 1 && review.createdAt.startsWith(day)),
    );
    expect(quiet, 'Pocket Ledger ships three times a week: some day of the last six is quiet').toBeDefined();
    expect(await why({ project: 'pocket-ledger', metric: 'revenue.gross', from: quiet as string, to: quiet as string })).toEqual([
      // The demo's referrers keep their shares: none moved.
      'Nothing else moved for this project in that window (deploys, errors, uptime, referrers, reviews).',
    ]);

    // A project with only analytics and a monitor: only those are named.
    const tideline = await api.store.projects.get('tideline');
    await api.caller.projects.create({
      slug: 'tide-site',
      name: 'Tide site',
      integrations: { analytics: tideline?.integrations.analytics, uptime_monitor: tideline?.integrations.uptime_monitor },
    });
    const yesterday = dateOf(now - DAY);
    expect(await why({ project: 'tide-site', metric: 'analytics.visitors', from: yesterday, to: yesterday })).toEqual([
      'Nothing else moved for this project in that window (uptime, referrers).',
    ]);
  });

  it('tells of an outage from the inbox and of the balance the history kept', async () => {
    const { api, why, now } = await withDemo();
    const yesterday = dateOf(now - DAY);
    const down = Date.parse(`${yesterday}T09:10:00Z`);
    await api.ctx.notifications.inbox.ingest([
      { ...events.down('App', 'inc-1', down), refs: ['uptime_monitor:2003'] },
      { ...events.up('App', 'inc-1', down + 42 * 60_000), refs: ['uptime_monitor:2003'] },
    ]);
    const formfox = await why({ project: 'formfox', metric: 'uptime.up_ratio', from: yesterday, to: yesterday });
    expect(formfox[0]).toBe(`Monitor down: App, down 42 min on ${said(yesterday)}`);

    const before = dateOf(now - 2 * DAY);
    const point = { project: 'tideline', metric: 'funding.balance', currency: 'USD', late: false, source: 'snapshot' as const, takenAt: now };
    await api.store.history.put([
      { ...point, date: before, value: 11_000 },
      { ...point, date: yesterday, value: 9_800 },
    ]);
    const tideline = await why({ project: 'tideline', metric: 'funding.balance', from: yesterday, to: yesterday });
    expect(tideline[0]).toBe('Balance down $1,200');
  });

  it('names a source that could not be read in one line and still says the rest', async () => {
    const { api, reads, why, now } = await withDemo();
    const shipping = answerOf<Shipping>(await reads.shipping({ project: 'formfox', limit: 200 }));
    const day = pastDays(now, 6).find((d) => shipping.items.some((item) => item.source === 'deploy_host' && item.shippedAt.startsWith(d))) as string;
    // Nothing cached for the error tracker, and Sentry answers 500 from now on.
    await api.ctx.data.cache.clear();
    sandbox.inject('sentry', { status: 500 });
    const lines = await why({ project: 'formfox', metric: 'errors.events', from: day, to: day });
    expect(lines.at(-1)).toBe('Could not read Sentry');
    expect(lines.filter((line) => line.startsWith('Could not read'))).toHaveLength(1);
    expect(lines.some((line) => /production deploys? on /.test(line))).toBe(true);
    expect(lines.some((line) => line.startsWith('Sentry'))).toBe(false);
  });

  it('asks the upstreams once per source with the cache cold, and nothing again while it is warm', async () => {
    const { api, why, now } = await withDemo();
    const yesterday = dateOf(now - DAY);
    await api.ctx.data.cache.clear();
    sandbox.reset();
    const first = await why({ project: 'formfox', metric: 'analytics.visitors', from: yesterday, to: yesterday });
    // The demo's own mail (its briefing and alerts) may go out beside it: only the data's upstreams are counted.
    const asked = sandbox.requests.map((request) => request.service).filter((service) => service !== 'sendgrid');
    expect(new Set(asked)).toEqual(new Set(['github', 'linear', 'vercel', 'sentry', 'betterstack', 'plausible']));
    expect(asked.length).toBeLessThanOrEqual(25);
    sandbox.reset();
    expect(await why({ project: 'formfox', metric: 'analytics.visitors', from: yesterday, to: yesterday })).toEqual(first);
    expect(sandbox.requests).toEqual([]);
  });
});
