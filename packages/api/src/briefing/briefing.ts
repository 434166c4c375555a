import {
  briefingThresholdsSchema,
  defaultBriefingThresholds,
  type Briefing,
  type BriefingMetricAlert,
  type BriefingPeriod,
  type BriefingQuery,
  type BriefingSection,
  type BriefingThresholds,
  type DataResult,
  type Project,
} from '@dash/contracts';
import type { Clock } from '@dash/connectors';
import type { Store } from '@dash/db';
import { TRPCError } from '@trpc/server';
import { dataOf, type DataReads } from '../data/reads.ts';
import { describeError } from '../errors.ts';
import { BRIEFING_REVENUE_RANGE, composeProject, dailyErrorAverage, daysOf, needsYou, snapshotOf, threadLink, type ProjectAnswers, type ProjectSnapshot, type Window } from './compose.ts';
import { TREND_METRICS, trendRange, trendsOf, type TrendDays } from './trend.ts';

/**
 * The briefing over the store and the data procedures: which window (since the last briefing read, at least the
 * last 24 hours), each project's widgets' answers read through the same procedures and cache the widgets use (a
 * cached answer is served as it is; a missing one is fetched once, as a widget would), the snapshot the last
 * briefings left, and what the founder marked read.
 */

const DAY = 86_400_000;
const MAX_WINDOW = 31 * DAY;
/** Snapshots kept per project: a week and a day of them, one per UTC day (the day's latest). */
const KEEP_DAYS = 8;

const THRESHOLDS = 'briefing.thresholds';
const READ = 'briefing.read';
const SNAPSHOTS = 'briefing.snapshots';

/** What a briefing reads: the store (projects, thresholds, snapshots, uptime threads), the clock, and the widgets' answers. */
export interface BriefingSources {
  store: Store;
  clock: Clock;
  /** The data procedures, ending with `signal` (a caller made in the composition). */
  reads: (signal?: AbortSignal) => DataReads;
}

/** The thresholds that apply: those saved, or the defaults (a stored value that no longer fits falls back, loudly in the log). */
export async function briefingThresholds(store: Store): Promise<BriefingThresholds> {
  const stored = await store.meta.get(THRESHOLDS);
  if (stored === undefined || stored === null) return defaultBriefingThresholds;
  const parsed = briefingThresholdsSchema.safeParse({ ...defaultBriefingThresholds, ...stored });
  return parsed.success ? parsed.data : defaultBriefingThresholds;
}

export async function saveBriefingThresholds(store: Store, thresholds: BriefingThresholds): Promise<BriefingThresholds> {
  await store.meta.put(THRESHOLDS, thresholds);
  return thresholds;
}

type Snapshots = Record<string, ProjectSnapshot[]>;

async function snapshots(store: Store): Promise<Snapshots> {
  const stored = await store.meta.get(SNAPSHOTS);
  return stored && typeof stored === 'object' ? (stored as Snapshots) : {};
}

/** When the briefing was last read (its window's end, ms UTC), if ever. */
async function lastRead(store: Store): Promise<number | undefined> {
  const stored = (await store.meta.get(READ)) as { until?: string } | undefined | null;
  const at = stored?.until ? Date.parse(stored.until) : Number.NaN;
  return Number.isFinite(at) ? at : undefined;
}

/**
 * The window a briefing at `now` covers: from `since`, or the last one read, but at least 24 hours (a weekly briefing:
 * 7 days) and at most 31 days.
 */
export function windowOf(now: number, since: number | undefined, read: number | undefined, period: BriefingPeriod = 'day'): Window {
  // A week's window starts at midnight (UTC), so its daily figures are 7 whole days.
  const start = since ?? Math.min(read ?? now, period === 'week' ? startOfUtcDay(now - 7 * DAY) : now - DAY);
  return { since: Math.max(now - MAX_WINDOW, Math.min(start, now - 60_000)), until: now };
}

/** A section's answer, or why it could not be had. */
type Answer<T> = { ok: T } | { failed: string } | undefined;

async function answer<T extends object>(read: () => Promise<DataResult<T>>): Promise<Answer<T>> {
  try {
    const result = await read();
    const data = dataOf(result);
    if (data === undefined) return undefined;
    const failure = result.meta?.failed?.[0];
    if (failure) return { failed: failure.error };
    return { ok: data };
  } catch (error) {
    // Said as the widget's route would say it (an upstream's reason, never a secret); anything else stays in the log.
    return { failed: error instanceof TRPCError ? describeError(error).body.error.message : 'Internal error; the server log has the details' };
  }
}

