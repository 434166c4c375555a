import { revenueSchema } from '@dash/contracts';
import { sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { daysOf, isoDay } from '../dates.ts';
import { ConnectorError } from '../errors.ts';
import { dayBefore, sandboxContext, testClock } from '../testing.ts';
import { stripe } from './index.ts';
import { monthlyAmount, mrrOf, toMajor } from './map.ts';
import type { StripeSubscriptionItem } from './schemas.ts';
import { holdToDescriptions } from '@dash/sandbox/contract';

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const formfox = { provider: 'stripe' } as const;
const rateLimited = {
  error: {
    code: 'rate_limit',
    doc_url: 'https://stripe.com/docs/error-codes/rate-limit',
    message: 'Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.',
    type: 'invalid_request_error',
  },
};

/** The range's ledger read straight from the fake, page by page, to check the connector's sums against. */
async function ledger(from: number, to: number) {
  const all: { amount: number; net: number; type: string; created: number }[] = [];
  let after: string | undefined;
  for (;;) {
    const url = new URL(`${sandbox.services.stripe.baseUrl}/balance_transactions`);
    url.searchParams.set('created[gte]', String(from));
    url.searchParams.set('created[lt]', String(to));
    url.searchParams.set('limit', '100');
    if (after) url.searchParams.set('starting_after', after);
    const page = (await (await fetch(url, { headers: { authorization: `Bearer ${sandboxTokens.stripe}` } })).json()) as {
      data: { id: string; amount: number; net: number; type: string; created: number }[];
      has_more: boolean;
    };
    all.push(...page.data);
    if (!page.has_more) return all;
    after = page.data.at(-1)?.id;
  }
}

describe('Stripe connector', () => {
  it('reports gross, net after fees and refunds, MRR, subscribers and the last payment in major units', async () => {
    const now = Date.now();
    const out = await stripe.revenue(sandboxContext(sandbox, 'stripe'), { config: formfox, range: '30d', currency: 'CAD', now });
    const { currency, ...revenue } = out;
    expect(revenueSchema.parse(out)).toEqual(revenue);
    // The account's currency, not the asked one: the route converts.
    expect(currency).toBe('USD');
    expect(out.activeSubscribers).toBe(312);
    // 242 monthly subscriptions (ten of them three seats) at $19, 70 yearly at $190 / 12, and 5 past due.
    expect(out.mrr).toBe(6181.33);
    expect(out.chart).toHaveLength(30);
    expect(out.grossRevenue).toBeCloseTo(out.chart.reduce((sum, p) => sum + p.revenue, 0), 2);
    expect(out.netRevenue).toBeLessThan(out.grossRevenue);
    expect(out.netRevenue).toBeGreaterThan(out.grossRevenue * 0.9);
    // The newest payment is a $19.99 pack (1999 cents), with no billing address: the card's country.
    expect(out.lastPayment).toEqual({ amount: 19.99, country: 'DE', createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
  });

  it('sums the whole ledger of the range: charges for gross, charges and refunds after fees for net, payouts left out', async () => {
    const now = Date.now();
    const days = daysOf('30d', now);
    const from = Date.parse(`${days[0]}T00:00:00Z`) / 1000;
    const to = Date.parse(`${days.at(-1)}T00:00:00Z`) / 1000 + 86_400;
    const txns = await ledger(from, to);
    expect(txns.some((t) => t.type === 'payout')).toBe(true);
    const gross = txns.filter((t) => t.type === 'charge').reduce((sum, t) => sum + t.amount, 0) / 100;
    const net = txns.filter((t) => t.type === 'charge' || t.type === 'refund').reduce((sum, t) => sum + t.net, 0) / 100;
    sandbox.reset();
    const out = await stripe.revenue(sandboxContext(sandbox, 'stripe'), { config: formfox, range: '30d', currency: 'USD', now });
    expect(out.grossRevenue).toBeCloseTo(gross, 2);
    expect(out.netRevenue).toBeCloseTo(net, 2);
  });

  it('pages through the balance transactions 100 at a time, after the last id of each page', async () => {
    await stripe.revenue(sandboxContext(sandbox, 'stripe'), { config: formfox, range: '30d', currency: 'USD', now: Date.now() });
    const pages = sandbox.requestsTo('stripe', '/v1/balance_transactions?').map((r) => new URL(r.path, 'http://x').searchParams);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.every((q) => q.get('limit') === '100' && q.has('created[gte]') && q.has('created[lt]'))).toBe(true);
    expect(pages[0]?.has('starting_after')).toBe(false);
    expect(pages.slice(1).every((q) => q.get('starting_after')?.startsWith('txn_'))).toBe(true);
    // 312 active subscriptions are four pages too.
    expect(sandbox.requestsTo('stripe', '/v1/subscriptions?status=active')).toHaveLength(4);
  });

  it('normalises prices to a month: yearly /12, weekly ×52/12, daily ×365/12, interval count and quantity; JPY has no cents', () => {
    const item = (unit_amount: number | null, interval: 'day' | 'week' | 'month' | 'year', interval_count = 1, quantity = 1, currency = 'usd'): StripeSubscriptionItem => ({
      quantity,
      price: { currency, unit_amount, recurring: { interval, interval_count, usage_type: 'licensed' } },
    });
    expect(monthlyAmount(item(19000, 'year'))).toBeCloseTo(15.83, 2);
    expect(monthlyAmount(item(500, 'week'))).toBeCloseTo(21.67, 2);
    expect(monthlyAmount(item(100, 'day'))).toBeCloseTo(30.42, 2);
    expect(monthlyAmount(item(5700, 'month', 3))).toBeCloseTo(19, 2);
    expect(monthlyAmount(item(1900, 'month', 1, 3))).toBeCloseTo(57, 2);
    expect(monthlyAmount(item(12000, 'year', 1, 1, 'jpy'))).toBe(1000);
    expect(toMajor(1999, 'usd')).toBe(19.99);
    expect(toMajor(1999, 'KRW')).toBe(1999);
  });

  it('counts a metered price as no fixed monthly amount, and leaves MRR unknown when a tiered price (no unit amount) is in it', () => {
    const price = (unit_amount: number | null, usage_type: string) => ({ currency: 'usd', unit_amount, recurring: { interval: 'month' as const, interval_count: 1, usage_type } });
    const metered: StripeSubscriptionItem = { quantity: 1, price: price(null, 'metered') };
    // Stripe sets unit_amount only for per-unit prices: a tiered one's monthly value is not in the price.
    const tiered: StripeSubscriptionItem = { quantity: 1, price: price(null, 'licensed') };
    const seat: StripeSubscriptionItem = { quantity: 2, price: price(1900, 'licensed') };
    const subscription = (...data: StripeSubscriptionItem[]) => ({ id: 'sub_1', status: 'active', currency: 'usd', items: { data } });
    expect(monthlyAmount(metered)).toBe(0);
    expect(monthlyAmount(tiered)).toBeNull();
    expect(mrrOf([subscription(seat), subscription(metered)], 'USD')).toBe(38);
    expect(mrrOf([subscription(seat), subscription(tiered)], 'USD')).toBeNull();
    expect(mrrOf([], 'USD')).toBe(0);
  });

  it('says the key was rejected with Stripe’s masked key, never the key itself', async () => {
    const key = 'sk_test_51HsWrongKeyForTheFormfoxDemo9876';
    const error = await stripe.test(sandboxContext(sandbox, 'stripe', { credentials: { secretKey: key } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'auth', retryable: false });
    expect((error as Error).message).toMatch(/^Stripe rejected the credentials \(401\): Invalid API Key provided: sk_test_\*+9876$/);
    expect((error as Error).message).not.toContain(key);
    expect((error as Error).message).not.toContain('WrongKey');
  });

  it('acts for a connected account with Stripe-Account, and says so when the key cannot', async () => {
    const error = await stripe
      .revenue(sandboxContext(sandbox, 'stripe'), { config: { provider: 'stripe', accountId: 'acct_1NotConnectedHere' }, range: '7d', currency: 'USD', now: Date.now() })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'auth' });
    expect((error as Error).message).toContain("does not have access to account 'acct_1NotConnectedHere'");
    expect((error as Error).message).not.toContain(sandboxTokens.stripe);
  });

  it('passes the credential check by reading the balance', async () => {
    await stripe.test(sandboxContext(sandbox, 'stripe'));
    expect(sandbox.requestsTo('stripe').map((r) => [r.path, r.status])).toEqual([['/v1/balance', 200]]);
  });

  it('backs off on 429 as Retry-After says, then succeeds', async () => {
    const clock = testClock();
    sandbox.inject('stripe', { status: 429, headers: { 'retry-after': '2' }, body: rateLimited, times: 1 });
    await stripe.test(sandboxContext(sandbox, 'stripe', { clock }));
    expect(clock.slept).toEqual([2000]);
    expect(sandbox.requestsTo('stripe').map((r) => r.status)).toEqual([429, 200]);
  });

  it('backs off on a 429 without Retry-After (Stripe usually sends none), then succeeds', async () => {
    const clock = testClock();
    sandbox.inject('stripe', { status: 429, body: rateLimited, times: 1 });
    await stripe.test(sandboxContext(sandbox, 'stripe', { clock }));
    expect(clock.slept).toHaveLength(1);
    expect(clock.slept[0]).toBeGreaterThan(0);
    expect(sandbox.requestsTo('stripe').map((r) => r.status)).toEqual([429, 200]);
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error', async () => {
    sandbox.inject('stripe', { status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } });
    const error = await stripe.test(sandboxContext(sandbox, 'stripe')).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true, message: 'Stripe failed (500): An unknown error occurred' });
    expect(sandbox.requestsTo('stripe')).toHaveLength(3);
  });

  it('turns a body that is not JSON into a clear bad_response error', async () => {
    sandbox.inject('stripe', { malformed: true });
    await expect(stripe.test(sandboxContext(sandbox, 'stripe'))).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'Stripe answered 200 with something that is not JSON',
    });
  });

  it('turns amounts that are not integers into bad_response, naming the field', async () => {
    sandbox.inject('stripe', {
      status: 200,
      body: { object: 'list', url: '/v1/balance_transactions', has_more: false, data: [{ id: 'txn_1', amount: '19.99', fee: 88, net: 1911, currency: 'usd', created: 1, type: 'charge' }] },
      times: 1,
    });
    const error = await stripe.revenue(sandboxContext(sandbox, 'stripe'), { config: formfox, range: '7d', currency: 'USD', now: Date.now() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'bad_response' });
    expect((error as Error).message).toContain('data.0.amount');
  });
});

