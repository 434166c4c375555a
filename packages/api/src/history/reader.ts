import {
  historySchema,
  metricCatalogue,
  metricOf,
  type History,
  type HistoryCsv,
  type HistoryCsvQuery,
  type HistoryImportResult,
  type HistoryMetrics,
  type HistoryQuery,
  type HistorySeries,
  type MetricKey,
  type Project,
} from '@dash/contracts';
import type { MetricPointRow, Store } from '@dash/db';
import { fail } from '../errors.ts';
import { historyCsv, parseHistoryCsv } from './csv.ts';
import { historyChanged, memoised } from './memo.ts';
import { historySchedule } from './keeper.ts';
import { seriesDaysOf } from './sources.ts';
import { addDays } from '@dash/connectors';
import { localTime } from '../notifications/policy/quiet-hours.ts';

/** Reading the history: one metric, several, the catalogue per project, the CSV (answers kept a minute: memo.ts); and the CSV import. */

/** Metrics a backfill reads from lists as far as they go (deploys, new reviews) rather than from a daily series. */
const listed = new Set<MetricKey>(['shipping.deploys', 'storefront.reviews']);

/** The days asked for: `from`/`to` as given, else the year up to today (the owner's zone). */
async function daysOf(store: Store, now: number, query: { from?: string | undefined; to?: string | undefined }): Promise<{ from: string; to: string }> {
  const to = query.to ?? (await memoised(store, now, 'today', async () => localTime(Math.floor(now), (await historySchedule(store)).timezone).date.toString()));
  return { from: query.from ?? addDays(to, -364), to };
}

async function projectOf(store: Store, slug: string): Promise<Project> {
  const project = await store.projects.get(slug);
  if (!project) throw fail('NOT_FOUND', `No project with the slug "${slug}"`);
  return project;
}

/** Stored rows of one project's metric (oldest first) as the API answers them. */
function historyOf(project: string, metric: MetricKey, rows: readonly MetricPointRow[]): History {
  const unit = metricOf(metric)?.unit ?? 'count';
  const currency = unit === 'money' ? rows.at(-1)?.currency ?? undefined : undefined;
  return {
    project,
    metric,
    unit,
    ...(currency ? { currency } : {}),
    points: rows.map((row) => (row.late ? { date: row.date, value: row.value, late: true as const } : { date: row.date, value: row.value })),
  };
}

/** GET /api/history: a project's metric over the days asked. */
export async function readHistory(store: Store, now: number, query: HistoryQuery): Promise<History> {
  const { from, to } = await daysOf(store, now, query);
  return memoised(store, now, JSON.stringify(['read', query.project, query.metric, from, to]), async () => {
    await projectOf(store, query.project);
    return historyOf(query.project, query.metric, await store.history.read(query.project, [query.metric], from, to));
  });
}

/**
 * GET /api/history's body: the answer checked against the contract and encoded once per change of the history (kept
 * with the other answers), so a widget's year of points costs a request no more than a cached data route's few.
 */
export async function readHistoryEncoded(store: Store, now: number, query: HistoryQuery): Promise<{ json: string }> {
  // Keyed by the days it covers, resolved: a default `to` is today, which moves at midnight.
  const days = await daysOf(store, now, query);
  return memoised(store, now, JSON.stringify(['encoded', query.project, query.metric, days.from, days.to]), async () => ({
    json: JSON.stringify(historySchema.parse(await readHistory(store, now, { ...query, ...days }))),
  }));
}

/** GET /api/history/series: the metrics asked (every one kept when none is named) of one project or every project. */
export async function readSeries(store: Store, now: number, query: { project?: string | undefined; metrics?: MetricKey[] | undefined; from?: string | undefined; to?: string | undefined }): Promise<HistorySeries> {
  const { from, to } = await daysOf(store, now, query);
  return memoised(store, now, JSON.stringify(['series', query.project ?? null, query.metrics ?? null, from, to]), async () => {
    if (query.project !== undefined) await projectOf(store, query.project);
    return seriesOf(await store.history.read(query.project, query.metrics, from, to));
  });
}

