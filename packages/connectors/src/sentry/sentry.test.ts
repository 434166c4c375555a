import { demoOrg, sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import { errorTrackerSchema } from '@dash/contracts';
import { holdToDescriptions } from '@dash/sandbox/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../context.ts';
import { ConnectorError } from '../errors.ts';
import { sandboxContext, testClock } from '../testing.ts';
import { sentry } from './index.ts';

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const formfox = { org: demoOrg.sentryOrg, project: 'formfox-web' };
const formfoxId = '4507284109876543';
const withOrg = { authToken: sandboxTokens.sentry, orgSlug: demoOrg.sentryOrg };

interface RawIssue {
  id: string;
  count: string;
  status: string;
}

/** What the fake itself answers at one of the organization's paths, read without the connector (the log emptied after). */
async function fakeAnswer(path: string, params: Record<string, string>): Promise<{ headers: Headers; body: unknown }> {
  const url = new URL(`${sandbox.services.sentry.baseUrl}/organizations/${demoOrg.sentryOrg}${path}`);
  url.search = new URLSearchParams(params).toString();
  const response = await fetch(url, { headers: { authorization: `Bearer ${sandboxTokens.sentry}` } });
  const body: unknown = await response.json();
  sandbox.reset();
  return { headers: response.headers, body };
}

/** The fake's issues of a project for a query, read in one page of 100 without the connector. */
async function rawIssues(query: string): Promise<RawIssue[]> {
  const { headers, body } = await fakeAnswer('/issues/', { project: formfoxId, query, limit: '100' });
  expect(headers.get('link')).toContain('rel="next"; results="false"');
  return body as RawIssue[];
}

/** The same context, talking to a Sentry that does not send X-Hits (older self-hosted). */
function withoutHits(ctx: ConnectorContext): ConnectorContext {
  return {
    ...ctx,
    fetch: async (input, init) => {
      const response = await globalThis.fetch(input, init);
      const headers = new Headers(response.headers);
      headers.delete('x-hits');
      return new Response(await response.text(), { status: response.status, headers });
    },
  };
}

describe('Sentry connector', () => {
  it('maps the first page of unresolved issues, most recently seen first, with integer counts', async () => {
    const raw = await rawIssues('is:unresolved');
    const { issues, errorCount } = await sentry.issues(sandboxContext(sandbox, 'sentry'), { config: formfox });
    expect(errorTrackerSchema.parse({ issues, errorCount })).toEqual({ issues, errorCount });
    expect(issues).toHaveLength(25);
    const lastSeen = issues.map((issue) => issue.lastSeen);
    expect(lastSeen).toEqual([...lastSeen].sort().reverse());
    // Sentry's count is a string: "1789" becomes 1789.
    const first = issues[0];
    expect(typeof raw[0]?.count).toBe('string');
    expect(first?.id).toBe(raw[0]?.id);
    expect(first?.count).toBe(Number(raw[0]?.count));
    for (const issue of issues) {
      expect(Number.isInteger(issue.count)).toBe(true);
      expect(['error', 'warning', 'fatal']).toContain(issue.level);
      expect(issue.url).toBe(`https://demo-founder.sentry.io/issues/${issue.id}/`);
      expect(issue.culprit).not.toBe('');
    }
    expect(issues.map((issue) => issue.title)).toContainEqual(expect.stringMatching(/^(TypeError|ChunkLoadError|Error|RangeError|HttpError): /));
  });

  it('counts every unresolved issue across pages from X-Hits, without reading the other pages', async () => {
    const unresolved = await rawIssues('is:unresolved');
    const resolved = await rawIssues('is:resolved');
    expect(unresolved.length).toBeGreaterThan(25);
    expect(resolved.length).toBeGreaterThan(0);

    const { issues, errorCount } = await sentry.issues(sandboxContext(sandbox, 'sentry'), { config: formfox });
    expect(errorCount).toBe(unresolved.length);
    const resolvedIds = new Set(resolved.map((issue) => issue.id));
    expect(issues.filter((issue) => resolvedIds.has(issue.id))).toEqual([]);
    const search = sandbox.requestsTo('sentry', `/api/0/organizations/${demoOrg.sentryOrg}/issues/`);
    expect(search).toHaveLength(1);
    expect(search[0]?.path).toContain(`project=${formfoxId}&query=is%3Aunresolved&statsPeriod=14d&sort=date&limit=25`);
  });

  it('follows the Link header until results="false" to count when Sentry sends no X-Hits', async () => {
    const unresolved = await rawIssues('is:unresolved');
    const { issues, errorCount } = await sentry.issues(withoutHits(sandboxContext(sandbox, 'sentry')), { config: formfox });
    expect(issues).toHaveLength(25);
    expect(errorCount).toBe(unresolved.length);
    const pages = sandbox.requestsTo('sentry', `/api/0/organizations/${demoOrg.sentryOrg}/issues/`);
    expect(pages).toHaveLength(Math.ceil(unresolved.length / 25));
    expect(pages[1]?.path).toMatch(/&cursor=\d+:\d+:0$/);
  });

  it('reports a project that fits one page in full', async () => {
    const { issues, errorCount } = await sentry.issues(sandboxContext(sandbox, 'sentry'), { config: { org: demoOrg.sentryOrg, project: 'tideline-android' } });
    expect(errorCount).toBe(issues.length);
    expect(errorCount).toBeGreaterThanOrEqual(10);
    expect(errorCount).toBeLessThan(25);
  });

  it('says what Sentry could not find for an unknown project', async () => {
    const error = await sentry.issues(sandboxContext(sandbox, 'sentry'), { config: { org: demoOrg.sentryOrg, project: 'nope' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'not_found', message: 'Sentry found nothing there (404): The requested resource does not exist' });
  });

  it('says the token was rejected, with Sentry’s reason and without the token', async () => {
    const ctx = sandboxContext(sandbox, 'sentry', { credentials: { authToken: 'sntrys_wrongToken123', orgSlug: demoOrg.sentryOrg } });
    const error = await sentry.test(ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'auth', retryable: false, message: 'Sentry rejected the credentials (401): Invalid token' });
    expect((error as Error).message).not.toContain('sntrys_wrongToken123');
  });

  it('checks the token and the organization slug together', async () => {
    await expect(sentry.test(sandboxContext(sandbox, 'sentry', { credentials: withOrg }))).resolves.toBeUndefined();
    expect(sandbox.requestsTo('sentry').map((r) => r.path)).toEqual([`/api/0/organizations/${demoOrg.sentryOrg}/projects/?per_page=1`]);
    const error = await sentry.test(sandboxContext(sandbox, 'sentry', { credentials: { ...withOrg, orgSlug: 'someone-else' } })).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'not_found' });
  });

  it('backs off on 429 until X-Sentry-Rate-Limit-Reset, then succeeds', async () => {
    const clock = testClock(1_800_000_000_000);
    sandbox.inject('sentry', {
      status: 429,
      headers: { 'x-sentry-rate-limit-limit': '40', 'x-sentry-rate-limit-remaining': '0', 'x-sentry-rate-limit-reset': '1800000003' },
      body: { detail: 'You are attempting to use this endpoint too frequently. Limit is 40 requests in 1 seconds' },
      times: 1,
    });
    await sentry.test(sandboxContext(sandbox, 'sentry', { clock, credentials: withOrg }));
    expect(clock.slept).toEqual([3000]);
    expect(sandbox.requestsTo('sentry').map((r) => r.status)).toEqual([429, 200]);
  });

  it('honours a Retry-After on 429 when one is sent', async () => {
    const clock = testClock(1_800_000_000_000);
    sandbox.inject('sentry', { status: 429, headers: { 'retry-after': '2' }, body: { detail: 'Too many requests' }, times: 1 });
    await sentry.test(sandboxContext(sandbox, 'sentry', { clock, credentials: withOrg }));
    expect(clock.slept).toEqual([2000]);
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error', async () => {
    sandbox.inject('sentry', { status: 502, body: { detail: 'Internal Error' } });
    const error = await sentry.test(sandboxContext(sandbox, 'sentry', { credentials: withOrg })).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true, message: 'Sentry failed (502): Internal Error' });
    expect(sandbox.requestsTo('sentry')).toHaveLength(3);
  });

  it('turns a body that is not JSON, or an issue without its count, into a clear bad_response error', async () => {
    sandbox.inject('sentry', { malformed: true, times: 1 });
    await expect(sentry.test(sandboxContext(sandbox, 'sentry', { credentials: withOrg }))).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'Sentry answered 200 with something that is not JSON',
    });
    // The project lookup answers normally; the issue list then comes back without `count`.
    sandbox.inject('sentry', { status: 200, body: { id: formfoxId, slug: 'formfox-web' }, times: 1 });
    sandbox.inject('sentry', { status: 200, body: [{ id: '1', title: 'x', culprit: null, level: 'error', status: 'unresolved', userCount: 1, firstSeen: null, lastSeen: null }], times: 1 });
    await expect(sentry.issues(sandboxContext(sandbox, 'sentry'), { config: formfox })).rejects.toMatchObject({
      kind: 'bad_response',
      message: expect.stringContaining('Sentry sent a response we do not understand (0.count'),
    });
  });
});

