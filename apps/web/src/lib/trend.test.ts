import { metricOf } from '@dash/contracts/names';
import type { History } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  changeWords,
  combineProjects,
  describeTrend,
  formatValue,
  linePath,
  metricsOfWidgets,
  nearestPoint,
  packDays,
  packTrend,
  pointsIn,
  rangeOf,
  readout,
  runsOf,
  scalesOf,
  trendsOf,
  unpackDays,
  unpackTrend,
  valueDomain,
  widgetMetrics,
} from './trend.ts';

const visitors = metricOf('analytics.visitors')!;
const position = metricOf('search.position')!;
const days = (entries: [string, number][]) => entries.map(([date, value]) => ({ date, value }));

describe('the days of a range', () => {
  it('counts the range back from its last day, inclusive, across a month and a leap day', () => {
    expect(rangeOf(7, '2026-12-07')).toEqual({ from: '2026-12-01', to: '2026-12-07' });
    expect(rangeOf(30, '2028-03-01')).toEqual({ from: '2028-02-01', to: '2028-03-01' });
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
  });

  it('slices the loaded year without changing it', () => {
    const year = Object.freeze(days([['2026-01-01', 1], ['2026-11-30', 2], ['2026-12-01', 3], ['2026-12-07', 4]]));
    expect(pointsIn(year, rangeOf(7, '2026-12-07')).map((point) => point.value)).toEqual([3, 4]);
    expect(year).toHaveLength(4);
  });
});

describe('gaps', () => {
  const points = days([['2026-12-01', 10], ['2026-12-02', 20], ['2026-12-04', 40], ['2026-12-06', 60], ['2026-12-07', 70]]);

  it('breaks the runs at a missing day', () => {
    expect(runsOf(points).map((run) => run.map((point) => point.date.slice(8)))).toEqual([['01', '02'], ['04'], ['06', '07']]);
  });

  it('draws a gap as a break in the line (a new subpath), never as a drop to zero, and a lone day as a dot', () => {
    const scales = scalesOf(rangeOf(7, '2026-12-07'), { low: 0, high: 100 }, { width: 600, height: 100, pad: 0 });
    expect(linePath(points, scales)).toBe('M0 90L100 80M300 60l0 0M500 40L600 30');
    // Nothing is drawn at y = 100 (the zero line) for the missing 3rd and 5th.
    expect(linePath(points, scales)).not.toContain(' 100');
  });
});

describe('scales', () => {
  it('puts the first day of the range at the left, the last at the right, and the domain from bottom to top', () => {
    const scales = scalesOf({ from: '2026-12-01', to: '2026-12-31' }, { low: 0, high: 200 }, { width: 300, height: 110, pad: 5 });
    expect([scales.x('2026-12-01'), scales.x('2026-12-16'), scales.x('2026-12-31')]).toEqual([0, 150, 300]);
    expect([scales.y(0), scales.y(100), scales.y(200)]).toEqual([105, 55, 5]);
  });

  it('draws a position upside down: first place at the top', () => {
    const scales = scalesOf({ from: '2026-12-01', to: '2026-12-02' }, { low: 1, high: 11 }, { width: 10, height: 100, pad: 0 }, true);
    expect(scales.y(1)).toBe(0);
    expect(scales.y(11)).toBe(100);
  });

  it('starts a flow of counts at zero, and pads a level both ways so a flat line sits inside', () => {
    expect(valueDomain([120, 80, 200], 'count', 'flow')).toEqual({ low: 0, high: 200 });
    expect(valueDomain([1000, 1200], 'money', 'stock')).toEqual({ low: 980, high: 1220 });
    expect(valueDomain([4.5, 4.5], 'stars', 'stock')).toEqual({ low: 4.05, high: 4.95 });
    expect(valueDomain([0.999, 1], 'fraction', 'flow').high).toBe(1);
    expect(valueDomain([], 'count', 'flow')).toEqual({ low: 0, high: 1 });
  });

  it('finds the day nearest a pointer, and none when the nearest is beyond the snap', () => {
    const points = days([['2026-12-01', 1], ['2026-12-05', 5]]);
    const range = { from: '2026-12-01', to: '2026-12-11' };
    expect(nearestPoint(points, range, 0.35)?.date).toBe('2026-12-05');
    expect(nearestPoint(points, range, 0.9, 2)).toBeUndefined();
  });
});

