import { DAY_MS } from '../demo.ts';
import type { SandboxReply, SandboxRequest } from '../service.ts';
import { currencyOf, usdRates } from './currency.ts';
import type { Project } from './projects.ts';
import { parameterError } from './replies.ts';

/**
 * RevenueCat's charts: the chart names, resolutions and revenue types it knows, and a chart (`revenue`, `mrr`,
 * `actives`) drawn from a project's days over a range, bucketed by its resolution.
 */

/** The chart names RevenueCat's own 400 lists; the fake draws `revenue`, `mrr` and `actives`. */
export const chartNames = [
  'actives',
  'actives_movement',
  'actives_new',
  'arr',
  'churn',
  'cohort_explorer',
  'conversion_to_paying',
  'customers_new',
  'customers_active',
  'ltv_per_customer',
  'ltv_per_paying_customer',
  'mrr',
  'mrr_movement',
  'refund_rate',
  'revenue',
  'subscription_retention',
  'subscription_status',
  'trials',
  'trials_movement',
  'trials_new',
  'trial_conversion_rate',
];

/** Resolution ids as the chart options endpoint lists them: the API takes the id, not the name. */
export const resolutions = [
  { id: '0', display_name: 'day' },
  { id: '1', display_name: 'week' },
  { id: '2', display_name: 'month' },
  { id: '3', display_name: 'quarter' },
  { id: '4', display_name: 'year' },
] as const;

export const revenueTypes = ['revenue', 'revenue_net_of_taxes', 'proceeds'] as const;
type RevenueType = (typeof revenueTypes)[number];

const round2 = (value: number) => Math.round(value * 100) / 100;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `YYYY-MM-DD` as midnight UTC, or undefined when it is anything else (a Unix time, a typo). */
function parseDay(value: string | null): number | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) || isoDay(ms) !== value ? undefined : ms;
}

/** The start of the bucket a day falls in, for a resolution id. */
function bucketOf(resolution: string, dayStart: number): number {
  const date = new Date(dayStart);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  switch (resolution) {
    case '1':
      return dayStart - ((date.getUTCDay() + 6) % 7) * DAY_MS;
    case '2':
      return Date.UTC(year, month, 1);
    case '3':
      return Date.UTC(year, month - (month % 3), 1);
    case '4':
      return Date.UTC(year, 0, 1);
    default:
      return dayStart;
  }
}

const chartInfo = {
  revenue: {
    category: 'revenue',
    display_name: 'Revenue',
    description: 'Revenue generated in the period, net of refunds',
    documentation_link: 'dashboard-and-metrics/charts/revenue-chart',
    yaxis: '$',
  },
  mrr: {
    category: 'revenue',
    display_name: 'MRR',
    description: 'Monthly Recurring Revenue',
    documentation_link: 'dashboard-and-metrics/charts/monthly-recurring-revenue-mrr-chart',
    yaxis: '$',
  },
  actives: {
    category: 'subscription',
    display_name: 'Active Subscriptions',
    description: 'Paid subscriptions that have not expired',
    documentation_link: 'dashboard-and-metrics/charts/active-subscriptions-chart',
    yaxis: '#',
  },
} as const;
type DrawnChart = keyof typeof chartInfo;

