import { sandboxGoogle, startSandbox, type Sandbox } from '@dash/sandbox';
import { holdToDescriptions } from '@dash/sandbox/contract';
import { seoSchema } from '@dash/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DailyValue } from '../connector.ts';
import type { ConnectorContext } from '../context.ts';
import { ConnectorError } from '../errors.ts';
import { sandboxContext, testClock } from '../testing.ts';
import { google } from './index.ts';
import { pacificDay, searchWindow, totalsOf } from './map.ts';
import { forgetAccessTokens, tokenUrlOf } from '../oauth.ts';


const pocketLedger = 'https://pocketledger.app/';
const queryPath = (siteUrl: string) => `/webmasters/v3/sites/${encodeURIComponent(siteUrl)}/searchAnalytics/query`;
const google401 = {
  error: {
    code: 401,
    message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
    status: 'UNAUTHENTICATED',
  },
};

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.reset();
  forgetAccessTokens();
});

type Options = Parameters<typeof sandboxContext>[2];
const contextFor = (options: Options & { credentials?: Record<string, string> } = {}, on: Sandbox = sandbox) =>
  sandboxContext(on, 'google', { ...options, credentials: { ...sandboxGoogle, ...options.credentials } });

/** Gets an access token into the cache, then clears the log: the next request is the one under test. */
async function warm(ctx: ConnectorContext) {
  await google.test(ctx);
  sandbox.reset();
}

/** Google refuses the cached token (401), hands out a new one on the refresh, and refuses that too. */
function refuseTokenTwice() {
  sandbox.inject('google', { status: 401, body: google401, times: 1 });
  sandbox.inject('google', { status: 200, body: { access_token: 'ya29.fresh-but-refused', expires_in: 3599, token_type: 'Bearer' }, times: 1 });
  sandbox.inject('google', { status: 401, body: google401, times: 1 });
}

/** A fetch that records the JSON bodies the connector sends. */
function recording(ctx: ConnectorContext): { ctx: ConnectorContext; bodies: { url: string; body: unknown }[] } {
  const bodies: { url: string; body: unknown }[] = [];
  const spy: typeof fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (typeof init?.body === 'string' && !url.endsWith('/token')) bodies.push({ url, body: JSON.parse(init.body) });
    return ctx.fetch(input, init);
  };
  return { ctx: { ...ctx, fetch: spy }, bodies };
}

