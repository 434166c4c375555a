import { DAY_MS, seededRandom, type DemoProduct } from '../demo.ts';
import type { SandboxReply, SandboxRequest } from '../service.ts';
import { badRequest, noPermission } from './replies.ts';

/**
 * Sentry's usage stats (`stats_v2`): each project's error events per day by outcome, as the demo's story has
 * them, and the outcomes query over them.
 */

const HOUR_MS = 3_600_000;

/** How long Sentry keeps event counts (outcomes): older days answer 0, as Sentry has nothing left for them. */
const STATS_DAYS = 90;
const OUTCOMES = ['accepted', 'filtered', 'rate_limited', 'invalid', 'abuse', 'client_discard', 'cardinality_limited'] as const;
type Outcome = (typeof OUTCOMES)[number];

/**
 * Each project's error events per day, by outcome. A steady level with a weekly rhythm, and the days the story
 * gives: Pocket Ledger's bad release 26 days ago, Formfox's Hacker News launch 9 days ago (spike protection rate
 * limits part of it). Inbound filters drop a few percent (browser extensions, localhost).
 */
const errorStory: Record<DemoProduct['slug'], { perDay: number; weekly: readonly number[]; spikes: Record<number, number> }> = {
  'pocket-ledger': { perDay: 310, weekly: [1.2, 0.95, 0.92, 0.93, 0.95, 1.02, 1.18], spikes: { 26: 3.4, 25: 1.8 } },
  formfox: { perDay: 540, weekly: [0.7, 1.08, 1.12, 1.1, 1.06, 0.98, 0.72], spikes: { 9: 4.1, 8: 1.9 } },
  tideline: { perDay: 180, weekly: [1.25, 0.92, 0.9, 0.9, 0.94, 1.03, 1.28], spikes: {} },
};

function outcomesOn(product: DemoProduct, dayStart: number, now: number): Partial<Record<Outcome, number>> {
  const story = errorStory[product.slug];
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const ago = Math.round((today - dayStart) / DAY_MS);
  if (ago < 0 || ago >= STATS_DAYS) return {};
  const random = seededRandom(`sentry:outcomes:${product.slug}:${Math.floor(dayStart / DAY_MS)}`);
  const spike = story.spikes[ago] ?? 1;
  const sofar = ago === 0 ? Math.max(0.05, (now - today) / DAY_MS) : 1;
  const received = Math.round(story.perDay * (story.weekly[new Date(dayStart).getUTCDay()] ?? 1) * (0.85 + random() * 0.3) * spike * sofar);
  const filtered = Math.round(received * (0.02 + random() * 0.03));
  const rateLimited = spike > 2 ? Math.round(received * 0.3) : 0;
  return { accepted: received - filtered - rateLimited, filtered, rate_limited: rateLimited };
}

const PARAM_UNITS: Record<string, number> = { m: 60_000, h: HOUR_MS, d: DAY_MS, w: 7 * DAY_MS };
const periodMs = (value: string): number | undefined => {
  const match = /^(\d+)([mhdw])$/.exec(value);
  return match ? Number(match[1]) * (PARAM_UNITS[match[2] ?? ''] ?? NaN) : undefined;
};
/** Sentry's timestamps in usage stats: seconds, `Z`, no fraction. */
const statsTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const parseTime = (value: string) => (/^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value));

/**
 * `GET /organizations/{org}/stats_v2/`, as Sentry's outcomes query answers it: the range (a `statsPeriod`, or
 * `start` and an inclusive `end`) widened to whole intervals, every interval listed, and one group per value of
 * the `groupBy` columns that had any events, each with a zero-filled series and its total. Errors only: the demo
 * projects send no transactions or attachments.
 */
