import { revenueSchema } from '@dash/contracts';
import { descriptionOf, insaneValues, type SampleMode, useDescribedUpstream } from '@dash/sandbox/contract';
import { describe, expect, it } from 'vitest';
import { describedContext } from '../testing.ts';
import { revenuecat } from './index.ts';

const modes: SampleMode[] = ['minimal', 'maximal', 'full'];

describe.skipIf(!descriptionOf('revenuecat')).each(modes)('RevenueCat connector against answers generated from RevenueCat’s description (%s)', (mode) => {
  const upstream = useDescribedUpstream('revenuecat', mode);

  const ctx = () => describedContext(upstream, { apiKey: 'sk_contract' });

  it('reports revenue a user can read, with the overview’s missing cards as unknown rather than 0', async () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    const out = await revenuecat.revenue(ctx(), { config: { provider: 'revenuecat', projectId: 'proj1' }, range: '7d', currency: 'CAD', now });
    const { currency, ...revenue } = out;
    expect(currency).toBe('CAD');
    expect(revenueSchema.parse(revenue)).toEqual(revenue);
    expect(insaneValues(out)).toEqual([]);
    expect(out.chart.map((point) => point.date)).toEqual(['2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10']);
    // The generated overview holds one card, `active_trials` (the description's example): no MRR, no subscriptions.
    expect(out.mrr).toBeNull();
    expect(out.activeSubscribers).toBeNull();
    expect(upstream.requests.map((r) => r.request.split('?')[0])).toEqual(['GET /v2/projects/proj1/metrics/overview', 'GET /v2/projects/proj1/charts/revenue']);
  });

  it('passes the credential check on the generated project list', async () => {
    await expect(revenuecat.test(ctx())).resolves.toBeUndefined();
  });
});