describe('Stripe daily series', () => {
  const DAY_MS = 86_400_000;
  const history = stripe.history;
  if (!history) throw new Error('Stripe reads a daily series');
  // Reads of a year page through the fake's ledger faster than Stripe's 25 a second.
  afterEach(() => sandbox.limit('stripe', { limit: 25, windowMs: 1_000 }));

  it('answers gross and net per UTC day in the account’s currency, the days of the revenue route’s chart with its values', async () => {
    const now = Date.now();
    const ctx = sandboxContext(sandbox, 'stripe');
    const series = await history.series(ctx, { config: formfox, currency: 'CAD', from: dayBefore(now, 29), to: dayBefore(now, 0), now });
    const gross = series.filter((v) => v.metric === 'revenue.gross');
    const net = series.filter((v) => v.metric === 'revenue.net');
    expect(gross.map((v) => v.date)).toEqual(daysOf('30d', now));
    expect(net.map((v) => v.date)).toEqual(daysOf('30d', now));
    expect(series.every((v) => v.currency === 'USD')).toBe(true);
    const out = await stripe.revenue(ctx, { config: formfox, range: '30d', currency: 'USD', now });
    expect(gross.map((v) => ({ date: v.date, revenue: v.value }))).toEqual(out.chart);
    expect(net.reduce((sum, v) => sum + v.value, 0)).toBeCloseTo(out.netRevenue, 1);
    // A day's net is its charges after fees, less the refunds given back that day.
    for (const [i, v] of net.entries()) expect(v.value).toBeLessThan((gross[i]?.value ?? 0) + 0.01);
  });

  it('sums each day’s ledger as the fake holds it: charges for gross, charges and refunds after fees for net', async () => {
    const now = Date.now();
    const from = Date.parse(`${dayBefore(now, 60)}T00:00:00Z`) / 1000;
    const to = Date.parse(`${dayBefore(now, 50)}T00:00:00Z`) / 1000;
    const expected = new Map<string, { gross: number; net: number }>();
    for (const t of await ledger(from, to)) {
      const sums = expected.get(isoDay(t.created * 1000)) ?? { gross: 0, net: 0 };
      if (t.type === 'charge') sums.gross += t.amount / 100;
      if (t.type === 'charge' || t.type === 'refund') sums.net += t.net / 100;
      expected.set(isoDay(t.created * 1000), sums);
    }
    sandbox.reset();
    const series = await history.series(sandboxContext(sandbox, 'stripe'), { config: formfox, currency: 'USD', from: dayBefore(now, 60), to: dayBefore(now, 51), now });
    expect(series).toHaveLength(20);
    for (const v of series) {
      const sums = expected.get(v.date);
      expect(v.value).toBeCloseTo(v.metric === 'revenue.gross' ? (sums?.gross ?? 0) : (sums?.net ?? 0), 2);
    }
    // The window's ledger alone, asked by its first second and the first second after it.
    const asked = sandbox.requestsTo('stripe', '/v1/balance_transactions?').map((r) => new URL(r.path, 'http://x').searchParams);
    expect(asked.every((q) => q.get('created[gte]') === String(from) && q.get('created[lt]') === String(to))).toBe(true);
  });

  it('keeps to the window: nothing before `from`, nothing after today however far `to` reaches', async () => {
    const now = Date.now();
    const series = await history.series(sandboxContext(sandbox, 'stripe'), { config: formfox, currency: 'USD', from: dayBefore(now, 2), to: dayBefore(now, -5), now });
    expect([...new Set(series.map((v) => v.date))]).toEqual([dayBefore(now, 2), dayBefore(now, 1), dayBefore(now, 0)]);
    sandbox.reset();
    const future = await history.series(sandboxContext(sandbox, 'stripe'), { config: formfox, currency: 'USD', from: dayBefore(now, -3), to: dayBefore(now, -1), now });
    expect(future).toEqual([]);
    expect(sandbox.requestsTo('stripe')).toEqual([]);
  });

  it('reads a whole year (seriesDays) page by page, 100 at a time after the last id, and the demo has payments on every whole day of it', async () => {
    sandbox.limit('stripe', { limit: 1_000, windowMs: 1_000 });
    const now = Date.now();
    expect(history.seriesDays).toBe(365);
    const series = await history.series(sandboxContext(sandbox, 'stripe'), { config: formfox, currency: 'USD', from: dayBefore(now, 399), to: dayBefore(now, 0), now });
    const gross = series.filter((v) => v.metric === 'revenue.gross');
    expect(gross).toHaveLength(400);
    // Today has had none yet in its first hours (renewals fall through the day): every day before it has.
    expect(gross.filter((v) => v.date !== dayBefore(now, 0)).every((v) => v.value > 0)).toBe(true);
    // Some 300 subscriptions renewing over a month: hundreds of dollars a day, not thousands.
    const perDay = gross.reduce((sum, v) => sum + v.value, 0) / gross.length;
    expect(perDay).toBeGreaterThan(100);
    expect(perDay).toBeLessThan(1_000);
    const pages = sandbox.requestsTo('stripe', '/v1/balance_transactions?').map((r) => new URL(r.path, 'http://x').searchParams);
    expect(pages.length).toBeGreaterThan(20);
    expect(pages[0]?.has('starting_after')).toBe(false);
    expect(pages.slice(1).every((q) => q.get('limit') === '100' && q.get('starting_after')?.startsWith('txn_'))).toBe(true);
  });

  it('answers only the days after the oldest transaction read when paging stops while Stripe still has more', async () => {
    const now = Date.now();
    const txn = (id: string, daysAgo: number, amount: number) => ({ id, object: 'balance_transaction', amount, fee: 30, net: amount - 30, currency: 'usd', created: Math.floor((now - daysAgo * DAY_MS) / 1000), type: 'charge' });
    // Every page the same, and each says there is more: paging stops at the repeat, with days 5 and 6 ago read in part.
    sandbox.inject('stripe', { status: 200, body: { object: 'list', url: '/v1/balance_transactions', has_more: true, data: [txn('txn_b', 2, 1900), txn('txn_a', 5, 1900)] }, times: 2 });
    const series = await history.series(sandboxContext(sandbox, 'stripe'), { config: formfox, currency: 'USD', from: dayBefore(now, 9), to: dayBefore(now, 0), now });
    expect([...new Set(series.map((v) => v.date))]).toEqual([dayBefore(now, 4), dayBefore(now, 3), dayBefore(now, 2), dayBefore(now, 1), dayBefore(now, 0)]);
    expect(series.find((v) => v.metric === 'revenue.gross' && v.date === dayBefore(now, 2))).toEqual({ metric: 'revenue.gross', date: dayBefore(now, 2), value: 19, currency: 'USD' });
    expect(series.find((v) => v.metric === 'revenue.net' && v.date === dayBefore(now, 3))).toEqual({ metric: 'revenue.net', date: dayBefore(now, 3), value: 0, currency: 'USD' });
  });

  it('names the balance’s currency on a window without a single transaction', async () => {
    const now = Date.now();
    sandbox.inject('stripe', { status: 200, body: { object: 'list', url: '/v1/balance_transactions', has_more: false, data: [] }, times: 1 });
    const series = await history.series(sandboxContext(sandbox, 'stripe'), { config: formfox, currency: 'CAD', from: dayBefore(now, 1), to: dayBefore(now, 0), now });
    expect(series).toEqual([
      { metric: 'revenue.gross', date: dayBefore(now, 1), value: 0, currency: 'USD' },
      { metric: 'revenue.net', date: dayBefore(now, 1), value: 0, currency: 'USD' },
      { metric: 'revenue.gross', date: dayBefore(now, 0), value: 0, currency: 'USD' },
      { metric: 'revenue.net', date: dayBefore(now, 0), value: 0, currency: 'USD' },
    ]);
    expect(sandbox.requestsTo('stripe').map((r) => r.path.split('?')[0])).toEqual(['/v1/balance_transactions', '/v1/balance']);
  });

  it('says the key was rejected (401) and that Stripe is rate limiting (429), as the other reads do', async () => {
    const now = Date.now();
    const window = { config: formfox, currency: 'USD' as const, from: dayBefore(now, 6), to: dayBefore(now, 0), now };
    const rejected = await history.series(sandboxContext(sandbox, 'stripe', { credentials: { secretKey: 'sk_test_51WrongKey0000' } }), window).catch((e: unknown) => e);
    expect(rejected).toMatchObject({ kind: 'auth', retryable: false, message: expect.stringMatching(/^Stripe rejected the credentials \(401\)/) as string });
    sandbox.inject('stripe', { status: 429, body: rateLimited });
    const limited = await history.series(sandboxContext(sandbox, 'stripe'), window).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(ConnectorError);
    expect(limited).toMatchObject({ kind: 'rate_limited' });
    expect(sandbox.requestsTo('stripe').filter((r) => r.status === 429)).toHaveLength(3);
  });
});