describe('Google Search Console connector: mapping', () => {
  it('maps the top 25 queries (brand first, by clicks) and Google’s own totals, valid against seoSchema', async () => {
    const seo = await google.seo(contextFor(), { siteUrl: pocketLedger, now: Date.now() });
    expect(seoSchema.parse(seo)).toEqual(seo);
    // A URL-prefix property goes in the path encoded, slashes and all.
    expect(sandbox.requestsTo('google', queryPath(pocketLedger))).toHaveLength(2);
    expect(queryPath(pocketLedger)).toContain('https%3A%2F%2Fpocketledger.app%2F');
    // The fake knows 37 queries for Pocket Ledger; rowLimit keeps the top 25.
    expect(seo.queries).toHaveLength(25);
    expect(seo.queries[0]?.query).toBe('pocket ledger');
    expect(seo.queries.map((q) => q.query)).toEqual(expect.arrayContaining(['bill reminder app', 'budget app iphone']));
    for (const [i, q] of seo.queries.entries()) {
      expect(q.ctr).toBeCloseTo((q.clicks ?? NaN) / (q.impressions ?? NaN), 10);
      if (i > 0) expect(q.clicks).toBeLessThanOrEqual(seo.queries[i - 1]?.clicks ?? 0);
    }
    // The brand query ranks near the top and is clicked far more often than the generic ones.
    expect(seo.queries[0]?.position).toBeLessThan(2);
    expect(seo.queries[0]?.ctr).toBeGreaterThan(0.3);
    // Google's totals count queries beyond the top 25 and the anonymised ones.
    const listed = seo.queries.reduce((sum, q) => sum + (q.clicks ?? NaN), 0);
    expect(seo.totals.clicks).toBeGreaterThan(listed);
    expect(seo.totals.ctr).toBeCloseTo((seo.totals.clicks ?? NaN) / (seo.totals.impressions ?? NaN), 10);
    expect(seo.totals.ctr).toBeLessThan(1);
  });

  it('asks for the last 28 days of final data by query (25 rows) and without dimensions, the site URL encoded', async () => {
    const now = Date.UTC(2026, 3, 30, 3, 0); // 20:00 on 29 April in California
    const { ctx, bodies } = recording(contextFor());
    await google.seo(ctx, { siteUrl: 'sc-domain:formfox.io', now });
    expect(sandbox.requestsTo('google', '/webmasters/v3/sites/sc-domain%3Aformfox.io/searchAnalytics/query')).toHaveLength(2);
    const window = { startDate: '2026-03-31', endDate: '2026-04-27', type: 'web', dataState: 'final' };
    expect(bodies.map((b) => b.body)).toEqual(
      expect.arrayContaining([
        { ...window, dimensions: ['query'], rowLimit: 25 },
        { ...window, dimensions: [] },
      ]),
    );
  });

  it('counts the 28-day window in Pacific days, ending two days before today', () => {
    expect(searchWindow(Date.UTC(2026, 3, 30, 3, 0))).toEqual({ startDate: '2026-03-31', endDate: '2026-04-27' });
    expect(searchWindow(Date.UTC(2026, 3, 30, 9, 0))).toEqual({ startDate: '2026-04-01', endDate: '2026-04-28' });
  });

  it('averages the totals’ position by impressions, not per query', () => {
    const rows = [
      { keys: ['brand'], clicks: 500, impressions: 1000, ctr: 0.5, position: 1 },
      { keys: ['long tail'], clicks: 1, impressions: 10, ctr: 0.1, position: 41 },
    ];
    const totals = totalsOf(rows);
    expect(totals).toEqual({ clicks: 501, impressions: 1010, ctr: 501 / 1010, position: (1 * 1000 + 41 * 10) / 1010 });
    // A plain mean would say 21.
    expect(totals.position).toBeCloseTo(1.396, 3);
  });

  it('computes impression-weighted totals from the query rows when the totals query has no row', async () => {
    const ctx = contextFor();
    await warm(ctx);
    const rows = [
      { keys: ['tideline'], clicks: 300, impressions: 600, ctr: 0.5, position: 1.2 },
      { keys: ['tide times'], clicks: 20, impressions: 4000, ctr: 0.005, position: 21.5 },
    ];
    // Both requests get keyed rows: neither answers the dimensionless question.
    sandbox.inject('google', { status: 200, body: { rows, responseAggregationType: 'byProperty' }, times: 2 });
    const seo = await google.seo(ctx, { siteUrl: 'https://tideline.app/', now: Date.now() });
    expect(seo.totals).toEqual({ clicks: 320, impressions: 4600, ctr: 320 / 4600, position: (1.2 * 600 + 21.5 * 4000) / 4600 });
  });

  it('shows no clicks and no impressions, and ctr and position as unknown, for a property without data (Google leaves `rows` out)', async () => {
    const ctx = contextFor();
    await warm(ctx);
    sandbox.inject('google', { status: 200, body: { responseAggregationType: 'auto' }, times: 2 });
    expect(await google.seo(ctx, { siteUrl: pocketLedger, now: Date.now() })).toEqual({
      queries: [],
      totals: { clicks: 0, impressions: 0, ctr: null, position: null },
    });
  });

  it('shows a figure Google leaves out of a row as unknown, never 0, and a total that needs it as unknown too', async () => {
    const ctx = contextFor();
    await warm(ctx);
    // ApiDataRow promises none of its fields: here one query comes without clicks, the other without a position.
    const rows = [
      { keys: ['tideline'], impressions: 600, ctr: 0.5, position: 1.2 },
      { keys: ['tide times'], clicks: 20, impressions: 4000, ctr: 0.005 },
    ];
    sandbox.inject('google', { status: 200, body: { rows }, times: 2 });
    const seo = await google.seo(ctx, { siteUrl: 'https://tideline.app/', now: Date.now() });
    expect(seoSchema.parse(seo)).toEqual(seo);
    expect(seo.queries).toEqual([
      { query: 'tideline', clicks: null, impressions: 600, ctr: 0.5, position: 1.2 },
      { query: 'tide times', clicks: 20, impressions: 4000, ctr: 0.005, position: null },
    ]);
    expect(seo.totals).toEqual({ clicks: null, impressions: 4600, ctr: null, position: null });
  });

  it('says which site the account may not read (403 PERMISSION_DENIED)', async () => {
    const error = await google.seo(contextFor(), { siteUrl: 'https://someone-else.com/', now: Date.now() }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: 'auth',
      message: expect.stringContaining("Google Search Console refused access (403): User does not have sufficient permission for site 'https://someone-else.com/'"),
    });
  });
});

