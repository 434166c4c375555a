import { metricOf, type Analytics, type DataResult, type ErrorTracker, type IntegrationName, type MetricKey, type Project, type Storefront } from '@dash/contracts';
import { addDays, STORE_REVIEWS } from '@dash/connectors';
import type { Store } from '@dash/db';
import { dataOf, type DataReads } from '../data/reads.ts';

/**
 * The "why" of a metric alert: what else happened to the project in the alert's window, read from the widgets' own
 * answers (the data procedures, through the data cache): deploys and merged pull requests, new Sentry issues, outages,
 * the referrers and pages whose share moved most, new one-star reviews, a funding change. Plain text: titles, issue
 * names and reviews are strangers' words, clipped here and escaped by each channel for its medium.
 */

const DAY = 86_400_000;
const MAX_LINES = 6;
const CLIP = 80;
/** The shipping widget's list (its default limit), and the history snapshot's longer one when that does not reach back. */
const SHIPPING_WIDGET = 20;
const SHIPPING_LONG = 200;
/** Open Collective's latest transactions, as its connector asks for them. */
const TRANSACTIONS = 20;
/** A share moved when it changed by 5 points or more and by half or more (a referrer at 2 % going to 3 % did not). */
const SHARE_POINTS = 0.05;
const SHARE_RATIO = 1.5;
/** A funding change worth a line: 5 % of the balance before the window. */
const FUNDING_SHARE = 0.05;

export interface WhyInput {
  project: string;
  metric: MetricKey;
  /** YYYY-MM-DD, UTC days, inclusive: the alert's window. */
  from: string;
  to: string;
  now: number;
}

/**
 * With the store, the project's integrations are known (only those are read, and named), and so its collective (funding
 * is read only then: the balance from the metric history, or the transactions), and the inbox's Better Stack threads
 * give the outages that ended (the health answer lists only open incidents).
 */
export interface WhyOptions {
  store?: Pick<Store, 'projects' | 'notifications' | 'history'>;
}

type Topic = 'deploys' | 'errors' | 'uptime' | 'referrers' | 'reviews' | 'funding';
/** Most relevant first: the metric's own source, then the usual suspects in this order. */
const TOPICS: readonly Topic[] = ['deploys', 'errors', 'uptime', 'referrers', 'reviews', 'funding'];
const TOPIC_OF: Partial<Record<IntegrationName, Topic>> = {
  deploy_host: 'deploys',
  code_host: 'deploys',
  error_tracker: 'errors',
  uptime_monitor: 'uptime',
  analytics: 'referrers',
  storefront: 'reviews',
  funding: 'funding',
};

/** What a source said: its lines (none: nothing moved), that it failed (named), or nothing (not set up, not compared). */
type Finding = { lines: string[] } | { failed: string } | undefined;

/** The window's instants, [start, end) ms UTC. */
type Window = { start: number; end: number; has: (iso: string) => boolean };

/** At most six lines about the project's other sources in [from, to], most relevant first; never throws. */
export async function whyLines(reads: DataReads, input: WhyInput, options: WhyOptions = {}): Promise<string[]> {
  const start = Date.parse(`${input.from}T00:00:00Z`);
  const end = Date.parse(`${input.to}T00:00:00Z`) + DAY;
  if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start) return [];
  const window: Window = { start, end, has: (iso) => inRange(Date.parse(iso), start, end) };
  const project = options.store ? await options.store.projects.get(input.project).catch(() => undefined) : undefined;
  const has = (name: IntegrationName) => !options.store || project?.integrations[name] !== undefined;
  const slug = input.project;

  const findings: Record<Topic, Promise<Finding>> = {
    deploys: has('code_host') || has('deploy_host') ? deploys(reads, slug, window, shippingName(project)) : none,
    errors: has('error_tracker') ? safely('Sentry', async () => errors(await read(() => reads.errortracker({ project: slug })), window)) : none,
    uptime: has('uptime_monitor') ? safely('Better Stack', () => uptime(reads, slug, window, options.store)) : none,
    referrers: has('analytics') ? safely(analyticsName(project), () => traffic(reads, slug, window, input.now)) : none,
    reviews: has('storefront') ? safely('App Store Connect', async () => reviews(await read(() => reads.storefront({ project: slug })), window)) : none,
    funding: project?.integrations.funding ? safely('Open Collective', () => funding(reads, options.store, project, input, window)) : none,
  };
  const own = TOPIC_OF[metricOf(input.metric)?.integration ?? 'revenue'];
  const order = own ? [own, ...TOPICS.filter((topic) => topic !== own)] : TOPICS;
  const settled = await Promise.all(order.map(async (topic) => ({ topic, finding: await findings[topic] })));

  const lines = settled.flatMap(({ finding }) => (finding && 'lines' in finding ? finding.lines : []));
  const failed = [...new Set(settled.flatMap(({ finding }) => (finding && 'failed' in finding ? [finding.failed] : [])))];
  const failure = failed.length > 0 ? [`Could not read ${failed.join(', ')}`] : [];
  if (lines.length > 0) return [...lines.slice(0, MAX_LINES - failure.length), ...failure];
  const looked = TOPICS.filter((topic) => settled.some((entry) => entry.topic === topic && entry.finding && 'lines' in entry.finding));
  if (looked.length === 0) return failure.length > 0 ? failure : ['No other source is set up for this project to say why.'];
  return [`Nothing else moved for this project in that window (${looked.join(', ')}).`, ...failure];
}

