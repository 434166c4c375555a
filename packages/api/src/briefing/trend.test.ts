import { describe, expect, it } from 'vitest';
import type { BriefingTrend } from '@dash/contracts';
import { barHeights, changeText, trendLine, weekValue } from './trend.ts';

// The pure parts of "against last week": a week of a flow or a stock as one number, the change in words, a sparkline's
// bars. The numbers from imported history are in briefing.test.ts.

const trend = (over: Partial<BriefingTrend>): BriefingTrend => ({ metric: 'analytics.visitors', label: 'Visitors', value: 120, previous: 100, change: 0.2, unit: 'count', ...over });
const week = ['2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25'];

describe('a week as one number', () => {
  it('sums a flow of counts, averages a share, takes a stock’s last kept value', () => {
    const days = new Map(week.map((day, i) => [day, i + 1]));
    expect(weekValue('analytics.visitors', days, week)).toBe(28);
    expect(weekValue('uptime.up_ratio', new Map(week.map((day, i) => [day, i === 3 ? 0.93 : 1])), week)).toBeCloseTo(0.99);
    days.delete('2026-11-25');
    expect(weekValue('revenue.mrr', days, week)).toBe(6);
  });

  it('is unknown for a flow with a day missing, and for a stock with none kept', () => {
    expect(weekValue('errors.events', new Map(week.slice(1).map((day) => [day, 5])), week)).toBeNull();
    expect(weekValue('bugs.open', new Map([['2026-11-01', 3]]), week)).toBeNull();
  });
});

describe('the change in words', () => {
  it('says a percent with its sign, a share in points, and no history as such', () => {
    expect(changeText(trend({}))).toBe('+20 %');
    expect(changeText(trend({ value: 80, change: -0.2 }))).toBe('−20 %');
    expect(changeText(trend({ value: 100.2, change: 0.002 }))).toBe('±0 %');
    expect(changeText(trend({ unit: 'percent', value: 99.5, previous: 99.9, change: -0.004 }))).toBe('−0.4 pts');
    expect(trendLine(trend({ previous: null, change: null }), 'day')).toBe('Visitors 120 (no history yet for the same day last week)');
    expect(trendLine(trend({ metric: 'revenue.mrr', label: 'MRR', unit: 'money', currency: 'EUR', value: 1_250.5, previous: 1_000, change: 0.2505 }), 'week')).toBe(
      'MRR €1,250.50 (+25 % against €1,000 the week before)',
    );
  });
});

describe('a sparkline’s bars', () => {
  it('draws a flow from zero and a level across what it reached', () => {
    expect(barHeights(trend({}), [0, 50, 100], 32)).toEqual([1, 16, 32]);
    expect(barHeights(trend({}), [0, 0, 0], 32)).toEqual([1, 1, 1]);
    expect(barHeights(trend({ metric: 'revenue.mrr', unit: 'money' }), [10_000, 10_100, 10_200], 32)).toEqual([4, 18, 32]);
    expect(barHeights(trend({ metric: 'revenue.mrr', unit: 'money' }), [10_000, 10_000], 32)).toEqual([16, 16]);
  });
});
