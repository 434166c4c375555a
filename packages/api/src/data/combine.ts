import type { Analytics, Funding, Seo } from '@dash/contracts';
import { combineSearchFigures, roundMoney, sumKnown } from '@dash/connectors';

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Adds up rows that share a key, keeping the first row's order of appearance, largest first. */
function mergeBy<T>(rows: readonly T[], key: (row: T) => string, add: (a: T, b: T) => T, size: (row: T) => number, limit: number): T[] {
  const merged = new Map<string, T>();
  for (const row of rows) {
    const seen = merged.get(key(row));
    merged.set(key(row), seen ? add(seen, row) : row);
  }
  return [...merged.values()].sort((a, b) => size(b) - size(a)).slice(0, limit);
}

/**
 * Several sites' analytics as one: counts summed; bounce rate and visit duration weighted by sessions
 * (a site with ten times the visits counts ten times); pages and referrers merged by path and source.
 */
export function sumAnalytics(parts: readonly Analytics[]): Analytics {
  if (parts.length === 1 && parts[0]) return parts[0];
  const sessions = parts.reduce((sum, part) => sum + part.sessions, 0);
  const weighted = (pick: (part: Analytics) => number) =>
    sessions === 0 ? 0 : parts.reduce((sum, part) => sum + pick(part) * part.sessions, 0) / sessions;
  const byDay = new Map<string, number>();
  for (const part of parts) for (const point of part.chart ?? []) byDay.set(point.date, (byDay.get(point.date) ?? 0) + point.visitors);
  return {
    visitors: parts.reduce((sum, part) => sum + part.visitors, 0),
    sessions,
    pageViews: parts.reduce((sum, part) => sum + part.pageViews, 0),
    bounceRate: round(weighted((part) => part.bounceRate)),
    avgDuration: round(weighted((part) => part.avgDuration)),
    liveVisitors: parts.reduce((sum, part) => sum + part.liveVisitors, 0),
    topPages: mergeBy(
      parts.flatMap((part) => part.topPages),
      (page) => page.path,
      (a, b) => ({ path: a.path, views: a.views + b.views, uniqueVisitors: a.uniqueVisitors + b.uniqueVisitors }),
      (page) => page.views,
      10,
    ),
    referrers: mergeBy(
      parts.flatMap((part) => part.referrers),
      (referrer) => referrer.source,
      (a, b) => ({ source: a.source, visitors: a.visitors + b.visitors }),
      (referrer) => referrer.visitors,
      10,
    ),
    chart: [...byDay.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([date, visitors]) => ({ date, visitors })),
  };
}

/** Several properties' search analytics as one: queries merged by text, totals combined (an unknown click count sorts last). */
export function sumSeo(parts: readonly Seo[]): Seo {
  if (parts.length === 1 && parts[0]) return parts[0];
  const queries = mergeBy(
    parts.flatMap((part) => part.queries),
    (row) => row.query,
    (a, b) => ({ query: a.query, ...combineSearchFigures([a, b]) }),
    (row) => row.clicks ?? -1,
    50,
  );
  return { queries, totals: combineSearchFigures(parts.map((part) => part.totals)) };
}

/** Several collectives as one, when they share a currency: stats summed, lists merged newest or biggest first. */
export function sumFunding(parts: readonly Funding[]): Funding {
  if (parts.length === 1 && parts[0]) return parts[0];
  const sum = (pick: (part: Funding) => number | null) => {
    const total = sumKnown(parts.map(pick));
    return total === null ? null : roundMoney(total);
  };
  return {
    stats: {
      balance: sum((part) => part.stats.balance),
      totalRaised: sum((part) => part.stats.totalRaised),
      yearlyBudget: sum((part) => part.stats.yearlyBudget),
      backerCount: sumKnown(parts.map((part) => part.stats.backerCount)),
    },
    transactions: parts
      .flatMap((part) => part.transactions)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, 20),
    members: parts
      .flatMap((part) => part.members)
      // An unknown total sorts last.
      .sort((a, b) => (b.totalDonated ?? -Infinity) - (a.totalDonated ?? -Infinity) || 0)
      .slice(0, 50),
    ...(parts[0]?.currency ? { currency: parts[0].currency } : {}),
  };
}