describe('words', () => {
  it('says a day’s value as the hover and the tap show it', () => {
    expect(readout({ date: '2026-11-03', value: 1204 }, visitors)).toBe('Tue 3 Nov: 1,204 visitors');
    expect(readout({ date: '2026-11-03', value: 4.25, late: true }, position)).toBe('Tue 3 Nov: average position 4.3 (taken late)');
    expect(readout({ date: '2026-11-03', value: 1250.5 }, metricOf('revenue.mrr')!, 'EUR')).toBe('Tue 3 Nov: €1,250.50 MRR');
  });

  it('formats each unit', () => {
    expect(formatValue(0.9995, 'fraction')).toBe('99.95 %');
    expect(formatValue(0.052, 'fraction')).toBe('5.2 %');
    expect(formatValue(12_345.6, 'money', 'USD')).toBe('$12,346');
    expect(formatValue(4.567, 'stars')).toBe('4.57 ★');
  });

  it('says the range, the first and last values, the change and the days recorded', () => {
    const points = days([['2026-11-08', 1000], ['2026-11-20', 900], ['2026-12-07', 1180]]);
    expect(describeTrend(points, visitors, rangeOf(30, '2026-12-07'), 30)).toBe(
      'Visitors, the last 30 days (8 Nov – 7 Dec 2026): 1,000 on 8 Nov to 1,180 on 7 Dec, up 18 %; 3 of 30 days recorded.',
    );
    expect(describeTrend([], visitors, rangeOf(7, '2026-12-07'), 7)).toBe('Visitors, the last 7 days (1 Dec – 7 Dec 2026): no days recorded.');
    expect(describeTrend(points.slice(0, 1), visitors, rangeOf(30, '2026-12-07'), 30)).toContain('1,000 on 8 Nov, the only day recorded.');
  });

  it('says a change in the unit’s terms', () => {
    expect(changeWords(5, 3, 'position')).toBe('up 2 places');
    expect(changeWords(0.5, 0.52, 'fraction')).toBe('up 2 points');
    expect(changeWords(0, 12, 'count')).toBe('up 12');
    expect(changeWords(200, 150, 'count')).toBe('down 25 %');
    expect(changeWords(7, 7, 'count')).toBe('unchanged');
  });
});

describe('the All-projects sum', () => {
  const series = (project: string, points: [string, number][], currency?: string): History => ({
    project,
    metric: 'analytics.visitors',
    unit: 'count',
    ...(currency ? { currency } : {}),
    points: days(points),
  });

  it('adds the projects’ days, counting a project only from its first day', () => {
    const combined = combineProjects(
      [series('a', [['2026-12-01', 10], ['2026-12-02', 20], ['2026-12-03', 30]]), series('b', [['2026-12-02', 5], ['2026-12-03', 6]])],
      'count',
    );
    expect(combined).toEqual({ points: days([['2026-12-01', 10], ['2026-12-02', 25], ['2026-12-03', 36]]) });
  });

  it('leaves a day as a gap when a project inside its history is missing it, never a total without it', () => {
    const combined = combineProjects(
      [series('a', [['2026-12-01', 10], ['2026-12-02', 20], ['2026-12-03', 30]]), series('b', [['2026-12-01', 1], ['2026-12-03', 3]])],
      'count',
    );
    expect(combined).toEqual({ points: days([['2026-12-01', 11], ['2026-12-03', 33]]) });
  });

  it('adds money in one currency, and refuses to add two', () => {
    expect(combineProjects([series('a', [['2026-12-01', 1.1]], 'USD'), series('b', [['2026-12-01', 2.2]], 'USD')], 'money')).toEqual({
      points: days([['2026-12-01', 3.3]]),
      currency: 'USD',
    });
    expect(combineProjects([series('a', [['2026-12-01', 1]], 'USD'), series('b', [['2026-12-01', 2]], 'EUR')], 'money')).toEqual({
      reason: 'currencies',
      currencies: ['EUR', 'USD'],
    });
  });

  it('does not add a share, a ranking or stars', () => {
    for (const unit of ['fraction', 'position', 'stars'] as const) expect(combineProjects([series('a', [['2026-12-01', 1]])], unit)).toEqual({ reason: 'not summable' });
  });

  it('packs a trend’s days for the page and unpacks the same days, gaps and late ones', () => {
    const points = [{ date: '2026-12-01', value: 1.5 }, { date: '2026-12-02', value: 0 }, { date: '2026-12-05', value: 7, late: true as const }];
    expect(packDays(points)).toEqual({ first: '2026-12-01', values: [1.5, 0, null, null, 7], late: [4] });
    expect(unpackDays(packDays(points))).toEqual(points);
    expect(packDays([])).toBeNull();
    expect(unpackTrend(packTrend({ points, currency: 'EUR' }))).toEqual({ points, currency: 'EUR' });
    expect(unpackTrend(undefined)).toEqual({ points: [] });
    expect(packTrend({ unavailable: 'why' })).toEqual({ unavailable: 'why' });
  });

  it('gives each widget its metrics, headline first, and a sentence where the sum is not shown', () => {
    expect(widgetMetrics('errortracker').map((metric) => metric.key)).toEqual(['errors.events', 'errors.unresolved']);
    expect(metricsOfWidgets(['seo', 'health'])).toEqual(['search.clicks', 'search.impressions', 'search.ctr', 'search.position', 'uptime.up_ratio', 'uptime.incidents']);
    expect(metricsOfWidgets(['seo', 'health'], { allProjects: true })).toEqual(['search.clicks', 'search.impressions', 'uptime.incidents']);
    const trends = trendsOf([{ ...series('a', [['2026-12-01', 0.5]]), metric: 'search.ctr', unit: 'fraction' }], widgetMetrics('seo'), undefined);
    expect(trends['search.ctr']).toEqual({ unavailable: expect.stringContaining('does not add up') });
    expect(trendsOf([], widgetMetrics('seo'), 'a')['search.clicks']).toEqual({ points: [] });
  });
});
