import type { Range } from '@dash/contracts';
import type { RevenueReport } from '../connector.ts';
import { dailyChart, isoDay, roundMoney } from '../dates.ts';
import type { RevenueCatChart, RevenueCatOverview } from './schemas.ts';

/** An overview card by its id (`mrr`, `active_subscriptions`): names are for people and may change. */
export function overviewValue(overview: RevenueCatOverview, id: string): number | undefined {
  return overview.metrics.find((metric) => metric.id === id)?.value;
}

/**
 * The revenue chart's money measure: `Revenue` (or `Proceeds` when that revenue type is selected), not
 * the `Transactions` count that comes alongside it. The first measure when none is named so.
 */
export function revenueMeasure(chart: RevenueCatChart): number {
  const index = (chart.measures ?? []).findIndex((m) => /revenue|proceeds/i.test(m.display_name) && m.unit !== '#');
  return index === -1 ? 0 : index;
}

/** Chart buckets start at Unix seconds; a value that can only be milliseconds is read as such. */
const cohortMs = (cohort: number) => (cohort < 1e11 ? cohort * 1000 : cohort);

/** The money measure per UTC day (`YYYY-MM-DD`), summed when a day appears more than once. */
export function dailyAmounts(chart: RevenueCatChart): Map<string, number> {
  const measure = revenueMeasure(chart);
  const amounts = new Map<string, number>();
  for (const point of chart.values) {
    if (point.measure !== measure) continue;
    const day = isoDay(cohortMs(point.cohort));
    amounts.set(day, (amounts.get(day) ?? 0) + point.value);
  }
  return amounts;
}

/**
 * RevenueCat's Revenue is what customers paid in the period minus the refunds processed in it,
 * before the stores' commission and taxes. Proceeds (after commission and taxes) are the same chart
 * with another `revenue_type`, i.e. a second chart call, which the 5-a-minute budget cannot spare;
 * so `netRevenue` is Revenue after refunds and equals `grossRevenue`. v2 has no project-wide list of
 * transactions, so there is no last payment to show.
 */
export function toRevenue(params: {
  range: Range;
  now: number;
  currency: string;
  mrr: number;
  activeSubscriptions: number;
  chart: RevenueCatChart;
}): RevenueReport {
  const chart = dailyChart(params.range, params.now, dailyAmounts(params.chart));
  const gross = roundMoney(chart.reduce((total, point) => total + point.revenue, 0));
  return {
    currency: params.currency,
    grossRevenue: gross,
    netRevenue: gross,
    mrr: roundMoney(params.mrr),
    activeSubscribers: Math.max(0, Math.round(params.activeSubscriptions)),
    chart,
    lastPayment: null,
  };
}
