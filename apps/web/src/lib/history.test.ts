import { describe, expect, it } from 'vitest';
import { historyFact, historyHref, lastDayOf, sourceName } from './history.ts';

const kept = { configured: true, backfill: true, points: 365, first: '2026-01-02', last: '2026-12-07' };

describe('the history view’s line per metric', () => {
  it('says where the days come from and since when', () => {
    expect(historyFact(kept, 'Plausible')).toBe('Backfilled from Plausible since 2 Jan 2026; 365 days kept.');
    expect(historyFact({ ...kept, backfill: false, points: 1, first: '2026-12-07' }, 'Linear')).toBe('History starts on 7 Dec 2026: Linear keeps no daily series; 1 day kept.');
    expect(historyFact({ ...kept, backfill: false, points: 0, first: null, last: null }, 'Linear')).toBe('History starts with the next daily snapshot: Linear keeps no daily series.');
    expect(historyFact({ ...kept, points: 0, first: null, last: null }, 'Sentry')).toMatch(/^No days yet: Sentry’s daily series is read back/);
    expect(historyFact({ ...kept, configured: false, points: 0, first: null, last: null }, 'Vercel')).toBe('Not kept: Vercel is not set up for this project.');
  });

  it('names the provider a project uses', () => {
    expect(sourceName({ revenue: { provider: 'stripe' } } as never, 'revenue')).toBe('Stripe');
    expect(sourceName({ analytics: { platforms: [{ provider: 'plausible' }, { provider: 'umami' }, { provider: 'plausible' }] } } as never, 'analytics')).toBe('Plausible and Umami');
    expect(sourceName({}, 'issue_tracker')).toBe('Linear');
  });
});

describe('the ranges’ last day and the view’s address', () => {
  it('ends the ranges today, or on a later day a point already has (a zone ahead of the server’s)', () => {
    const series = (last: string) => ({ project: 'a', metric: 'analytics.visitors' as const, unit: 'count' as const, points: [{ date: last, value: 1 }] });
    expect(lastDayOf([series('2026-12-06')], '2026-12-07')).toBe('2026-12-07');
    expect(lastDayOf([series('2026-12-06'), series('2026-12-08')], '2026-12-07')).toBe('2026-12-08');
    expect(lastDayOf([], '2026-12-07')).toBe('2026-12-07');
  });

  it('links a project’s view at a metric’s chart', () => {
    expect(historyHref('form fox', 'analytics.visitors')).toBe('/history?project=form%20fox#metric-analytics-visitors');
    expect(historyHref(undefined)).toBe('/history');
  });
});
