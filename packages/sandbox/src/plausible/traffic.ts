import { DAY_MS, seededRandom } from '../demo.ts';

/** One UTC day of a site's traffic, the raw counts both analytics fakes aggregate from. */
export interface DayTraffic {
  date: string;
  visitors: number;
  visits: number;
  pageviews: number;
  /** Visits of a single page view. */
  bounces: number;
  /** Seconds, summed over visits. */
  totalDuration: number;
}

export interface TrafficProfile {
  /** Visitors on an ordinary weekday at today's size. */
  base: number;
  /** The first day with any traffic, in days before today. */
  launchedDaysAgo: number;
  /** Multipliers Sunday..Saturday: B2B sites dip at weekends, consumer apps peak. */
  weekly: readonly [number, number, number, number, number, number, number];
  pagesPerVisit: number;
  bounceRate: number;
  /** Seconds per visit. */
  avgDuration: number;
  /** Launch days and the like: days ago and how many times the usual traffic came. */
  spikes?: readonly { daysAgo: number; factor: number }[];
  /** Days the tracking script sent nothing (a bad deploy): the upstream has no bucket for them. */
  gaps?: readonly number[];
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Daily traffic from launch to today (today counted up to `now`), oldest first: growing from a third
 * of today's size, with weekly seasonality, noise, launch spikes and the odd day without data.
 */
export function dailyTraffic(seed: string, now: number, profile: TrafficProfile): DayTraffic[] {
  const random = seededRandom(seed);
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const elapsedToday = (now - today) / DAY_MS;
  const days: DayTraffic[] = [];
  for (let ago = profile.launchedDaysAgo; ago >= 0; ago--) {
    const at = today - ago * DAY_MS;
    const noise = 0.85 + random() * 0.3;
    const jitter = random();
    if (profile.gaps?.includes(ago)) continue;
    const growth = 0.33 + 0.67 * (1 - ago / Math.max(1, profile.launchedDaysAgo)) ** 1.4;
    const spike = profile.spikes?.find((s) => s.daysAgo === ago)?.factor ?? 1;
    const partial = ago === 0 ? Math.max(0.05, elapsedToday) : 1;
    const visitors = Math.max(1, Math.round(profile.base * growth * (profile.weekly[new Date(at).getUTCDay()] ?? 1) * noise * spike * partial));
    const visits = Math.round(visitors * (1.08 + jitter * 0.14));
    // Spike traffic reads one page and leaves: more bounces, shorter visits.
    const bounceRate = Math.min(0.9, profile.bounceRate * (spike > 1 ? 1.35 : 1) + (jitter - 0.5) * 0.06);
    days.push({
      date: isoDay(at),
      visitors,
      visits,
      pageviews: Math.round(visits * profile.pagesPerVisit * (spike > 1 ? 0.7 : 1) * (0.93 + jitter * 0.14)),
      bounces: Math.round(visits * bounceRate),
      totalDuration: Math.round(visits * profile.avgDuration * (spike > 1 ? 0.6 : 1) * (0.9 + jitter * 0.2)),
    });
  }
  return days;
}

export interface RangeTotals {
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  totalDuration: number;
}

/** Totals over the days between two dates (inclusive); visitors over several days are de-duplicated a little. */
export function totalsBetween(days: readonly DayTraffic[], from: string, to: string): RangeTotals {
  const within = days.filter((d) => d.date >= from && d.date <= to);
  const sum = (key: keyof Omit<DayTraffic, 'date'>) => within.reduce((total, d) => total + d[key], 0);
  const returning = within.length > 1 ? 0.88 : 1;
  return {
    visitors: Math.round(sum('visitors') * returning),
    visits: sum('visits'),
    pageviews: sum('pageviews'),
    bounces: sum('bounces'),
    totalDuration: sum('totalDuration'),
  };
}

/** A share of a total by weight, with a stable per-row wobble so rows do not look proportional. */
export function splitByWeight<T extends { weight: number }>(rows: readonly T[], total: number, wobble: (i: number) => number): (T & { share: number })[] {
  const sum = rows.reduce((s, r) => s + r.weight, 0);
  return rows.map((row, i) => ({ ...row, share: Math.max(0, Math.round((total * row.weight * wobble(i)) / sum)) }));
}

/** Visitors on the site in the last few minutes: a slice of today's pace, never more than today's count. */
export function liveVisitors(days: readonly DayTraffic[], seed: string): number {
  const last = days.at(-1);
  const week = days.slice(-8, -1);
  const perDay = week.length > 0 ? week.reduce((s, d) => s + d.visitors, 0) / week.length : 0;
  const random = seededRandom(`${seed}:live`);
  return Math.min(last?.visitors ?? 0, Math.round((perDay / 288) * (2 + random() * 3)));
}
