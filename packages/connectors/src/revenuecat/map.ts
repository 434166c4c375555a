import type { Range } from '@dash/contracts';
import type { RevenueReport } from '../connector.ts';
import { dailyChart, isoDay, roundMoney } from '../dates.ts';
import { chartPoint, type RevenueCatChart, type RevenueCatOverview } from './schemas.ts';

/** An overview card by its id (`mrr`, `active_subscriptions`): names are for people and may change. null when the overview has no such card. */
export function overviewValue(overview: RevenueCatOverview, id: string): number | null {
  return overview.metrics.find((metric) => metric.id === id)?.value ?? null;
}

/**
 * The revenue chart's money measure: `Revenue` (or `Proceeds` when that revenue type is selected), not
 * the `Transactions` count that comes alongside it. The first measure when none is named so.
 */
export function revenueMeasure(chart: RevenueCatChart): number {
  const index = (chart.measures ?? []).findIndex((m) => /revenue|proceeds/i.test(m.display_name ?? '') && m.unit !== '#');
  return index === -1 ? 0 : index;
}

/** Chart buckets start at Unix seconds; a value that can only be milliseconds is read as such. */
const cohortMs = (cohort: number) => (cohort < 1e11 ? cohort * 1000 : cohort);

/** Each value of a chart as `{ cohort, measure, value }`, whichever of the two forms RevenueCat sent it in. */
function chartPoints(chart: RevenueCatChart): { cohort: number; measure: number; value: number | null }[] {
  return chart.values.flatMap((entry) => {
    if (Array.isArray(entry)) {
      const [cohort, ...values] = entry;
      return typeof cohort === 'number' ? values.map((value, measure) => ({ cohort, measure, value })) : [];
    }
    const point = chartPoint.safeParse(entry);
    return point.success ? [point.data] : [];
  });
}

/** The money measure per UTC day (`YYYY-MM-DD`), summed when a day appears more than once; a null value is no data, not 0. */
export function dailyAmounts(chart: RevenueCatChart): Map<string, number> {
  const measure = revenueMeasure(chart);
  const amounts = new Map<string, number>();
  for (const point of chartPoints(chart)) {
    if (point.measure !== measure || point.value === null) continue;
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
  mrr: number | null;
  activeSubscriptions: number | null;
  chart: RevenueCatChart;
}): RevenueReport {
  const chart = dailyChart(params.range, params.now, dailyAmounts(params.chart));
  const gross = roundMoney(chart.reduce((total, point) => total + point.revenue, 0));
  return {
    currency: params.currency,
    grossRevenue: gross,
    netRevenue: gross,
    mrr: params.mrr === null ? null : roundMoney(params.mrr),
    activeSubscribers: params.activeSubscriptions === null ? null : Math.max(0, Math.round(params.activeSubscriptions)),
    chart,
    lastPayment: null,
  };
}
