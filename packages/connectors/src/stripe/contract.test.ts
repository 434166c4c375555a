import { revenueSchema } from '@dash/contracts';
import { descriptionOf, insaneValues, type SampleMode, useDescribedUpstream } from '@dash/sandbox/contract';
import { describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../context.ts';
import { describedContext } from '../testing.ts';
import { stripe } from './index.ts';

/** What the described upstream puts in every string field, ids and currencies included. */
const GENERATED_TEXT = 'string';
const NOW = Date.UTC(2026, 0, 15, 12);
/** The 7-day range ending on NOW's day, as Unix seconds: 9 January 00:00 to 16 January 00:00. */
const FROM = Date.UTC(2026, 0, 9) / 1000;
const TO = Date.UTC(2026, 0, 16) / 1000;

const contextFor = (upstream: { baseUrl: string }): ConnectorContext => describedContext(upstream, { secretKey: 'sk_test_contract' }, NOW);

describe.skipIf(!descriptionOf('stripe'))('Stripe connector against answers made from Stripe’s own description', () => {
  describe.each(['minimal', 'maximal', 'full'] as const satisfies readonly SampleMode[])('%s answers', (mode) => {
    const upstream = useDescribedUpstream('stripe', mode);

    it('accepts the key by reading the balance once', async () => {
      await expect(stripe.test(contextFor(upstream))).resolves.toBeUndefined();
      expect(upstream.requests).toEqual([{ request: 'GET /v1/balance', status: 200 }]);
    });

    it('reports the generated ledger and subscription: MRR unknown rather than 0, the subscription counted once, no payment from a failed charge', async () => {
      const out = await stripe.revenue(contextFor(upstream), { config: { provider: 'stripe' }, range: '7d', currency: 'USD', now: NOW });
      const { currency, ...revenue } = out;
      expect(revenueSchema.parse(revenue)).toEqual(revenue);
      expect(insaneValues(out)).toEqual([]);
      expect(currency).toBe(GENERATED_TEXT.toUpperCase());
      // The generated price has no unit amount (minimal, maximal) or an interval count of 0 (full): its monthly value is not known.
      expect(out.mrr).toBeNull();
      // Every page claims another; the same subscription on each is one subscriber.
      expect(out.activeSubscribers).toBe(1);
      // The generated transaction is an adjustment of 0 and the charge failed: no revenue, no last payment.
      expect(out.grossRevenue).toBe(0);
      expect(out.netRevenue).toBe(0);
      expect(out.chart.map((point) => point.date)).toEqual(['2026-01-09', '2026-01-10', '2026-01-11', '2026-01-12', '2026-01-13', '2026-01-14', '2026-01-15']);
      expect(out.lastPayment).toBeNull();
      // Each list is read until a page brings nothing new, although every generated page says has_more.
      const ledger = `GET /v1/balance_transactions?created%5Bgte%5D=${FROM}&created%5Blt%5D=${TO}&limit=100`;
      expect(upstream.requests.map((r) => r.request).sort()).toEqual(
        [
          ledger,
          `${ledger}&starting_after=${GENERATED_TEXT}`,
          'GET /v1/charges?limit=10',
          'GET /v1/subscriptions?status=active&limit=100',
          `GET /v1/subscriptions?status=active&limit=100&starting_after=${GENERATED_TEXT}`,
          'GET /v1/subscriptions?status=past_due&limit=100',
          `GET /v1/subscriptions?status=past_due&limit=100&starting_after=${GENERATED_TEXT}`,
        ].sort(),
      );
      expect(upstream.requests.every((r) => r.status === 200)).toBe(true);
    });

    it('answers the daily series of the generated ledger: every day of the window, 0 for the adjustment, in its currency', async () => {
      const series = await stripe.history?.series(contextFor(upstream), { config: { provider: 'stripe' }, currency: 'USD', from: '2026-01-09', to: '2026-01-15', now: NOW });
      expect(insaneValues(series)).toEqual([]);
      expect(series?.map((v) => `${v.metric} ${v.date} ${v.value} ${v.currency ?? ''}`).slice(0, 4)).toEqual([
        'revenue.gross 2026-01-09 0 STRING',
        'revenue.net 2026-01-09 0 STRING',
        'revenue.gross 2026-01-10 0 STRING',
        'revenue.net 2026-01-10 0 STRING',
      ]);
      expect(series).toHaveLength(14);
      const ledger = `GET /v1/balance_transactions?created%5Bgte%5D=${FROM}&created%5Blt%5D=${TO}&limit=100`;
      expect(upstream.requests).toEqual([
        { request: ledger, status: 200 },
        { request: `${ledger}&starting_after=${GENERATED_TEXT}`, status: 200 },
      ]);
    });
  });
});