const none = Promise.resolve(undefined);
const inRange = (at: number, start: number, end: number) => at >= start && at < end;

/** A data procedure's data; undefined when not set up; throws when it or the project's part of it failed. */
async function read<T extends object>(call: () => Promise<DataResult<T>>): Promise<T | undefined> {
  const result = await call();
  const data = dataOf(result);
  if (data !== undefined && result.meta?.failed?.length) throw new Error(result.meta.failed[0]?.error);
  return data;
}

/** A source's finding, or its name when it failed (an upstream's error, a store's: the line says so, nothing throws). */
async function safely(name: string, find: () => Promise<Finding>): Promise<Finding> {
  try {
    return await find();
  } catch {
    return { failed: name };
  }
}

// --- the sources ---------------------------------------------------------------------------------------------------

function deploys(reads: DataReads, project: string, window: Window, name: string): Promise<Finding> {
  return safely(name, async () => {
    const listed = (limit: number) => read(() => reads.shipping({ project, limit }));
    let shipping = await listed(SHIPPING_WIDGET);
    // The widget's list first (cached while the dashboard is open); the history snapshot's when it ends inside the window.
    if (shipping && !reachesBack(shipping.items.map((item) => item.shippedAt), SHIPPING_WIDGET, window)) shipping = await listed(SHIPPING_LONG);
    if (!shipping) return undefined;
    const partial = !reachesBack(shipping.items.map((item) => item.shippedAt), SHIPPING_LONG, window);
    const lines: string[] = [];
    const inWindow = shipping.items.filter((item) => window.has(item.shippedAt));
    for (const [source, one, many] of [
      ['deploy_host', 'production deploy', 'production deploys'],
      ['code_host', 'pull request merged', 'pull requests merged'],
    ] as const) {
      const items = inWindow.filter((item) => item.source === source);
      const latest = items[0];
      if (!latest) continue;
      const when = onDays(items.map((item) => Date.parse(item.shippedAt)));
      lines.push(
        items.length === 1 && !partial
          ? `1 ${one} ${when}: "${clip(latest.title)}"`
          : `${partial ? 'At least ' : ''}${items.length} ${items.length === 1 ? one : many} ${when} (latest: "${clip(latest.title)}")`,
      );
    }
    return { lines };
  });
}

function errors(data: ErrorTracker | undefined, window: Window): Finding {
  if (!data) return undefined;
  const fresh = data.issues.filter((issue) => window.has(issue.firstSeen)).sort((a, b) => (b.count ?? 0) - (a.count ?? 0) || b.userCount - a.userCount);
  const top = fresh[0];
  if (!top) return { lines: [] };
  const events = top.count === null ? '' : `, ${plural(top.count, 'event')}`;
  return { lines: [`Sentry: ${plural(fresh.length, 'new issue')}, "${clip(top.title)}" first seen ${dayOf(Date.parse(top.firstSeen))}${events}`] };
}

async function uptime(reads: DataReads, project: string, window: Window, store: WhyOptions['store']): Promise<Finding> {
  const [health, threads] = await Promise.all([
    read(() => reads.health({ project })),
    store ? store.notifications.list({ limit: 100, projectSlug: project, integration: 'uptime_monitor' }) : Promise.resolve([]),
  ]);
  if (!health) return undefined;
  // The inbox's outage threads (Better Stack's webhooks): those that began or ended in the window, longest first.
  const outages = threads
    .filter((row) => row.subjectKey !== null && row.status !== 'info')
    .map((row) => ({ title: row.title, from: Date.parse(row.firstAt), to: row.resolvedAt === null ? null : Date.parse(row.resolvedAt) }))
    .filter((o) => inRange(o.from, window.start, window.end) || (o.to !== null && inRange(o.to, window.start, window.end)) || (o.to === null && o.from < window.end));
  const minutes = (o: (typeof outages)[number]) => Math.round(((o.to ?? Math.max(o.from, window.end)) - o.from) / 60_000);
  const lines = outages
    .sort((a, b) => minutes(b) - minutes(a))
    .map((o) => (o.to === null ? `${clip(o.title)}, still down since ${dayOf(o.from)}` : `${clip(o.title)}, down ${duration(minutes(o))} on ${dayOf(o.from)}`));
  // Better Stack's open incidents that no thread told of.
  for (const incident of health.incidents) {
    const at = Date.parse(incident.startedAt);
    const monitor = incident.name.split(':')[0] ?? incident.name;
    if (!inRange(at, window.start, window.end) || outages.some((o) => o.to === null && o.title.includes(monitor))) continue;
    lines.push(`Better Stack incident "${clip(incident.name)}" since ${dayOf(at)}, still ${incident.status}`);
  }
  return { lines };
}