describe('Sentry daily series', () => {
  const DAY = 86_400_000;
  // The sandbox runs on the real clock here: the story's days count back from today.
  const now = Date.now();
  const day = (ago: number) => new Date(now - ago * DAY).toISOString().slice(0, 10);
  const history = sentry.history!;
  const read = (from: string, to: string, ctx: ConnectorContext = sandboxContext(sandbox, 'sentry'), config: typeof formfox & { host?: string } = formfox) =>
    history.series(ctx, { config, projectId: formfoxId, from, to, now });
  /** The fake's own usage stats for Formfox by outcome. */
  const rawStats = async (from: string, to: string) =>
    (await fakeAnswer('/stats_v2/', { field: 'sum(quantity)', groupBy: 'outcome', category: 'error', interval: '1d', project: formfoxId, start: `${from}T00:00:00Z`, end: `${to}T23:59:59Z` }))
      .body as { groups: { by: { outcome: string }; series: { 'sum(quantity)': number[] } }[] };

  it('backfills the 90 days Sentry keeps of the events it accepted, from the usage stats by outcome', async () => {
    expect(history.seriesDays).toBe(90);
    const raw = await rawStats(day(89), day(0));
    const values = await read(day(89), day(0));
    expect(sandbox.requestsTo('sentry').map((r) => r.path)).toEqual([
      `/api/0/organizations/${demoOrg.sentryOrg}/stats_v2/?field=sum%28quantity%29&groupBy=outcome&category=error&interval=1d&project=${formfoxId}&start=${day(89)}T00%3A00%3A00Z&end=${day(0)}T23%3A59%3A59Z`,
    ]);
    expect(values.map((v) => v.date)).toEqual(Array.from({ length: 90 }, (_, i) => day(89 - i)));
    expect(values.every((v) => v.metric === 'errors.events' && Number.isInteger(v.value))).toBe(true);
    // Accepted only: Sentry also filtered some and, on the launch day, rate limited some.
    const accepted = raw.groups.find((g) => g.by.outcome === 'accepted')?.series['sum(quantity)'];
    expect(values.map((v) => v.value)).toEqual(accepted);
    expect(raw.groups.map((g) => g.by.outcome).sort()).toEqual(['accepted', 'filtered', 'rate_limited']);
    // The Hacker News launch 9 days ago brought the most errors. Counted as received (every outcome): spike protection
    // rate limited part of that day, so on a quiet weekday for the launch the busy day after can accept more.
    const received = values.map((v, i) => raw.groups.reduce((sum, g) => sum + (g.series['sum(quantity)'][i] ?? 0), 0));
    expect(values[received.indexOf(Math.max(...received))]?.date).toBe(day(9));
  });

  it('asks no further back than Sentry keeps, and keeps to the window', async () => {
    const clamped = await read(day(200), day(0));
    expect(clamped[0]?.date).toBe(day(89));
    expect(clamped).toHaveLength(90);
    const week = await read(day(20), day(14));
    expect(week.map((v) => v.date)).toEqual(Array.from({ length: 7 }, (_, i) => day(20 - i)));
    expect(await read(day(300), day(100))).toEqual([]);
    expect(sandbox.requestsTo('sentry')).toHaveLength(2);
  });

  it('reads Sentry’s zero-filled days as 0, and every day as 0 when no event was accepted at all', async () => {
    const intervals = [day(2), day(1), day(0)].map((d) => `${d}T00:00:00Z`);
    const answer = (groups: unknown[]) => ({ start: intervals[0], end: `${day(-1)}T00:00:00Z`, intervals, groups });
    sandbox.inject('sentry', {
      status: 200,
      body: answer([{ by: { outcome: 'accepted' }, totals: { 'sum(quantity)': 7 }, series: { 'sum(quantity)': [0, 7, 0] } }]),
      times: 1,
    });
    expect((await read(day(2), day(0))).map((v) => v.value)).toEqual([0, 7, 0]);
    sandbox.inject('sentry', { status: 200, body: answer([{ by: { outcome: 'filtered' }, totals: { 'sum(quantity)': 4 }, series: { 'sum(quantity)': [1, 3, 0] } }]), times: 1 });
    expect(await read(day(2), day(0))).toEqual([day(2), day(1), day(0)].map((date) => ({ metric: 'errors.events', date, value: 0 })));
  });

  it('refuses a self-hosted host the token was not saved for, before calling it, as the other calls do', async () => {
    await expect(read(day(6), day(0), sandboxContext(sandbox, 'sentry'), { ...formfox, host: 'https://sentry.acme.example' })).rejects.toMatchObject({
      kind: 'auth',
      message: expect.stringContaining('Enter the Sentry token again for the new host https://sentry.acme.example') as string,
    });
    expect(sandbox.requestsTo('sentry')).toHaveLength(0);
    // The host the token was saved with (the credential's base URL) is fine.
    const values = await read(day(6), day(0), sandboxContext(sandbox, 'sentry'), { ...formfox, host: new URL(sandbox.services.sentry.baseUrl).origin });
    expect(values).toHaveLength(7);
  });

  it('classifies a rejected token as auth and backs off on 429 until the reset, as the other calls do', async () => {
    const rejected = sandboxContext(sandbox, 'sentry', { credentials: { authToken: 'sntrys_wrongToken123' } });
    await expect(read(day(6), day(0), rejected)).rejects.toMatchObject({ kind: 'auth', retryable: false, message: 'Sentry rejected the credentials (401): Invalid token' });
    const clock = testClock(1_800_000_000_000);
    sandbox.inject('sentry', {
      status: 429,
      headers: { 'x-sentry-rate-limit-reset': '1800000002' },
      body: { detail: 'You are attempting to use this endpoint too frequently. Limit is 40 requests in 1 seconds' },
      times: 1,
    });
    expect(await read(day(6), day(0), sandboxContext(sandbox, 'sentry', { clock }))).toHaveLength(7);
    expect(clock.slept).toEqual([2000]);
  });
});