export function chart(project: Project, name: string, request: SandboxRequest): SandboxReply {
  if (!chartNames.includes(name)) {
    return parameterError('chart_name', `chart_name must be one of: ${chartNames.join(', ')}`);
  }
  if (!(name in chartInfo)) return parameterError('chart_name', `The ${name} chart is not available for this project.`);
  const drawn = name as DrawnChart;
  const currency = currencyOf(request);
  if (typeof currency !== 'string') return currency;
  const resolution = request.query.get('resolution') ?? '0';
  if (!resolutions.some((r) => r.id === resolution)) {
    return parameterError('resolution', `resolution must be one of the ids the chart options list: ${resolutions.map((r) => r.id).join(', ')}`);
  }
  const today = project.days.at(-1)?.start ?? 0;
  const startParam = request.query.get('start_date');
  const endParam = request.query.get('end_date');
  const start = startParam === null ? today - 29 * DAY_MS : parseDay(startParam);
  if (start === undefined) return parameterError('start_date', 'start_date must be a date in the format YYYY-MM-DD');
  const end = endParam === null ? today : parseDay(endParam);
  if (end === undefined) return parameterError('end_date', 'end_date must be a date in the format YYYY-MM-DD');
  if (end < start) return parameterError('end_date', 'end_date must not be before start_date');

  let selectors: unknown = {};
  try {
    selectors = JSON.parse(request.query.get('selectors') ?? '{}');
  } catch {
    return parameterError('selectors', 'selectors must be a JSON object');
  }
  const selected = (typeof selectors === 'object' && selectors !== null ? selectors : {}) as Record<string, unknown>;
  const revenueType = (selected.revenue_type ?? 'revenue') as RevenueType;
  if (drawn !== 'actives' && !revenueTypes.includes(revenueType)) {
    return parameterError('selectors', `revenue_type must be one of: ${revenueTypes.join(', ')}`);
  }

  const rate = usdRates[currency] ?? 1;
  const deduct = revenueType === 'revenue' ? 1 : revenueType === 'revenue_net_of_taxes' ? 1 / (1 + project.taxRate) : (1 - project.commission) / (1 + project.taxRate);
  const byDay = new Map(project.days.map((day) => [day.start, day]));
  const buckets = new Map<number, { values: number[]; days: number; incomplete: boolean }>();
  for (let at = start; at <= end; at += DAY_MS) {
    const bucket = bucketOf(resolution, at);
    const entry = buckets.get(bucket) ?? { values: [0, 0], days: 0, incomplete: false };
    const day = byDay.get(at);
    if (drawn === 'revenue') {
      entry.values = [(entry.values[0] ?? 0) + (day?.revenue ?? 0) * deduct * rate, (entry.values[1] ?? 0) + (day?.transactions ?? 0)];
    } else if (drawn === 'mrr') {
      // A stock: the bucket shows its last day.
      const mrr = day ? day.monthlyActives * project.monthlyPrice + (day.yearlyActives * project.yearlyPrice) / 12 : 0;
      entry.values = [mrr * rate];
    } else {
      entry.values = [day?.actives ?? 0];
    }
    entry.days++;
    entry.incomplete ||= at >= today;
    buckets.set(bucket, entry);
  }

  const measures =
    drawn === 'revenue'
      ? [
          { display_name: revenueType === 'proceeds' ? 'Proceeds' : 'Revenue', description: '', unit: '$', decimal_precision: 2, chartable: true },
          { display_name: 'Transactions', description: '', unit: '#', decimal_precision: 0, chartable: true },
        ]
      : [{ display_name: chartInfo[drawn].display_name, description: '', unit: chartInfo[drawn].yaxis, decimal_precision: drawn === 'actives' ? 0 : 2, chartable: true }];
  const values = [...buckets.entries()].flatMap(([bucket, entry]) =>
    measures.map((_, measure) => ({
      cohort: Math.floor(bucket / 1000),
      measure,
      value: measures[measure]?.unit === '#' ? Math.round(entry.values[measure] ?? 0) : round2(entry.values[measure] ?? 0),
      incomplete: entry.incomplete,
    })),
  );
  const totals = Object.fromEntries(
    measures.map((m, measure) => [m.display_name, round2(values.filter((v) => v.measure === measure).reduce((total, v) => total + v.value, 0))]),
  );
  const averages = Object.fromEntries(Object.entries(totals).map(([key, total]) => [key, round2(total / Math.max(1, buckets.size))]));
  const info = chartInfo[drawn];
  return {
    body: {
      object: 'chart_data',
      category: info.category,
      display_type: 'line',
      display_name: info.display_name,
      description: info.description,
      documentation_link: info.documentation_link,
      last_computed_at: null,
      start_date: Math.floor(start / 1000),
      end_date: Math.floor(end / 1000),
      yaxis_currency: currency,
      filtering_allowed: true,
      segmenting_allowed: true,
      resolution: resolutions.find((r) => r.id === resolution)?.display_name ?? 'day',
      values,
      summary: drawn === 'revenue' ? { total: totals, average: averages } : { average: averages },
      yaxis: info.yaxis,
      segments: null,
      segments_limit: null,
      measures,
      user_selectors: drawn === 'actives' ? {} : { revenue_type: revenueType },
      unsupported_params: null,
    },
  };
}