/**
 * The referrers and pages whose share moved most: the analytics widget's answer over the last 7 days (the last 30 when
 * the window began earlier) against the same over 30 days (90), the difference being the period before.
 */
async function traffic(reads: DataReads, project: string, window: Window, now: number): Promise<Finding> {
  const daysAgo = Math.floor(now / DAY) - Math.floor(window.start / DAY);
  const ranges = daysAgo <= 6 ? (['7d', '30d'] as const) : daysAgo <= 29 ? (['30d', '3m'] as const) : undefined;
  if (!ranges) return undefined;
  const [recent, wider] = await Promise.all(ranges.map((range) => read(() => reads.analytics({ project, range }))));
  if (!recent || !wider) return undefined;
  const sources = (answer: Analytics) => answer.referrers.map((r) => ({ name: r.source, n: r.visitors }));
  const paths = (answer: Analytics) => answer.topPages.map((p) => ({ name: p.path, n: p.views }));
  const referrers = moved(sources(recent), sources(wider), recent.visitors, wider.visitors);
  const pages = moved(paths(recent), paths(wider), recent.pageViews, wider.pageViews);
  const say = (what: string, of: string, m: Moved) =>
    `${what} ${clip(m.name)}: ${percent(m.share)} of ${of}, ${m.before === null ? 'new among the top ten' : `${m.share > m.before ? 'up' : 'down'} from ${percent(m.before)}`}`;
  return { lines: [...referrers.slice(0, 2).map((m) => say('Referrer', 'visitors', m)), ...pages.slice(0, 1).map((m) => say('Page', 'page views', m))] };
}

interface Moved {
  name: string;
  share: number;
  /** The share in the period before; null when it was not among the wider answer's top rows. */
  before: number | null;
  score: number;
}

/** The rows of the recent answer whose share moved against the period before it (wider minus recent), most first. */
function moved(recent: { name: string; n: number }[], wider: { name: string; n: number }[], recentTotal: number, widerTotal: number): Moved[] {
  const beforeTotal = widerTotal - recentTotal;
  if (recentTotal <= 0 || beforeTotal <= 0) return [];
  const out: Moved[] = [];
  for (const row of recent) {
    const share = row.n / recentTotal;
    const then = wider.find((w) => w.name === row.name);
    if (!then) {
      if (share >= SHARE_POINTS) out.push({ name: row.name, share, before: null, score: share });
      continue;
    }
    const before = Math.max(0, then.n - row.n) / beforeTotal;
    const ratio = before === 0 ? Infinity : share / before;
    if (Math.abs(share - before) >= SHARE_POINTS && (ratio >= SHARE_RATIO || ratio <= 1 / SHARE_RATIO)) out.push({ name: row.name, share, before, score: Math.abs(share - before) });
  }
  return out.sort((a, b) => b.score - a.score);
}