/** Rows of several projects and metrics, each project's metric as one history. */
function seriesOf(rows: readonly MetricPointRow[]): HistorySeries {
  const groups = new Map<string, MetricPointRow[]>();
  for (const row of rows) {
    const key = `${row.project}\0${row.metric}`;
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  const series = [...groups.values()].flatMap((group) => {
    const first = group[0];
    return first && metricOf(first.metric) ? [historyOf(first.project, first.metric as MetricKey, group)] : [];
  });
  return { series };
}

/** GET /api/history/metrics: per project (one, or every one), each metric of the catalogue and what is kept of it. */
export function listMetrics(store: Store, now: number, slug: string | undefined): Promise<HistoryMetrics> {
  return memoised(store, now, JSON.stringify(['metrics', slug ?? null]), () => metricsOf(store, slug));
}

async function metricsOf(store: Store, slug: string | undefined): Promise<HistoryMetrics> {
  const projects = slug === undefined ? await store.projects.list() : [await projectOf(store, slug)];
  const summary = await store.history.summary(slug);
  const kept = new Map(summary.map((entry) => [`${entry.project}\0${entry.metric}`, entry]));
  // A money metric's currency is its latest day's.
  const currencies = new Map<string, string>();
  await Promise.all(
    summary
      .filter((entry) => metricOf(entry.metric)?.unit === 'money')
      .map(async (entry) => {
        const [last] = await store.history.read(entry.project, [entry.metric], entry.last, entry.last);
        if (last?.currency) currencies.set(`${entry.project}\0${entry.metric}`, last.currency);
      }),
  );
  return {
    projects: projects.map((project) => ({
      project: project.slug,
      name: project.name,
      metrics: metricCatalogue.map((definition) => {
        const key = `${project.slug}\0${definition.key}`;
        const stored = kept.get(key);
        const currency = currencies.get(key);
        return {
          key: definition.key,
          label: definition.label,
          unit: definition.unit,
          ...(currency ? { currency } : {}),
          kind: definition.kind,
          integration: definition.integration,
          configured: project.integrations[definition.integration] !== undefined,
          // Flows (and a collective's balance) come back from a provider's daily series; deploys and reviews from lists.
          backfill:
            listed.has(definition.key) ||
            ((definition.kind === 'flow' || definition.key === 'funding.balance') &&
              seriesDaysOf(project, definition.integration) > 0 &&
              // RevenueCat's series is its revenue chart: gross only.
              !(definition.key === 'revenue.net' && project.integrations.revenue?.provider === 'revenuecat')),
          points: stored?.points ?? 0,
          first: stored?.first ?? null,
          last: stored?.last ?? null,
        };
      }),
    })),
  };
}

/** GET /api/history.csv: one metric of a project, or all of them, over the days asked. */
export async function exportCsv(store: Store, now: number, query: HistoryCsvQuery): Promise<HistoryCsv> {
  await projectOf(store, query.project);
  const { from, to } = await daysOf(store, now, query);
  const rows = await store.history.read(query.project, query.metric ? [query.metric] : undefined, from, to);
  return { csv: historyCsv(rows), filename: `history-${query.project}${query.metric ? `-${query.metric}` : ''}-${from}-to-${to}.csv` };
}

/** POST /api/history/import: every row checked first (a bad one is a 400 naming its line, nothing stored), then all written. */
export async function importCsv(
  store: Store,
  now: number,
  csv: string,
  /** Told what was written (the metric alerts judge its recent days); awaited, so the answer comes after. */
  imported?: (written: { projects: string[]; dates: string[] }) => Promise<unknown>,
): Promise<HistoryImportResult> {
  const projects = new Set((await store.projects.list()).map((project) => project.slug));
  const points = parseHistoryCsv(csv, projects);
  const written = await store.history.put(points.map((point) => ({ ...point, late: false, source: 'import' as const, takenAt: now })));
  historyChanged(store);
  if (points.length > 0) await imported?.({ projects: [...new Set(points.map((point) => point.project))], dates: [...new Set(points.map((point) => point.date))] });
  return { rows: points.length, ...written };
}