/** One project's widgets' answers, as the widgets ask for them; the sections that failed, named. */
async function answersOf(sources: BriefingSources, project: Project, signal?: AbortSignal) {
  const data = sources.reads(signal);
  const slug = project.slug;
  const has = project.integrations;
  const failed: { project: string; section: BriefingSection; error: string }[] = [];
  const take = <T>(section: BriefingSection, result: Answer<T>): T | undefined => {
    if (result && 'failed' in result) failed.push({ project: slug, section, error: result.failed });
    return result && 'ok' in result ? result.ok : undefined;
  };
  const currency = 'USD';
  const [fortnight, week, shipping, ideas, storefront, analytics, seo, errors, health, funding] = await Promise.all([
    // The widgets' own reads (the backup's too, so the email's refresh covers each): their default ranges and limits.
    has.revenue ? answer(() => data.revenue({ project: slug, range: BRIEFING_REVENUE_RANGE, currency })) : undefined,
    has.revenue ? answer(() => data.revenue({ project: slug, range: '7d', currency })) : undefined,
    has.code_host || has.issue_tracker || has.deploy_host ? answer(() => data.shipping({ project: slug })) : undefined,
    has.issue_tracker ? answer(() => data.ideas({ project: slug })) : undefined,
    has.storefront ? answer(() => data.storefront({ project: slug })) : undefined,
    has.analytics ? answer(() => data.analytics({ project: slug, range: '30d' })) : undefined,
    has.seo ? answer(() => data.seo({ project: slug })) : undefined,
    has.error_tracker ? answer(() => data.errortracker({ project: slug })) : undefined,
    has.uptime_monitor ? answer(() => data.health({ project: slug })) : undefined,
    has.funding ? answer(() => data.funding({ slug: has.funding?.slug })) : undefined,
  ]);
  const revenueFortnight = take('revenue', fortnight);
  const revenueWeek = take('revenue', week);
  const shipped = take('shipping', shipping);
  const answers: ProjectAnswers = {
    slug,
    name: project.name,
    color: project.color,
    ...(revenueFortnight && revenueWeek ? { revenue: { fortnight: revenueFortnight, week: revenueWeek, currency } } : {}),
    ...(shipped ? { shipping: shipped } : {}),
    ...optional('ideas', take('bugs', ideas)),
    ...optional('storefront', take('reviews', storefront)),
    ...optional('analytics', take('traffic', analytics)),
    ...optional('seo', take('search', seo)),
    ...optional('errors', take('errors', errors)),
    ...optional('health', take('uptime', health)),
    ...optional('funding', take('funding', funding)),
  };
  return { answers, failed };
}

const optional = <K extends string, T>(key: K, value: T | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, T>));

/** The uptime monitor's threads of the inbox for a project: every outage that may touch the window. */
async function outagesOf(store: Store, slug: string) {
  const rows = await store.notifications.list({ limit: 100, projectSlug: slug, integration: 'uptime_monitor' });
  return rows
    .filter((row) => row.subjectKey !== null && row.status !== 'info')
    .map((row) => ({ id: row.id, title: row.title, firstAt: row.firstAt, resolvedAt: row.resolvedAt, open: row.status === 'open' }));
}

/** The metric alerts open in the inbox (source `metrics`) of these projects (undefined: every one), newest first. */
export async function openMetricAlerts(store: Store, project: string | undefined): Promise<BriefingMetricAlert[]> {
  const rows = await store.notifications.list({ limit: 200, integration: 'metrics', ...(project === undefined ? {} : { projectSlug: project }) });
  return rows
    .filter((row) => row.status === 'open' && row.projectSlug !== null)
    .sort((a, b) => b.firstAt.localeCompare(a.firstAt) || b.createdSeq - a.createdSeq)
    .map((row) => ({ project: row.projectSlug ?? '', title: row.title, since: row.firstAt, link: threadLink(row.id) }));
}

/** Each project's key metrics against last week, read from the metric history alone (one read for all of them). */
export async function trendsFromHistory(store: Store, project: string | undefined, days: TrendDays) {
  const { from, to } = trendRange(days);
  return trendsOf(await store.history.read(project, TREND_METRICS, from, to), days);
}

