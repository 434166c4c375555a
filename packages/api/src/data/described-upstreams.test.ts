import { revenueSchema } from '@dash/contracts';
import { testClock } from '@dash/connectors/testing';
import { descriptionOf, useDescribedUpstream } from '@dash/sandbox/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleRest } from '../rest/index.ts';
import { createTestApi } from '../testing.ts';

type Api = Awaited<ReturnType<typeof createTestApi>>;

describe.skipIf(!descriptionOf('revenuecat'))('GET /api/revenue against a RevenueCat that answers only what its description allows', () => {
  const upstream = useDescribedUpstream('revenuecat', 'minimal');
  let api: Api;
  beforeEach(async () => {
    api = await createTestApi({ clock: testClock() });
  });
  afterEach(() => api.dispose());

  it('answers 200 with the revenue, and MRR and subscribers unknown when the overview has no such cards', async () => {
    await api.caller.credentials.save({ key: 'revenuecat', values: { apiKey: 'sk_described', baseUrl: upstream.baseUrl } });
    await api.caller.projects.create({ slug: 'ledger', name: 'Ledger', integrations: { revenue: { provider: 'revenuecat', projectId: 'proj1' } } });
    const response = await handleRest(new Request('http://dash.test/api/revenue?range=7d'), api.caller);
    const body = (await response.json()) as unknown;
    expect(response.status).toBe(200);
    const revenue = revenueSchema.parse(body);
    expect(revenue.chart).toHaveLength(7);
    expect([revenue.mrr, revenue.activeSubscribers]).toEqual([null, null]);
  });
});