function reviews(data: Storefront | undefined, window: Window): Finding {
  if (!data) return undefined;
  const ones = data.reviews.filter((review) => review.rating === 1 && window.has(review.createdAt)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const latest = ones[0];
  if (!latest) return { lines: [] };
  const partial = !reachesBack(data.reviews.map((review) => review.createdAt), STORE_REVIEWS, window);
  const words = clip(latest.title || latest.body);
  if (ones.length === 1 && !partial) return { lines: [`1 new one-star review ${onDays([Date.parse(latest.createdAt)])}: "${words}"`] };
  return { lines: [`${partial ? 'At least ' : ''}${ones.length} new one-star reviews (latest: "${words}")`] };
}

/**
 * The collective's balance over the window: the metric history's balance the day before it and on its last day when
 * kept (no upstream call), else the transactions Open Collective lists when they reach back to the window's start.
 */
async function funding(reads: DataReads, store: WhyOptions['store'], project: Project | undefined, input: WhyInput, window: Window): Promise<Finding> {
  const config = project?.integrations.funding;
  if (!config) return undefined;
  const points = store ? await store.history.read(input.project, ['funding.balance'], addDays(input.from, -7), input.to) : [];
  const start = points.filter((p) => p.date < input.from).at(-1);
  const end = points.at(-1);
  if (start && end && end.date >= input.from) return balanceLine(end.value - start.value, start.value, end.currency ?? undefined, '');
  const data = await read(() => reads.funding({ slug: config.slug }));
  if (!data || !reachesBack(data.transactions.map((t) => t.createdAt), TRANSACTIONS, window)) return undefined;
  const moves = data.transactions.filter((t) => window.has(t.createdAt));
  const net = moves.reduce((sum, t) => sum + t.amount, 0);
  const credits = moves.filter((t) => t.amount > 0).length;
  const detail = [credits > 0 ? plural(credits, 'contribution') : '', moves.length > credits ? plural(moves.length - credits, 'expense') : ''].filter(Boolean).join(', ');
  const balance = data.stats.balance;
  return balanceLine(net, balance === null ? null : balance - net, data.currency ?? moves[0]?.currency, detail ? ` (${detail})` : '');
}

/** "Balance down $1,200", when it moved by 5 % of what it was before (or it was empty, or unknown). */
function balanceLine(change: number, before: number | null, currency: string | undefined, detail: string): Finding {
  const net = Math.round(change * 100) / 100;
  if (net === 0 || (before !== null && before > 0 && Math.abs(net) < before * FUNDING_SHARE)) return { lines: [] };
  return { lines: [`Balance ${net > 0 ? 'up' : 'down'} ${money(Math.abs(net), currency)}${detail}`] };
}

// --- words ----------------------------------------------------------------------------------------------------------

/** The services a failed source is named by (without the store: what they are for). */
const shippingName = (project: Project | undefined) =>
  (['code_host', 'deploy_host', 'issue_tracker'] as const).flatMap((name) => (project?.integrations[name] ? [SERVICE[name]] : [])).join(', ') || 'the deploys';
const SERVICE = { code_host: 'GitHub', deploy_host: 'Vercel', issue_tracker: 'Linear', plausible: 'Plausible', umami: 'Umami' } as const;
const analyticsName = (project: Project | undefined) =>
  [...new Set((project?.integrations.analytics?.platforms ?? []).map((p) => SERVICE[p.provider]))].join(', ') || 'the analytics';

/** Whether a list cut at `limit` (the newest) holds everything since the window began. */
const reachesBack = (instants: readonly string[], limit: number, window: Window) => instants.length < limit || instants.some((at) => Date.parse(at) < window.start);

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "Mon 30 Nov", in UTC: the day the providers count in. */
const dayOf = (ms: number): string => {
  const day = new Date(ms);
  return `${WEEKDAYS[day.getUTCDay()]} ${day.getUTCDate()} ${MONTHS[day.getUTCMonth()]}`;
};

/** "on Mon 30 Nov", or "between Mon 30 Nov and Wed 2 Dec". */
function onDays(instants: readonly number[]): string {
  const days = [...new Set(instants.map((at) => Math.floor(at / DAY)))].sort((a, b) => a - b);
  const first = days[0] ?? 0;
  const last = days.at(-1) ?? first;
  return first === last ? `on ${dayOf(first * DAY)}` : `between ${dayOf(first * DAY)} and ${dayOf(last * DAY)}`;
}

/**
 * A stranger's text as one line of at most 80 characters (not cutting a character in two): control and bidirectional
 * formatting characters and runs of spaces become one space. Not escaped: each channel escapes for its medium.
 */
const clip = (text: string) => {
  const chars = [...text.replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069\s]+/gu, ' ').trim()];
  return chars.length <= CLIP ? chars.join('') : `${chars.slice(0, CLIP - 1).join('').trimEnd()}…`;
};

const plural = (n: number, one: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : `${one}s`}`;
const percent = (share: number) => (share > 0 && share < 0.01 ? 'under 1 %' : `${Math.round(share * 100)} %`);
const duration = (minutes: number) => (minutes < 90 ? `${minutes} min` : minutes < 48 * 60 ? `${Math.round(minutes / 60)} h` : `${Math.round(minutes / 1440)} days`);

function money(amount: number, currency: string | undefined): string {
  const digits = amount >= 100 ? 0 : 2;
  try {
    if (currency) return new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount);
  } catch {
    // A code Intl does not know: said as it is below.
  }
  return `${amount.toLocaleString('en-US', { maximumFractionDigits: digits })}${currency ? ` ${currency}` : ''}`;
}