/** The briefing at the context's clock for `query`. */
export async function composeBriefing(sources: BriefingSources, query: BriefingQuery, signal?: AbortSignal): Promise<Briefing> {
  const { store } = sources;
  const now = sources.clock.now();
  const period = query.period ?? 'day';
  const [projects, thresholds, read, stored] = await Promise.all([store.projects.list(), briefingThresholds(store), lastRead(store), snapshots(store)]);
  const chosen = query.project === undefined ? projects : projects.filter((project) => project.slug === query.project);
  const window = windowOf(now, query.since === undefined ? undefined : Date.parse(query.since), read, period);
  const days = daysOf(window);
  // The last complete day of the window (UTC), the day the trend ends on.
  const last = days.current.at(-1) ?? new Date(now - DAY).toISOString().slice(0, 10);
  const [trends, metricAlerts] = await Promise.all([trendsFromHistory(store, query.project, { period, last }), openMetricAlerts(store, query.project)]);

  const gathered = await Promise.all(
    chosen.map(async (project) => {
      const [{ answers, failed }, outages] = await Promise.all([
        answersOf(sources, project, signal),
        project.integrations.uptime_monitor ? outagesOf(store, project.slug) : Promise.resolve(undefined),
      ]);
      const history = (stored[project.slug] ?? []).filter((snapshot) => snapshot.at < window.until);
      const last = history.filter((snapshot) => snapshot.at <= window.since + 60 * 60_000).at(-1) ?? history.at(-1);
      const week = history.filter((snapshot) => snapshot.at >= window.since - 7 * DAY && snapshot.at <= window.since);
      const briefed = composeProject({ answers: { ...answers, ...(outages ? { outages } : {}) }, window, days, last, week });
      return { briefed: { ...briefed, trend: trends.get(project.slug) ?? [] }, failed, lines: needsYou(briefed, thresholds, { days, errorAverage: dailyErrorAverage(week) }) };
    }),
  );
  const needs = gathered.flatMap((project) => project.lines).sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  const failed = gathered.flatMap((project) => project.failed);
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    window: { since: iso(window.since), until: iso(window.until) },
    days,
    generatedAt: iso(now),
    needsYou: needs,
    quiet: needs.length > 0 ? null : quietLine(chosen.length, failed.length, period),
    projects: gathered.map((project) => project.briefed),
    failed,
    unread: isUnread(read, now),
    period,
    metricAlerts: metricAlerts.filter((alert) => chosen.some((project) => project.slug === alert.project)),
  };
}

/** Today's briefing is unread until one has been read since the day began (UTC). */
const isUnread = (read: number | undefined, now: number) => read === undefined || read < startOfUtcDay(now);

/** Whether today's briefing is unread, cheaply (the dashboard asks on every load): no data is read. */
export async function briefingUnread(store: Store, now: number): Promise<boolean> {
  return isUnread(await lastRead(store), now);
}

const startOfUtcDay = (ms: number) => Math.floor(ms / DAY) * DAY;

function quietLine(projects: number, failed: number, period: BriefingPeriod): string {
  if (projects === 0) return 'No projects yet: create one in settings and its briefing starts here.';
  const all = projects === 1 ? 'this project' : `all ${projects} projects`;
  return failed > 0 ? `Nothing that could be read needs you across ${all}; some sources could not be read (below).` : `A quiet ${period}: nothing needs you across ${all}.`;
}

/**
 * Marks the briefing read up to `until` (its window's end): the next one starts there, the dashboard stops linking
 * it, and each project's figures are kept as the snapshot the next briefings compare with (one per day, a week's).
 */
export async function markBriefingRead(sources: BriefingSources, until: number, signal?: AbortSignal): Promise<void> {
  await recordSnapshots(sources, signal);
  await sources.store.meta.put(READ, { until: new Date(until).toISOString() });
}

/** Keeps today's figures of every project (the widgets' answers) for the next briefings. */
export async function recordSnapshots(sources: BriefingSources, signal?: AbortSignal): Promise<void> {
  const { store } = sources;
  const now = sources.clock.now();
  const [projects, stored] = await Promise.all([store.projects.list(), snapshots(store)]);
  const next: Snapshots = {};
  for (const project of projects) {
    const { answers } = await answersOf(sources, project, signal);
    const today = startOfUtcDay(now);
    const kept = (stored[project.slug] ?? []).filter((snapshot) => snapshot.at >= today - KEEP_DAYS * DAY && startOfUtcDay(snapshot.at) !== today);
    next[project.slug] = [...kept, snapshotOf(answers, now)];
  }
  await store.meta.put(SNAPSHOTS, next);
}
