import { fundingSchema } from '@dash/contracts';
import { demoProducts, sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import { holdToDescriptions } from '@dash/sandbox/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../errors.ts';
import { dayBefore, sandboxContext, testClock } from '../testing.ts';
import { opencollective, withoutToken } from './index.ts';

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());
// A test that lowers the fake's limit must not leave it low for the next one.
afterEach(() => sandbox.limit('opencollective', { limit: 100, windowMs: 60_000 }));

const slug = demoProducts.flatMap((p) => (p.funding ? [p.funding.slug] : []))[0] ?? 'tideline-oss';
const DAY = 86_400_000;

/** Asks the fake directly, the way any GraphQL client would: how many backers it really has. */
async function backersInFake(): Promise<number> {
  const response = await fetch(`${sandbox.services.opencollective.baseUrl}/graphql/v2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'personal-token': sandboxTokens.opencollective },
    body: JSON.stringify({ query: 'query($slug: String!) { account(slug: $slug) { __typename members(role: BACKER, limit: 1000) { nodes { role } } } }', variables: { slug } }),
  });
  const body = (await response.json()) as { data: { account: { members: { nodes: unknown[] } } } };
  return body.data.account.members.nodes.length;
}

/** The research's fixture: one backer on the page of a collective that has 54. */
const fixture = {
  data: {
    account: {
      id: '8a47byg9-nxozdp80-xm6mjlv0-3rek5w8k',
      slug: 'acme',
      name: 'Acme',
      currency: 'USD',
      stats: {
        balance: { valueInCents: 1234500, currency: 'USD' },
        totalAmountReceived: { valueInCents: 9876500, currency: 'USD' },
        yearlyBudget: { valueInCents: 2400000, currency: 'USD' },
      },
      transactions: {
        totalCount: 310,
        nodes: [
          { id: 'tx0', type: 'DEBIT', kind: 'HOST_FEE', createdAt: '2026-05-09T12:00:01.000Z', description: 'Host Fee', amount: { valueInCents: -50, currency: 'USD' } },
          { id: 'tx1', type: 'CREDIT', kind: 'CONTRIBUTION', createdAt: '2026-05-09T12:00:00.000Z', description: 'Monthly financial contribution to Acme (Backer)', amount: { valueInCents: 500, currency: 'USD' } },
          { id: 'tx2', type: 'DEBIT', kind: 'EXPENSE', createdAt: '2026-05-10T08:30:00.000Z', description: null, amount: { valueInCents: -12999, currency: 'EUR' } },
        ],
      },
      members: {
        totalCount: 54,
        nodes: [
          { role: 'BACKER', tier: null, totalDonations: { valueInCents: 12000, currency: 'USD' }, account: { name: 'Jane Doe', imageUrl: 'https://images.opencollective.com/jane/avatar.png' } },
          { role: 'BACKER', tier: { name: 'Sponsor' }, totalDonations: { valueInCents: 30000, currency: 'USD' }, account: { name: 'Harbour Labs', imageUrl: null } },
        ],
      },
    },
  },
};

describe('Open Collective connector', () => {
  it('reads the demo collective: stats, the 20 newest transactions and a page of backers, valid for the widget', async () => {
    const funding = await opencollective.funding(sandboxContext(sandbox, 'opencollective'), { slug });
    expect(fundingSchema.parse(funding)).toEqual(funding);
    expect(funding.currency).toBe('USD');
    expect(funding.stats.balance).toBeGreaterThan(0);
    expect(funding.stats.totalRaised).toBeGreaterThan(funding.stats.balance ?? Infinity);
    expect(funding.stats.yearlyBudget).toBeGreaterThan(0);

    expect(funding.transactions).toHaveLength(20);
    const times = funding.transactions.map((t) => t.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(Date.parse(times[0] ?? '')).toBeGreaterThan(Date.now() - 7 * DAY);
    for (const t of funding.transactions) {
      expect(['CREDIT', 'DEBIT']).toContain(t.type);
      expect(Math.sign(t.amount)).toBe(t.type === 'CREDIT' ? 1 : -1);
      expect(t.currency).toBe('USD');
    }
    // A Backer's monthly $5 and the host's 10% of it, in dollars, not cents.
    expect(funding.transactions).toContainEqual(expect.objectContaining({ type: 'CREDIT', amount: 5, description: 'Monthly financial contribution to Tideline Open Tide Data (Backer)' }));
    expect(funding.transactions).toContainEqual(expect.objectContaining({ type: 'DEBIT', amount: -0.5, description: 'Host Fee' }));

    expect(funding.members).toHaveLength(50);
    const given = funding.members.map((m) => m.totalDonated ?? Number.NaN);
    for (const amount of given) expect(amount).toBeGreaterThan(0);
    expect(given).toEqual([...given].sort((a, b) => b - a));
    for (const m of funding.members) {
      expect(m.role).toBe('BACKER');
      expect(['Backer', 'Sponsor', 'Gold sponsor', '']).toContain(m.tier);
      expect(m.imageUrl).toMatch(/^https:\/\/images\.opencollective\.com\/[a-z0-9-]+\/[0-9a-f]{7}\/(avatar|logo)\.png$/);
    }
    expect(new Set(funding.members.map((m) => m.tier))).toContain('Backer');

    expect(sandbox.requestsTo('opencollective').map((r) => [r.method, r.path, r.status])).toEqual([['POST', '/graphql/v2', 200]]);
  });

  it('counts every backer the collective has, not the 50 on the page it read', async () => {
    const funding = await opencollective.funding(sandboxContext(sandbox, 'opencollective'), { slug });
    const total = await backersInFake();
    expect(total).toBeGreaterThanOrEqual(60);
    expect(total).toBeLessThanOrEqual(120);
    expect(funding.stats.backerCount).toBe(total);
    expect(funding.members.length).toBeLessThan(total);
  });

  it('turns cents into major units, keeps each currency and sign, and leaves a tierless backer’s tier empty', async () => {
    sandbox.inject('opencollective', { status: 200, body: fixture, times: 1 });
    const funding = await opencollective.funding(sandboxContext(sandbox, 'opencollective'), { slug: 'acme' });
    expect(fundingSchema.parse(funding)).toEqual(funding);
    expect(funding.stats).toEqual({ balance: 12345, totalRaised: 98765, yearlyBudget: 24000, backerCount: 54 });
    expect(funding.transactions.map((t) => [t.id, t.type, t.amount, t.currency, t.description])).toEqual([
      ['tx2', 'DEBIT', -129.99, 'EUR', ''],
      ['tx0', 'DEBIT', -0.5, 'USD', 'Host Fee'],
      ['tx1', 'CREDIT', 5, 'USD', 'Monthly financial contribution to Acme (Backer)'],
    ]);
    expect(funding.members).toEqual([
      { name: 'Harbour Labs', role: 'BACKER', tier: 'Sponsor', totalDonated: 300, imageUrl: '' },
      { name: 'Jane Doe', role: 'BACKER', tier: '', totalDonated: 120, imageUrl: 'https://images.opencollective.com/jane/avatar.png' },
    ]);
  });

  it('says the collective does not exist, naming the slug, when Open Collective has no such slug', async () => {
    const error = await opencollective.funding(sandboxContext(sandbox, 'opencollective'), { slug: 'no-such-collective' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({
      kind: 'not_found',
      retryable: false,
      message: 'Open Collective has no collective with the slug "no-such-collective" (200): No collective found with slug no-such-collective',
    });
    // An account answered as null without an error (throwIfMissing: false) is the same to us.
    sandbox.inject('opencollective', { status: 200, body: { data: { account: null } }, times: 1 });
    await expect(opencollective.funding(sandboxContext(sandbox, 'opencollective'), { slug: 'gone' })).rejects.toMatchObject({ kind: 'not_found', message: expect.stringContaining('"gone"') });
  });

  it('says the token was rejected, with Open Collective’s reason and without the token it echoes back', async () => {
    const wrong = 'oc_wrongPersonalToken_1234567890';
    const ctx = sandboxContext(sandbox, 'opencollective', { credentials: { personalToken: wrong } });
    const error = await opencollective.funding(ctx, { slug }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'auth', retryable: false, message: 'Open Collective rejected the credentials (401): Invalid Personal Token (Api Key)' });
    expect((error as Error).message).not.toContain(wrong);
    expect(sandbox.requestsTo('opencollective').map((r) => r.status)).toEqual([401]);
    expect(withoutToken(`Invalid personal token for collective: ${wrong}`)).toBe('Invalid personal token for collective');
  });

  it('backs off for as long as Open Collective’s Retry-After says after a 429, then succeeds', async () => {
    const clock = testClock(1_800_000_000_000);
    sandbox.inject('opencollective', {
      status: 429,
      headers: { 'Retry-After': '2.5', 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1800000003' },
      body: { error: { message: 'Rate limit exceeded. Contact-us to get higher limits.' } },
      times: 1,
    });
    await opencollective.test(sandboxContext(sandbox, 'opencollective', { clock }));
    expect(clock.slept).toContain(2500);
    expect(sandbox.requestsTo('opencollective').map((r) => r.status)).toEqual([429, 200]);
  });

  it('gives up at once with a rate_limited error when the fake’s minute budget is spent', async () => {
    sandbox.limit('opencollective', { limit: 1, windowMs: 60_000 });
    await opencollective.test(sandboxContext(sandbox, 'opencollective'));
    const error = await opencollective.test(sandboxContext(sandbox, 'opencollective')).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'rate_limited', retryable: true, message: 'Open Collective is rate limiting us (429): Rate limit exceeded. Contact-us to get higher limits.' });
    expect((error as ConnectorError).retryAfterMs).toBeGreaterThan(50_000);
    expect(sandbox.requestsTo('opencollective').map((r) => r.status)).toEqual([200, 429]);
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error', async () => {
    const clock = testClock();
    sandbox.inject('opencollective', { status: 502, body: '<html>Bad gateway</html>' });
    const error = await opencollective.funding(sandboxContext(sandbox, 'opencollective', { clock }), { slug }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true, message: 'Open Collective failed (502)' });
    expect(sandbox.requestsTo('opencollective')).toHaveLength(3);
    expect(clock.slept).toHaveLength(2);
  });

  it('turns a body that is not JSON, or data of another shape, into a bad_response error', async () => {
    sandbox.inject('opencollective', { malformed: true, times: 1 });
    await expect(opencollective.funding(sandboxContext(sandbox, 'opencollective'), { slug })).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'Open Collective answered 200 with something that is not JSON',
    });
    sandbox.inject('opencollective', { status: 200, body: { data: { account: { name: 'Acme', stats: {} } } }, times: 1 });
    await expect(opencollective.funding(sandboxContext(sandbox, 'opencollective'), { slug })).rejects.toMatchObject({
      kind: 'bad_response',
      message: expect.stringMatching(/^Open Collective sent a response we do not understand \(account\./),
    });
  });

  it('reports a query Open Collective refuses to validate (400) as bad_response, without retrying', async () => {
    sandbox.inject('opencollective', {
      status: 400,
      body: { errors: [{ message: 'Cannot query field "yearlyBudget" on type "AccountStats".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] },
      times: 1,
    });
    await expect(opencollective.funding(sandboxContext(sandbox, 'opencollective'), { slug })).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'Open Collective could not answer our query (400): Cannot query field "yearlyBudget" on type "AccountStats".',
    });
    expect(sandbox.requestsTo('opencollective')).toHaveLength(1);
  });

  it('checks the token with `me`: ok with the demo token, auth error with another or with none', async () => {
    await expect(opencollective.test(sandboxContext(sandbox, 'opencollective'))).resolves.toBeUndefined();
    await expect(opencollective.test(sandboxContext(sandbox, 'opencollective', { credentials: { personalToken: 'oc_nope_000000' } }))).rejects.toMatchObject({ kind: 'auth' });
    await expect(opencollective.test(sandboxContext(sandbox, 'opencollective', { credentials: { personalToken: '' } }))).rejects.toMatchObject({
      kind: 'auth',
      message: 'Open Collective did not recognise a signed-in account: add a personal token',
    });
    expect(sandbox.requestsTo('opencollective').map((r) => [r.method, r.path, r.status])).toEqual([
      ['POST', '/graphql/v2', 200],
      ['POST', '/graphql/v2', 401],
      ['POST', '/graphql/v2', 200],
    ]);
  });
});

describe('Open Collective daily series', () => {
  const history = opencollective.history;
  if (!history) throw new Error('Open Collective reads a daily series');

  /** The fake's transactions (net of the host's fee) of one day, from its own transactions list. */
  async function ledgerOf(date: string): Promise<number> {
    const response = await fetch(`${sandbox.services.opencollective.baseUrl}/graphql/v2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'personal-token': sandboxTokens.opencollective },
      body: JSON.stringify({ query: 'query($slug: String!) { account(slug: $slug) { __typename transactions(limit: 1000) { nodes { __typename createdAt amount { valueInCents } } } } }', variables: { slug } }),
    });
    const body = (await response.json()) as { data: { account: { transactions: { nodes: { createdAt: string; amount: { valueInCents: number } }[] } } } };
    return body.data.account.transactions.nodes.filter((t) => t.createdAt.startsWith(date)).reduce((sum, t) => sum + t.amount.valueInCents, 0) / 100;
  }

  it('answers the balance at the end of each day in the collective’s currency, ending on the balance the funding widget shows', async () => {
    const now = Date.now();
    const sent: unknown[] = [];
    const ctx = { ...sandboxContext(sandbox, 'opencollective'), fetch: ((input, init) => {
      sent.push(JSON.parse(typeof init?.body === 'string' ? init.body : '{}'));
      return fetch(input, init);
    }) as typeof fetch };
    const series = await history.series(ctx, { slug, from: dayBefore(now, 29), to: dayBefore(now, 0), now });
    // One request for the window, midnight to midnight UTC: Open Collective counts up to `dateTo`, not including it.
    expect(sent).toEqual([
      expect.objectContaining({ variables: { slug, dateFrom: `${dayBefore(now, 29)}T00:00:00.000Z`, dateTo: `${dayBefore(now, -1)}T00:00:00.000Z` } }),
    ]);
    expect(series.map((v) => v.date)).toEqual(Array.from({ length: 30 }, (_, i) => dayBefore(now, 29 - i)));
    expect(series.every((v) => v.metric === 'funding.balance' && v.currency === 'USD')).toBe(true);
    const funding = await opencollective.funding(ctx, { slug });
    expect(series.at(-1)?.value).toBe(funding.stats.balance);
    // A running balance: each day's change is that day's transactions, as the collective's ledger lists them.
    for (const i of [5, 12, 20, 29]) {
      const change = (series[i]?.value ?? 0) - (series[i - 1]?.value ?? 0);
      expect(change).toBeCloseTo(await ledgerOf(series[i]?.date ?? ''), 2);
    }
  });

  it('reads a year and more in one request, of plausible balances', async () => {
    const now = Date.now();
    expect(history.seriesDays).toBe(365);
    const series = await history.series(sandboxContext(sandbox, 'opencollective'), { slug, from: dayBefore(now, 399), to: dayBefore(now, -10), now });
    expect(series).toHaveLength(400);
    expect(series.every((v) => v.value >= 0)).toBe(true);
    // Backers joined over two years: the balance grows, with expenses paid out of it on the way.
    expect(series.at(-1)?.value).toBeGreaterThan(series[0]?.value ?? 0);
    expect(series.some((v, i) => i > 0 && v.value < (series[i - 1]?.value ?? 0))).toBe(true);
    expect(sandbox.requestsTo('opencollective')).toHaveLength(1);
  });

  it('answers no day at all for a window without a transaction, as Open Collective answers no node', async () => {
    const now = Date.now();
    // The collective's first backer joined at most 715 days ago: three years back it had nothing happen.
    const series = await history.series(sandboxContext(sandbox, 'opencollective'), { slug, from: dayBefore(now, 1100), to: dayBefore(now, 1090), now });
    expect(series).toEqual([]);
    expect(await history.series(sandboxContext(sandbox, 'opencollective'), { slug, from: dayBefore(now, -3), to: dayBefore(now, -1), now })).toEqual([]);
    expect(sandbox.requestsTo('opencollective')).toHaveLength(1);
  });

  it('leaves out a node without cents and nodes outside the window, reading each node’s date as its UTC day', async () => {
    const node = (date: string, valueInCents: number | null) => ({ date: `${date}T00:00:00.000Z`, amount: { valueInCents, currency: 'EUR' } });
    const nodes = [node('2026-02-28', 100), node('2026-03-01', 12_345), node('2026-03-02', null), node('2026-03-03', 12_000)];
    sandbox.inject('opencollective', { status: 200, body: { data: { account: { __typename: 'Collective', currency: 'EUR', stats: { balanceTimeSeries: { timeUnit: 'DAY', nodes } } } } }, times: 1 });
    const series = await history.series(sandboxContext(sandbox, 'opencollective'), { slug, from: '2026-03-01', to: '2026-03-03', now: Date.parse('2026-03-03T10:00:00Z') });
    expect(series).toEqual([
      { metric: 'funding.balance', date: '2026-03-01', value: 123.45, currency: 'EUR' },
      { metric: 'funding.balance', date: '2026-03-03', value: 120, currency: 'EUR' },
    ]);
  });

  it('says there is no such collective, that the token was rejected (401), and that Open Collective is rate limiting (429)', async () => {
    const now = Date.now();
    const window = { from: dayBefore(now, 2), to: dayBefore(now, 0), now };
    await expect(history.series(sandboxContext(sandbox, 'opencollective'), { slug: 'no-such-collective', ...window })).rejects.toMatchObject({ kind: 'not_found' });
    const wrong = 'oc_wrongPersonalToken_1234567890';
    const rejected = await history.series(sandboxContext(sandbox, 'opencollective', { credentials: { personalToken: wrong } }), { slug, ...window }).catch((e: unknown) => e);
    expect(rejected).toMatchObject({ kind: 'auth', retryable: false, message: 'Open Collective rejected the credentials (401): Invalid Personal Token (Api Key)' });
    sandbox.limit('opencollective', { limit: 0, windowMs: 60_000 });
    const limited = await history.series(sandboxContext(sandbox, 'opencollective'), { slug, ...window }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(ConnectorError);
    expect(limited).toMatchObject({ kind: 'rate_limited', message: 'Open Collective is rate limiting us (429): Rate limit exceeded. Contact-us to get higher limits.' });
  });
});