export function usageStats(request: SandboxRequest, projects: readonly { product: DemoProduct; id: string }[]): SandboxReply {
  const { query } = request;
  const field = query.get('field');
  if (!field) return badRequest('At least one "field" is required.');
  if (field !== 'sum(quantity)' && field !== 'sum(times_seen)') return badRequest(`Invalid field: "${field}"`);
  const groupBy = query.getAll('groupBy');
  for (const column of groupBy) {
    if (!['outcome', 'category', 'reason', 'project'].includes(column)) return badRequest(`Invalid groupBy: "${column}"`);
    if (column !== 'outcome' && column !== 'category') return badRequest(`The sandbox groups usage stats by outcome and category only, not "${column}"`);
  }
  const categories = query.getAll('category');
  if (categories.length === 0 && !groupBy.includes('category')) return badRequest('Query must have category as groupby or filter');
  const interval = periodMs(query.get('interval') ?? '1h');
  if (interval === undefined || interval % HOUR_MS !== 0 || interval < HOUR_MS) return badRequest('The interval has to be a multiple of the minimum interval of one hour.');
  if (interval > DAY_MS) return badRequest('The interval has to be less than one day.');
  if (DAY_MS % interval !== 0) return badRequest('The interval should divide one day without a remainder.');
  const period = query.get('statsPeriod');
  const [startParam, endParam] = [query.get('start'), query.get('end')];
  let from: number;
  let to: number;
  if (period) {
    const span = periodMs(period);
    if (span === undefined) return badRequest(`Invalid statsPeriod: '${period}'`);
    [from, to] = [request.now - span, request.now];
  } else if (startParam && endParam) {
    // An explicit end is inclusive: Sentry adds a second to it.
    [from, to] = [parseTime(startParam), parseTime(endParam) + 1000];
    if (Number.isNaN(from) || Number.isNaN(to)) return badRequest('start and end must be ISO 8601 datetimes or epoch seconds');
    if (from >= to) return badRequest('start must be before end');
  } else {
    return badRequest('You must either provide a statsPeriod, or a start and end.');
  }
  const start = Math.floor(Math.min(from, request.now) / interval) * interval;
  const end = Math.ceil(to / interval) * interval;
  if ((end - start) / interval > 1000) return badRequest('Your interval and date range would create too many results. Use a larger interval, or a smaller date range.');
  const ids = query.getAll('project').filter(Boolean);
  if (ids.some((id) => id !== '-1' && !projects.some((p) => p.id === id))) return noPermission;
  const wanted = ids.length === 0 || ids.includes('-1') ? projects : projects.filter((p) => ids.includes(p.id));
  const outcomeFilter = query.getAll('outcome');
  const intervals: number[] = [];
  for (let at = start; at < end; at += interval) intervals.push(at);
  const countsOf = (outcome: Outcome) =>
    intervals.map((at) => {
      const dayStart = Math.floor(at / DAY_MS) * DAY_MS;
      const perDay = wanted.reduce((sum, p) => sum + (outcomesOn(p.product, dayStart, request.now)[outcome] ?? 0), 0);
      return Math.round((perDay * interval) / DAY_MS);
    });
  const groups = OUTCOMES.filter((outcome) => outcomeFilter.length === 0 || outcomeFilter.includes(outcome))
    .map((outcome) => {
      const series = countsOf(outcome);
      const by = { ...(groupBy.includes('outcome') ? { outcome } : {}), ...(groupBy.includes('category') ? { category: 'error' } : {}) };
      return { by, outcome, series };
    })
    .filter((group) => group.series.some((count) => count > 0));
  // Without the outcome among the columns, the outcomes add up into one group.
  const merged = groupBy.includes('outcome')
    ? groups
    : groups.length === 0
      ? []
      : [{ by: groups[0]?.by ?? {}, series: intervals.map((_, i) => groups.reduce((sum, g) => sum + (g.series[i] ?? 0), 0)) }];
  return {
    body: {
      start: statsTime(start),
      end: statsTime(end),
      intervals: intervals.map(statsTime),
      groups: merged.map(({ by, series }) => ({ by, totals: { [field]: series.reduce((a, b) => a + b, 0) }, series: { [field]: series } })),
    },
  };
}
