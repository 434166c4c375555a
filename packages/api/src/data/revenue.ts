import type { Currency, DataMeta, Range, Revenue } from '@dash/contracts';
import { daysOf, roundMoney, sumKnown, type RevenueReport } from '@dash/connectors';
import { fail } from '../errors.ts';

export interface RevenuePart {
  revenue: Revenue;
  conversion?: NonNullable<DataMeta['conversion']>;
}

/** Units of `code` per 1 USD; USD itself is 1 by definition. */
function rateOf(code: string, rates: Record<string, number>): number {
  if (code === 'USD') return 1;
  const rate = rates[code];
  if (rate === undefined) {
    throw fail('BAD_REQUEST', `No exchange rate for ${code} in settings: add exchangeRates.${code} (units per 1 USD) to convert this revenue`);
  }
  return rate;
}

/**
 * A report in the asked currency. RevenueCat already reports in it; Stripe reports in the account's
 * own, which is converted with the rates in settings, and the answer says so.
 */
export function convertRevenue(report: RevenueReport, to: Currency, rates: Record<string, number>): RevenuePart {
  const { currency, ...revenue } = report;
  const from = currency.toUpperCase();
  if (from === to) return { revenue };
  const rate = rateOf(to, rates) / rateOf(from, rates);
  const convert = (amount: number) => roundMoney(amount * rate);
  return {
    revenue: {
      grossRevenue: convert(revenue.grossRevenue),
      netRevenue: convert(revenue.netRevenue),
      mrr: revenue.mrr === null ? null : convert(revenue.mrr),
      activeSubscribers: revenue.activeSubscribers,
      chart: revenue.chart.map((point) => ({ date: point.date, revenue: convert(point.revenue) })),
      lastPayment: revenue.lastPayment && { ...revenue.lastPayment, amount: convert(revenue.lastPayment.amount) },
    },
    conversion: { from, to, rate: Math.round(rate * 1e6) / 1e6 },
  };
}

/** Several projects' revenue, all in one currency already, as one: sums, a summed chart, the newest payment. */
export function sumRevenue(parts: readonly Revenue[]): Revenue {
  const byDay = new Map<string, number>();
  let days = 0;
  for (const part of parts) {
    days = Math.max(days, part.chart.length);
    for (const point of part.chart) byDay.set(point.date, (byDay.get(point.date) ?? 0) + point.revenue);
  }
  const chart = [...byDay.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .slice(-days)
    .map(([date, revenue]) => ({ date, revenue: roundMoney(revenue) }));
  const payments = parts.flatMap((part) => (part.lastPayment ? [part.lastPayment] : []));
  const mrr = sumKnown(parts.map((part) => part.mrr));
  return {
    grossRevenue: roundMoney(parts.reduce((sum, part) => sum + part.grossRevenue, 0)),
    netRevenue: roundMoney(parts.reduce((sum, part) => sum + part.netRevenue, 0)),
    mrr: mrr === null ? null : roundMoney(mrr),
    activeSubscribers: sumKnown(parts.map((part) => part.activeSubscribers)),
    chart,
    lastPayment: payments.sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0] ?? null,
  };
}

/**
 * One range cut out of a whole-history report (RevenueCat's): its days of the chart and their sum.
 * Net is the whole history's share of gross applied to the range, exact when the source reports net
 * equal to gross, as RevenueCat's revenue chart does.
 */
export function sliceRevenue(report: RevenueReport, range: Range, now: number): RevenueReport {
  if (range === 'all') return report;
  // The chart is oldest first; walking back from its end touches only the range's days, not years.
  const days = daysOf(range, now);
  const chart = days.map((date) => ({ date, revenue: 0 }));
  let at = report.chart.length - 1;
  for (let i = chart.length - 1; i >= 0 && at >= 0; i--) {
    const point = chart[i];
    if (!point) continue;
    while (at >= 0 && (report.chart[at]?.date ?? '') > point.date) at--;
    const source = report.chart[at];
    if (source?.date === point.date) point.revenue = source.revenue;
  }
  const grossRevenue = roundMoney(chart.reduce((sum, point) => sum + point.revenue, 0));
  const netShare = report.grossRevenue === 0 ? 1 : report.netRevenue / report.grossRevenue;
  return { ...report, chart, grossRevenue, netRevenue: roundMoney(grossRevenue * netShare) };
}