describe('Google Search Console connector: OAuth access tokens', () => {
  it('refreshes on the first call and reuses the token on the next, one token request for parallel calls', async () => {
    const ctx = contextFor();
    await google.seo(ctx, { siteUrl: pocketLedger, now: Date.now() });
    expect(sandbox.requestsTo('google', '/token')).toHaveLength(1);
    await google.test(ctx);
    await google.seo(ctx, { siteUrl: 'https://tideline.app/', now: Date.now() });
    expect(sandbox.requestsTo('google', '/token')).toHaveLength(1);
    expect(sandbox.requestsTo('google', '/webmasters/')).toHaveLength(5);
  });

  it('refreshes again once the clock reaches a minute before expiry', async () => {
    const clock = testClock();
    const ctx = contextFor({ clock });
    await google.test(ctx);
    clock.advance(3599_000 - 61_000);
    await google.test(ctx);
    expect(sandbox.requestsTo('google', '/token')).toHaveLength(1);
    clock.advance(2_000);
    await google.test(ctx);
    expect(sandbox.requestsTo('google', '/token')).toHaveLength(2);
  });

  it('drops a cached token the API rejects (401), refreshes once and retries', async () => {
    // A sandbox whose own clock passes the token's hour while ours does not: Google expired it first.
    let now = Date.now();
    const other = await startSandbox({ now: () => now, observe });
    try {
      const ctx = contextFor({}, other);
      await google.test(ctx);
      now += 3_601_000;
      await google.test(ctx);
      expect(other.requestsTo('google').map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        'POST /token 200',
        'GET /webmasters/v3/sites 200',
        'GET /webmasters/v3/sites 401',
        'POST /token 200',
        'GET /webmasters/v3/sites 200',
      ]);
    } finally {
      await other.close();
    }
  });

  it('gives up after one refresh when the API rejects the new token too, with Google’s reason', async () => {
    const ctx = contextFor();
    await warm(ctx);
    refuseTokenTwice();
    const error = await google.test(ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'auth', retryable: false, message: expect.stringMatching(/^Google Search Console rejected the credentials \(401\): Request had invalid authentication credentials/) });
    expect((error as Error).message).not.toContain('ya29');
    expect(sandbox.requestsTo('google').map((r) => r.status)).toEqual([401, 200, 401]);
  });

  it('does not retry a 401 on a token it has just been given', async () => {
    const ctx = contextFor();
    sandbox.inject('google', { status: 200, body: { access_token: 'ya29.unknown', expires_in: 3599, token_type: 'Bearer' }, times: 1 });
    await expect(google.test(ctx)).rejects.toMatchObject({ kind: 'auth' });
    expect(sandbox.requestsTo('google').map((r) => `${r.path} ${r.status}`)).toEqual(['/token 200', '/webmasters/v3/sites 401']);
  });

  it('tells the user to reconnect when Google revoked the refresh token (invalid_grant), without the token', async () => {
    const ctx = contextFor({ credentials: { refreshToken: '1//revoked-demo-refresh' } });
    const error = await google.seo(ctx, { siteUrl: pocketLedger, now: Date.now() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({
      kind: 'auth',
      retryable: false,
      message: "Google revoked the dashboard's access (invalid_grant: Token has been expired or revoked.): reconnect Google in settings",
    });
    expect(sandbox.requestsTo('google', '/webmasters/')).toHaveLength(0);
  });

  it('names the OAuth client as the problem for a wrong client secret (invalid_client), without the secret', async () => {
    const ctx = contextFor({ credentials: { clientSecret: 'GOCSPX-wrongSecret99' } });
    const error = await google.test(ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'auth', message: 'Google does not accept the OAuth client (invalid_client: Unauthorized): check the client ID and client secret in settings' });
    const message = (error as Error).message;
    for (const secret of ['GOCSPX-wrongSecret99', sandboxGoogle.refreshToken]) expect(message).not.toContain(secret);
  });

  it('says Google is not connected yet, before calling it, when only the OAuth client is saved', async () => {
    const ctx = sandboxContext(sandbox, 'google', { credentials: { clientId: sandboxGoogle.clientId, clientSecret: sandboxGoogle.clientSecret } });
    await expect(google.test(ctx)).rejects.toMatchObject({ kind: 'auth', message: 'Google is not connected yet: use "Connect with Google" in settings' });
    expect(sandbox.requestsTo('google')).toHaveLength(0);
  });

  it('refreshes at Google’s token endpoint for the real API and at `${baseUrl}/token` anywhere else', () => {
    expect(tokenUrlOf(google.defaultBaseUrl)).toBe('https://oauth2.googleapis.com/token');
    expect(tokenUrlOf('https://searchconsole.googleapis.com/')).toBe('https://oauth2.googleapis.com/token');
    expect(tokenUrlOf('http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000/token');
  });

  it('turns a token answer that is not JSON into bad_response', async () => {
    sandbox.inject('google', { malformed: true, times: 1 });
    await expect(google.test(contextFor())).rejects.toMatchObject({ kind: 'bad_response', message: 'Google answered 200 with something that is not JSON' });
  });
});

