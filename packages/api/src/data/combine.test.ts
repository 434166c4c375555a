import { describe, expect, it } from 'vitest';
import type { Analytics, Funding, Seo } from '@dash/contracts';
import { sumAnalytics, sumFunding, sumSeo } from './combine.ts';

const site = (over: Partial<Analytics>): Analytics => ({
  visitors: 0,
  sessions: 0,
  pageViews: 0,
  bounceRate: 0,
  avgDuration: 0,
  liveVisitors: 0,
  topPages: [],
  referrers: [],
  chart: [],
  ...over,
});

describe('combining several sources', () => {
  it('adds analytics up, weighting bounce rate and visit duration by sessions, merging pages and referrers', () => {
    const big = site({ visitors: 900, sessions: 1000, pageViews: 3000, bounceRate: 40, avgDuration: 100, liveVisitors: 5, topPages: [{ path: '/', views: 2000, uniqueVisitors: 800 }], referrers: [{ source: 'Google', visitors: 500 }], chart: [{ date: '2026-11-22', visitors: 900 }] });
    const small = site({ visitors: 90, sessions: 100, pageViews: 150, bounceRate: 95, avgDuration: 12, liveVisitors: 1, topPages: [{ path: '/', views: 100, uniqueVisitors: 90 }, { path: '/pricing', views: 50, uniqueVisitors: 40 }], referrers: [{ source: 'Reddit', visitors: 30 }, { source: 'Google', visitors: 20 }], chart: [{ date: '2026-11-22', visitors: 90 }] });
    const both = sumAnalytics([big, small]);
    expect([both.visitors, both.sessions, both.pageViews, both.liveVisitors]).toEqual([990, 1100, 3150, 6]);
    expect(both.bounceRate).toBe(45); // (40·1000 + 95·100) / 1100
    expect(both.avgDuration).toBe(92); // (100·1000 + 12·100) / 1100
    expect(both.topPages).toEqual([{ path: '/', views: 2100, uniqueVisitors: 890 }, { path: '/pricing', views: 50, uniqueVisitors: 40 }]);
    expect(both.referrers).toEqual([{ source: 'Google', visitors: 520 }, { source: 'Reddit', visitors: 30 }]);
    expect(both.chart).toEqual([{ date: '2026-11-22', visitors: 990 }]);
  });

  it('adds search analytics up with ctr from the sums and position averaged by impressions', () => {
    const a: Seo = { queries: [{ query: 'budget app', clicks: 10, impressions: 100, ctr: 0.1, position: 2 }], totals: { clicks: 10, impressions: 100, ctr: 0.1, position: 2 } };
    const b: Seo = { queries: [{ query: 'budget app', clicks: 30, impressions: 900, ctr: 1 / 30, position: 12 }], totals: { clicks: 30, impressions: 900, ctr: 1 / 30, position: 12 } };
    const both = sumSeo([a, b]);
    expect(both.totals).toEqual({ clicks: 40, impressions: 1000, ctr: 0.04, position: 11 });
    expect(both.queries).toEqual([{ query: 'budget app', clicks: 40, impressions: 1000, ctr: 0.04, position: 11 }]);
  });

  it('leaves a combined search figure unknown when a property’s is unknown, and ctr and position unknown without impressions', () => {
    const known: Seo = { queries: [{ query: 'budget app', clicks: 10, impressions: 100, ctr: 0.1, position: 2 }], totals: { clicks: 10, impressions: 100, ctr: 0.1, position: 2 } };
    const partial: Seo = { queries: [{ query: 'budget app', clicks: null, impressions: 900, ctr: null, position: 12 }], totals: { clicks: 0, impressions: 0, ctr: null, position: null } };
    const both = sumSeo([known, partial]);
    expect(both.queries).toEqual([{ query: 'budget app', clicks: null, impressions: 1000, ctr: null, position: 11 }]);
    expect(both.totals).toEqual({ clicks: 10, impressions: 100, ctr: 0.1, position: 2 });
    expect(sumSeo([partial, partial]).totals).toEqual({ clicks: 0, impressions: 0, ctr: null, position: null });
  });

  it('adds collectives up: stats summed to the cent, newest transactions first, biggest backers first', () => {
    const one: Funding = { currency: 'USD', stats: { balance: 10.1, totalRaised: 100, yearlyBudget: 50, backerCount: 3 }, transactions: [{ id: 'a', type: 'CREDIT', amount: 5, currency: 'USD', description: 'x', createdAt: '2026-11-01T00:00:00.000Z' }], members: [{ name: 'Ann', role: 'BACKER', tier: 'Backer', totalDonated: 5, imageUrl: '' }] };
    const two: Funding = { currency: 'USD', stats: { balance: 0.2, totalRaised: 1, yearlyBudget: 2, backerCount: 1 }, transactions: [{ id: 'b', type: 'DEBIT', amount: -3, currency: 'USD', description: 'y', createdAt: '2026-11-02T00:00:00.000Z' }], members: [{ name: 'Bo', role: 'BACKER', tier: 'Sponsor', totalDonated: 50, imageUrl: '' }] };
    const both = sumFunding([one, two]);
    expect(both.stats).toEqual({ balance: 10.3, totalRaised: 101, yearlyBudget: 52, backerCount: 4 });
    expect(both.transactions.map((t) => t.id)).toEqual(['b', 'a']);
    expect(both.members.map((m) => m.name)).toEqual(['Bo', 'Ann']);
  });

  it('leaves a collective total unknown when one collective’s figure is unknown, and its backer of unknown total last', () => {
    const known: Funding = { currency: 'USD', stats: { balance: 10, totalRaised: 100, yearlyBudget: 50, backerCount: 3 }, transactions: [], members: [{ name: 'Ann', role: 'BACKER', tier: '', totalDonated: 5, imageUrl: '' }] };
    const unknown: Funding = { currency: 'USD', stats: { balance: null, totalRaised: 1, yearlyBudget: null, backerCount: null }, transactions: [], members: [{ name: 'Cy', role: 'BACKER', tier: '', totalDonated: null, imageUrl: '' }] };
    const both = sumFunding([unknown, known]);
    expect(both.stats).toEqual({ balance: null, totalRaised: 101, yearlyBudget: null, backerCount: null });
    expect(both.members.map((m) => m.name)).toEqual(['Ann', 'Cy']);
  });
});
