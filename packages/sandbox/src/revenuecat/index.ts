import { DAY_MS, demoProducts, sandboxTokens, seededRandom } from '../demo.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';

const MINUTE = 60_000;

/**
 * What one unit of USD is worth in the currencies RevenueCat's `currency` parameter accepts. RevenueCat
 * converts for us; the fake does the same with fixed rates so the demo tells one story in any currency.
 */
const usdRates: Record<string, number> = {
  USD: 1,
  EUR: 0.92,
  GBP: 0.79,
  AUD: 1.52,
  CAD: 1.37,
  JPY: 151,
  BRL: 5.05,
  KRW: 1370,
  CNY: 7.2,
  MXN: 17.1,
  SEK: 10.5,
  PLN: 3.95,
  NZD: 1.65,
  CHF: 0.88,
};

/** The chart names RevenueCat's own 400 lists; the fake draws `revenue`, `mrr` and `actives`. */
const chartNames = [
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
const resolutions = [
  { id: '0', display_name: 'day' },
  { id: '1', display_name: 'week' },
  { id: '2', display_name: 'month' },
  { id: '3', display_name: 'quarter' },
  { id: '4', display_name: 'year' },
] as const;

const revenueTypes = ['revenue', 'revenue_net_of_taxes', 'proceeds'] as const;
type RevenueType = (typeof revenueTypes)[number];

/** One day of a project's App Store and Play Store business, in USD. */
interface Day {
  start: number;
  /** Sales minus the refunds processed that day: RevenueCat's Revenue. */
  revenue: number;
  refunds: number;
  transactions: number;
  /** Paid subscriptions active at the end of the day. */
  actives: number;
  monthlyActives: number;
  yearlyActives: number;
}

interface Project {
  id: string;
  name: string;
  createdAt: number;
  monthlyPrice: number;
  yearlyPrice: number;
  days: Day[];
  /** Share of a price the stores keep as tax (VAT, sales tax), and as commission after that. */
  taxRate: number;
  commission: number;
}

// Sunday first, like Date#getUTCDay: consumer apps sell most at the weekend.
const weekday = [1.18, 0.92, 0.9, 0.93, 0.97, 1.03, 1.12];

/** How far back the projects' days go: more than a year, so a year's daily history is whole on the demo's first day. */
const HISTORY_DAYS = 450;

/**
 * 450 days of daily revenue for one app: subscribers grow by ~40% over the last year, monthly plans renew
 * about a thirtieth a day, yearly plans arrive as a trickle, a little over 1% of payments are refunded.
 * Today is the part of the day that has passed (RevenueCat marks it incomplete).
 */
function buildProject(
  name: string,
  { projectId, monthlyPrice, yearlyPrice, subscribers }: { projectId: string; monthlyPrice: number; yearlyPrice: number; subscribers: number },
  now: number,
  yearlyShare: number,
): Project {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const days: Day[] = [];
  // The days before the last year come from a stream of their own, so the last year stays as it always was.
  const before = seededRandom(`revenuecat:${projectId}:before`);
  for (let i = HISTORY_DAYS; i > 365; i--) days.push(dayOf(i, before));
  const random = seededRandom(`revenuecat:${projectId}`);
  for (let i = 365; i >= 0; i--) days.push(dayOf(i, random));

  function dayOf(i: number, draw: () => number): Day {
    const start = today - i * DAY_MS;
    const t = (365 - i) / 365;
    const actives = Math.round(subscribers * (0.7 + 0.3 * t) - 6 * draw());
    const yearlyActives = Math.round(actives * yearlyShare);
    const monthlyActives = actives - yearlyActives;
    const season = weekday[new Date(start).getUTCDay()] ?? 1;
    const monthly = Math.round((monthlyActives / 30.4) * season * (0.85 + 0.3 * draw()));
    const yearly = Math.round((yearlyActives / 365) * season * (0.4 + 1.2 * draw()));
    const refundedMonthly = draw() < monthly * 0.01 ? 1 + Math.floor(draw() * 2) : 0;
    const refundedYearly = draw() < 0.06 ? 1 : 0;
    const refunds = refundedMonthly * monthlyPrice + refundedYearly * yearlyPrice;
    const share = i === 0 ? (now - today) / DAY_MS : 1;
    return {
      start,
      revenue: (monthly * monthlyPrice + yearly * yearlyPrice - refunds) * share,
      refunds: refunds * share,
      transactions: Math.round((monthly + yearly) * share),
      actives: i === 0 ? subscribers : actives,
      monthlyActives: i === 0 ? subscribers - Math.round(subscribers * yearlyShare) : monthlyActives,
      yearlyActives: i === 0 ? Math.round(subscribers * yearlyShare) : yearlyActives,
    };
  }
  return {
    id: projectId,
    name,
    createdAt: today - 700 * DAY_MS,
    monthlyPrice,
    yearlyPrice,
    days,
    taxRate: 0.08,
    commission: 0.15,
  };
}

const round2 = (value: number) => Math.round(value * 100) / 100;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function error(status: number, type: string, message: string, param?: string): SandboxReply {
  return {
    status,
    body: {
      object: 'error',
      type,
      ...(param ? { param } : {}),
      message,
      retryable: false,
      doc_url: `https://errors.rev.cat/${type.replace(/_/g, '-')}`,
    },
  };
}

const parameterError = (param: string, message: string) => error(400, 'parameter_error', message, param);

function currencyOf(request: SandboxRequest): string | SandboxReply {
  const currency = request.query.get('currency') ?? 'USD';
  if (usdRates[currency] === undefined) {
    return parameterError('currency', `currency must be one of ${Object.keys(usdRates).join(', ')}`);
  }
  return currency;
}

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

function overview(project: Project, currency: string): SandboxReply {
  const rate = usdRates[currency] ?? 1;
  const today = project.days.at(-1);
  if (!today) return error(500, 'server_error', 'No data');
  const last28 = project.days.slice(-29, -1);
  const sum = (pick: (day: Day) => number) => last28.reduce((total, day) => total + pick(day), 0);
  const mrr = today.monthlyActives * project.monthlyPrice + (today.yearlyActives * project.yearlyPrice) / 12;
  // The overview is a cached snapshot: values come truncated to whole units.
  const metric = (id: string, name: string, description: string, unit: string, period: string, value: number) => ({
    object: 'overview_metric',
    id,
    name,
    description,
    unit,
    period,
    value: Math.trunc(value),
    last_updated_at: null,
    last_updated_at_iso8601: null,
  });
  return {
    body: {
      object: 'overview_metrics',
      metrics: [
        metric('active_trials', 'Active Trials', 'In total', '#', 'P0D', today.actives * 0.045),
        metric('active_subscriptions', 'Active Subscriptions', 'In total', '#', 'P0D', today.actives),
        metric('mrr', 'MRR', 'In the last 28 days', '$', 'P28D', mrr * rate),
        metric('revenue', 'Revenue', 'In the last 28 days', '$', 'P28D', sum((day) => day.revenue) * rate),
        metric('new_customers', 'New Customers', 'In the last 28 days', '#', 'P28D', today.actives * 0.52),
        metric('active_users', 'Active Users', 'In the last 28 days', '#', 'P28D', today.actives * 5.1),
        metric('num_tx_last_28_days', 'Transactions', 'In the last 28 days', '#', 'P28D', sum((day) => day.transactions)),
      ],
    },
  };
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

function chart(project: Project, name: string, request: SandboxRequest): SandboxReply {
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

/**
 * RevenueCat API v2 (`/v2/projects`, `/v2/projects/{id}/metrics/overview`, `/v2/projects/{id}/charts/{name}`)
 * for the demo's App Store apps: Pocket Ledger and Tideline, 450 days of daily revenue each.
 */
export function revenuecatService(now: number): SandboxService {
  // Pocket Ledger sells more monthly plans; Tideline's anglers buy a year at a time.
  const yearlyShare: Record<string, number> = { 'pocket-ledger': 0.3, tideline: 0.45 };
  const projects = demoProducts.flatMap((product) =>
    product.revenue.provider === 'revenuecat' ? [buildProject(product.name, product.revenue, now, yearlyShare[product.slug] ?? 0.3)] : [],
  );
  // And a project the key can see that is on no dashboard: the list has a second page at limit=2.
  const listed = [
    ...projects.map((p) => ({ object: 'project', id: p.id, name: p.name, created_at: p.createdAt })),
    { object: 'project', id: 'proj0c81d2aa', name: 'Weekend experiments', created_at: now - 90 * DAY_MS },
  ];
  const find = (id: string | undefined) => projects.find((p) => p.id === id);
  const missing = () => error(404, 'resource_missing', 'Project not found.');

  return {
    name: 'revenuecat',
    basePath: '/v2',
    authorize: (request) => request.headers.authorization === `Bearer ${sandboxTokens.revenuecat}`,
    unauthorized: () => error(401, 'authentication_error', 'Invalid API key.'),
    // The Charts & Metrics domain's documented default: 25 a minute per project. Retry-After is in ms.
    rateLimit: {
      limit: 25,
      windowMs: MINUTE,
      headers: ({ limit, used }) => ({
        'RevenueCat-Rate-Limit-Current-Usage': String(used),
        'RevenueCat-Rate-Limit-Current-Limit': String(limit),
      }),
      tooMany: (retryAfterMs) => ({
        status: 429,
        headers: { 'Retry-After': String(Math.ceil(retryAfterMs)) },
        body: {
          object: 'error',
          type: 'rate_limit_error',
          message: 'Rate limit exceeded',
          retryable: true,
          doc_url: 'https://errors.rev.cat/rate-limit-error',
          backoff_ms: Math.ceil(retryAfterMs),
        },
      }),
    },
    routes: [
      {
        method: 'GET',
        path: '/projects',
        handle: (request) => {
          const limit = Math.min(100, Math.max(1, Number(request.query.get('limit') ?? 20) || 20));
          const after = request.query.get('starting_after');
          const from = after ? listed.findIndex((p) => p.id === after) + 1 : 0;
          const items = listed.slice(from, from + limit);
          const last = items.at(-1);
          const more = from + limit < listed.length && last;
          return {
            body: {
              object: 'list',
              items,
              next_page: more ? `/v2/projects?starting_after=${last.id}&limit=${limit}` : null,
              url: '/v2/projects',
            },
          };
        },
      },
      {
        method: 'GET',
        path: '/projects/:id/metrics/overview',
        handle: (request) => {
          const project = find(request.params.id);
          if (!project) return missing();
          const currency = currencyOf(request);
          return typeof currency === 'string' ? overview(project, currency) : currency;
        },
      },
      {
        method: 'GET',
        path: '/projects/:id/charts/:chart',
        handle: (request) => {
          const project = find(request.params.id);
          return project ? chart(project, request.params.chart ?? '', request) : missing();
        },
      },
      {
        method: 'GET',
        path: '/projects/:id/charts/:chart/options',
        handle: (request) => {
          if (!find(request.params.id)) return missing();
          const name = request.params.chart ?? '';
          if (!chartNames.includes(name)) return parameterError('chart_name', `chart_name must be one of: ${chartNames.join(', ')}`);
          return {
            body: {
              object: 'chart_options',
              resolutions,
              segments: [],
              filters: [],
              user_selectors:
                name === 'actives'
                  ? {}
                  : {
                      revenue_type: {
                        default: 'revenue',
                        display_name: 'Revenue type',
                        options: revenueTypes.map((id) => ({ id, display_name: id })),
                      },
                    },
            },
          };
        },
      },
    ],
  };
}