describe('Google Search Console connector: failures and test()', () => {
  it('passes test() when the site list answers', async () => {
    await expect(google.test(contextFor())).resolves.toBeUndefined();
    expect(sandbox.requestsTo('google').map((r) => `${r.method} ${r.path}`)).toEqual(['POST /token', 'GET /webmasters/v3/sites']);
  });

  it('backs off on 429 RESOURCE_EXHAUSTED as Retry-After says, then succeeds', async () => {
    const clock = testClock();
    const ctx = contextFor({ clock });
    await warm(ctx);
    const body = { error: { code: 429, message: "Quota exceeded for quota metric 'Queries'", status: 'RESOURCE_EXHAUSTED' } };
    sandbox.inject('google', { status: 429, headers: { 'retry-after': '2' }, body, times: 1 });
    await google.test(ctx);
    expect(clock.slept).toContain(2000);
    expect(sandbox.requestsTo('google').map((r) => r.status)).toEqual([429, 200]);
  });

  it('treats a 403 quotaExceeded as rate limiting, with Google’s message, not as lost access', async () => {
    const ctx = contextFor();
    await warm(ctx);
    const body = { error: { code: 403, message: 'Search Analytics load quota exceeded.', errors: [{ reason: 'quotaExceeded', domain: 'usageLimits' }] } };
    sandbox.inject('google', { status: 403, body });
    await expect(google.test(ctx)).rejects.toMatchObject({ kind: 'rate_limited', message: 'Google Search Console is rate limiting us (403): Search Analytics load quota exceeded.' });
    expect(sandbox.requestsTo('google')).toHaveLength(3);
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error', async () => {
    const ctx = contextFor();
    await warm(ctx);
    sandbox.inject('google', { status: 503, body: { error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' } } });
    const error = await google.test(ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true, message: 'Google Search Console failed (503): The service is currently unavailable.' });
    expect(sandbox.requestsTo('google')).toHaveLength(3);
  });

  it('turns an API answer that is not JSON into bad_response', async () => {
    const ctx = contextFor();
    await warm(ctx);
    sandbox.inject('google', { malformed: true, times: 1 });
    await expect(google.seo(ctx, { siteUrl: pocketLedger, now: Date.now() })).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'Google Search Console answered 200 with something that is not JSON',
    });
  });

  it('accepts a site list whose entries lack siteUrl or permissionLevel (WmxSite promises neither) as working credentials', async () => {
    const ctx = contextFor();
    await warm(ctx);
    sandbox.inject('google', { status: 200, body: { siteEntry: [{ permissionLevel: 'siteOwner' }, {}] }, times: 1 });
    await google.test(ctx);
    expect(sandbox.requestsTo('google').map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /webmasters/v3/sites 200']);
  });

  it('rejects rows of the wrong shape (ctr as a percentage) as bad_response', async () => {
    const ctx = contextFor();
    await warm(ctx);
    sandbox.inject('google', { status: 200, body: { rows: [{ keys: ['x'], clicks: 5, impressions: 10, ctr: 50, position: 3 }] }, times: 2 });
    await expect(google.seo(ctx, { siteUrl: pocketLedger, now: Date.now() })).rejects.toMatchObject({ kind: 'bad_response', message: expect.stringContaining('rows.0.ctr') });
  });
});

describe('Search Console daily series', () => {
  const DAY = 86_400_000;
  // The sandbox runs on the real clock here: days count back from today in Pacific time, as Google's do.
  const now = Date.now();
  const day = (ago: number) => new Date(Date.parse(`${pacificDay(now)}T00:00:00Z`) - ago * DAY).toISOString().slice(0, 10);
  const formfox = 'sc-domain:formfox.io';
  const history = google.history!;
  const read = (siteUrl: string, from: string, to: string, ctx = contextFor()) => history.series(ctx, { siteUrl, from, to, now });
  const of = (values: DailyValue[], metric: DailyValue['metric']) => values.filter((v) => v.metric === metric);

  it('backfills 16 months in one `date` query with fresh data: every day Google has, as Google gives it', async () => {
    expect(history.seriesDays).toBe(480);
    const { ctx, bodies } = recording(contextFor());
    const values = await read(pocketLedger, day(479), day(0), ctx);
    expect(bodies.map((b) => b.body)).toEqual([{ startDate: day(479), endDate: day(0), dimensions: ['date'], type: 'web', dataState: 'all', rowLimit: 5000, startRow: 0 }]);
    const clicks = of(values, 'search.clicks');
    // The property was added 420 days ago; one day since has no data at all.
    expect(clicks[0]?.date).toBe(day(420));
    expect(clicks.at(-1)?.date).toBe(day(0));
    expect(clicks).toHaveLength(420);
    for (const metric of ['search.impressions', 'search.ctr', 'search.position'] as const) expect(of(values, metric).map((v) => v.date)).toEqual(clicks.map((v) => v.date));
    const impressions = new Map(of(values, 'search.impressions').map((v) => [v.date, v.value]));
    const clicksOn = new Map(clicks.map((v) => [v.date, v.value]));
    for (const { date, value } of of(values, 'search.ctr')) {
      expect(value).toBeGreaterThan(0);
      expect(value).toBeLessThan(1);
      expect(value).toBeCloseTo((clicksOn.get(date) ?? NaN) / (impressions.get(date) ?? NaN), 10);
    }
    for (const { value } of of(values, 'search.position')) expect(value).toBeGreaterThanOrEqual(1);
    for (const { value } of [...clicks, ...of(values, 'search.impressions')]) expect(Number.isInteger(value)).toBe(true);
  });

  it('leaves a day Google has no row for out of every metric, rather than reading it as 0', async () => {
    const values = await read(pocketLedger, day(47), day(43));
    for (const metric of ['search.clicks', 'search.impressions', 'search.ctr', 'search.position'] as const) {
      expect(of(values, metric).map((v) => v.date)).toEqual([day(47), day(46), day(44), day(43)]);
    }
  });

  it('keeps to the window, and its days add up to about the widget’s 28-day totals', async () => {
    const { startDate, endDate } = searchWindow(now);
    const [values, seo] = await Promise.all([read(formfox, startDate, endDate), google.seo(contextFor(), { siteUrl: formfox, now })]);
    const clicks = of(values, 'search.clicks');
    expect(clicks).toHaveLength(28);
    expect([clicks[0]?.date, clicks.at(-1)?.date]).toEqual([startDate, endDate]);
    const sum = (metric: DailyValue['metric']) => of(values, metric).reduce((total, v) => total + v.value, 0);
    for (const [metric, total] of [['search.clicks', seo.totals.clicks], ['search.impressions', seo.totals.impressions]] as const) {
      expect(Math.abs(sum(metric) / (total ?? NaN) - 1)).toBeLessThan(0.15);
    }
  });

  it('includes the fresh days the final data leaves out, today still filling in', async () => {
    const clicks = of(await read(formfox, day(7), day(0)), 'search.clicks');
    expect(clicks.map((v) => v.date)).toEqual(Array.from({ length: 8 }, (_, i) => day(7 - i)));
    // Today's numbers so far, against the same weekday a week ago.
    expect(clicks.at(-1)?.value).toBeLessThan((clicks[0]?.value ?? 0) * 0.6);
  });

  it('refreshes once on a 401 and retries, then fails as auth; a quota answer is rate limited, as the other calls are', async () => {
    const ctx = contextFor();
    await warm(ctx);
    refuseTokenTwice();
    await expect(read(pocketLedger, day(9), day(3), ctx)).rejects.toMatchObject({ kind: 'auth', retryable: false });
    const quota = { error: { code: 429, message: "Quota exceeded for quota metric 'Queries'", status: 'RESOURCE_EXHAUSTED' } };
    const fresh = contextFor();
    await warm(fresh);
    sandbox.inject('google', { status: 429, headers: { 'retry-after': '120' }, body: quota, times: 1 });
    await expect(read(pocketLedger, day(9), day(3), fresh)).rejects.toMatchObject({ kind: 'rate_limited', retryAfterMs: 120_000 });
  });

  it('asks nothing for an empty window', async () => {
    expect(await read(pocketLedger, day(1), day(3))).toEqual([]);
    expect(sandbox.requestsTo('google')).toHaveLength(0);
  });
});
