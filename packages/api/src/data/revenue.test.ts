import { describe, expect, it } from 'vitest';
import type { RevenueReport } from '@dash/connectors';
import { cacheKey } from './cache.ts';
import { convertRevenue, sliceRevenue, sumRevenue } from './revenue.ts';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const day = (offset: number) => new Date(NOW - offset * 86_400_000).toISOString().slice(0, 10);

/** Ten days of history, 10 a day, net 90% of gross, in USD. */
const history: RevenueReport = {
  currency: 'USD',
  grossRevenue: 100,
  netRevenue: 90,
  mrr: 250,
  activeSubscribers: 40,
  chart: Array.from({ length: 10 }, (_, i) => ({ date: day(9 - i), revenue: 10 })),
  lastPayment: { amount: 4.99, country: 'CA', createdAt: '2026-11-23T08:00:00.000Z' },
};

describe('revenue arithmetic', () => {
  it('cuts a range out of the whole history: one point per day, zeros before the history began', () => {
    const week = sliceRevenue(history, '7d', NOW);
    expect(week.chart.map((p) => p.date)).toEqual([6, 5, 4, 3, 2, 1, 0].map(day));
    expect([week.grossRevenue, week.netRevenue, week.mrr]).toEqual([70, 63, 250]);
    const month = sliceRevenue(history, '15d', NOW);
    expect(month.chart).toHaveLength(15);
    expect(month.chart.slice(0, 5).every((p) => p.revenue === 0)).toBe(true);
    expect(month.grossRevenue).toBe(100);
  });

  it('converts with the settings rate and says so; the same currency passes untouched', () => {
    expect(convertRevenue(history, 'USD', { CAD: 1.38 })).toEqual({ revenue: expect.objectContaining({ mrr: 250 }) });
    const cad = convertRevenue(history, 'CAD', { CAD: 1.38 });
    expect(cad.conversion).toEqual({ from: 'USD', to: 'CAD', rate: 1.38 });
    expect([cad.revenue.grossRevenue, cad.revenue.mrr, cad.revenue.lastPayment?.amount]).toEqual([138, 345, 6.89]);
    expect(cad.revenue.activeSubscribers).toBe(40);
    // An account in EUR shown in USD needs the EUR rate; without it the answer says what to add.
    expect(() => convertRevenue({ ...history, currency: 'eur' }, 'USD', { CAD: 1.38 })).toThrow(/No exchange rate for EUR in settings/);
    expect(convertRevenue({ ...history, currency: 'eur' }, 'USD', { EUR: 0.8 }).revenue.grossRevenue).toBe(125);
  });

  it('sums projects: amounts to the cent, the chart day by day, the newest payment', () => {
    const other = { ...history, grossRevenue: 0.1, chart: history.chart.map((p) => ({ ...p, revenue: 0.2 })), lastPayment: null };
    const total = sumRevenue([history, other, { ...history, grossRevenue: 0.2, lastPayment: { amount: 9, country: 'US', createdAt: '2026-11-23T09:00:00.000Z' } }]);
    expect(total.grossRevenue).toBe(100.3);
    expect(total.chart[0]).toEqual({ date: day(9), revenue: 20.2 });
    expect(total.lastPayment).toEqual({ amount: 9, country: 'US', createdAt: '2026-11-23T09:00:00.000Z' });
    expect(total.activeSubscribers).toBe(120);
  });

  it('leaves a total unknown when one project could not report it, rather than show a smaller sum as the whole', () => {
    const unknown = { ...history, mrr: null, activeSubscribers: null };
    const total = sumRevenue([history, unknown]);
    expect([total.mrr, total.activeSubscribers, total.grossRevenue]).toEqual([null, null, 200]);
    expect(convertRevenue(unknown, 'CAD', { CAD: 1.38 }).revenue.mrr).toBeNull();
  });
});

describe('cacheKey', () => {
  it('ignores the order params were given in and the absent ones, and tells different values apart', () => {
    const config = Object.freeze({ provider: 'stripe' });
    expect(cacheKey('revenue', { range: '7d', project: 'a', config, currency: undefined })).toBe(cacheKey('revenue', { config, project: 'a', range: '7d' }));
    expect(cacheKey('revenue', { range: '7d', project: 'a', config })).not.toBe(cacheKey('revenue', { range: '30d', project: 'a', config }));
    expect(cacheKey('revenue', { config: { provider: 'stripe' } })).toBe(cacheKey('revenue', { config }));
  });
});
