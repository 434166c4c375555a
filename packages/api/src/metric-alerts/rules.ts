import { randomUUID } from 'node:crypto';
import { addDays } from '@dash/connectors';
import {
  DEFAULT_UNUSUAL_Z,
  defaultUnusualMetrics,
  metricOf,
  type MetricAlertCreate,
  type MetricAlertParams,
  type MetricAlertPatch,
  type MetricAlertPreview,
  type MetricAlertPreviewInput,
  type MetricAlertRule,
  type MetricKey,
  type Project,
} from '@dash/contracts';
import type { MetricAlertRuleRow, Store } from '@dash/db';
import { fail } from '../errors.ts';
import { historySchedule, snapshotDay } from '../history/keeper.ts';
import { walk, type DayValue } from './detect.ts';

/**
 * The metric alert rules: the owner's, and the built-in `unusual` ones (MRR, revenue, visitors, error events, uptime in
 * every project that has them), which exist without a row until the owner changes one (then a row with their id keeps
 * the change). Each rule's verdicts come from `walk` (detect.ts) over the project's history.
 */

const DEFAULT_PREFIX = 'default:';
/** Days read before a window, so its first days have their baselines (8 same weekdays, looked for over 12 weeks). */
export const LOOKBACK_DAYS = 120;

const defaultId = (project: string, metric: MetricKey) => `${DEFAULT_PREFIX}${project}:${metric}`;
const defaultParams: MetricAlertParams = { kind: 'unusual', direction: 'either', z: DEFAULT_UNUSUAL_Z };

/** Whether a project has the integration a metric comes from. */
export const hasMetric = (project: Project, metric: MetricKey) => {
  const definition = metricOf(metric);
  return definition !== undefined && project.integrations[definition.integration] !== undefined;
};

/** The built-in rule of a project's metric as it is before the owner changes it. */
function builtIn(project: string, metric: MetricKey): MetricAlertRuleRow {
  return { id: defaultId(project, metric), projectSlug: project, metric, params: defaultParams, severity: 'warning', enabled: true, createdAt: 0, updatedAt: 0 };
}

/** A built-in rule's id names its project and metric: `default:<project>:<metric>`. */
function parseDefaultId(id: string): { project: string; metric: MetricKey } | undefined {
  if (!id.startsWith(DEFAULT_PREFIX)) return undefined;
  const rest = id.slice(DEFAULT_PREFIX.length);
  const colon = rest.indexOf(':');
  const metric = rest.slice(colon + 1);
  if (colon <= 0 || !(defaultUnusualMetrics as readonly string[]).includes(metric)) return undefined;
  return { project: rest.slice(0, colon), metric: metric as MetricKey };
}

export const ruleOf = (row: MetricAlertRuleRow): MetricAlertRule => ({
  id: row.id,
  project: row.projectSlug,
  metric: row.metric,
  params: row.params,
  severity: row.severity,
  enabled: row.enabled,
  builtIn: row.id.startsWith(DEFAULT_PREFIX),
  updatedAt: row.updatedAt === 0 ? null : new Date(row.updatedAt).toISOString(),
});

/**
 * Every rule of the projects (one project's, with `slug`), as rows: the stored ones, and each built-in one that is not
 * stored, for the projects that have its metric. By project, then metric, built-in first.
 */
export async function ruleRows(store: Store, slug?: string): Promise<MetricAlertRuleRow[]> {
  const [projects, stored] = await Promise.all([slug ? store.projects.get(slug).then((p) => (p ? [p] : [])) : store.projects.list(), store.metricAlerts.list(slug)]);
  const known = new Set(projects.map((project) => project.slug));
  const ids = new Set(stored.map((row) => row.id));
  const defaults = projects.flatMap((project) => defaultUnusualMetrics.filter((metric) => hasMetric(project, metric) && !ids.has(defaultId(project.slug, metric))).map((metric) => builtIn(project.slug, metric)));
  const rank = (row: MetricAlertRuleRow) => (row.id.startsWith(DEFAULT_PREFIX) ? 0 : 1);
  return [...stored.filter((row) => known.has(row.projectSlug)), ...defaults].sort(
    (a, b) => a.projectSlug.localeCompare(b.projectSlug) || a.metric.localeCompare(b.metric) || rank(a) - rank(b) || a.createdAt - b.createdAt,
  );
}

export async function listRules(store: Store, slug?: string): Promise<MetricAlertRule[]> {
  if (slug && !(await store.projects.get(slug))) throw fail('NOT_FOUND', `No project with the slug "${slug}"`);
  return (await ruleRows(store, slug)).map(ruleOf);
}

async function projectOf(store: Store, slug: string): Promise<Project> {
  const project = await store.projects.get(slug);
  if (!project) throw fail('NOT_FOUND', `No project with the slug "${slug}"`);
  return project;
}

export async function createRule(store: Store, now: number, input: MetricAlertCreate): Promise<MetricAlertRule> {
  await projectOf(store, input.project);
  const row: MetricAlertRuleRow = { id: randomUUID(), projectSlug: input.project, metric: input.metric, params: input.params, severity: input.severity, enabled: input.enabled, createdAt: now, updatedAt: now };
  await store.metricAlerts.put(row);
  return ruleOf(row);
}

/** The stored rule, or the built-in one its id names (in a project that has its metric); a 404 otherwise. */
async function existing(store: Store, id: string): Promise<MetricAlertRuleRow> {
  const stored = await store.metricAlerts.get(id);
  if (stored) return stored;
  const named = parseDefaultId(id);
  const project = named && (await store.projects.get(named.project));
  if (!named || !project || !hasMetric(project, named.metric)) throw fail('NOT_FOUND', `No metric alert rule with the id "${id}"`);
  return builtIn(named.project, named.metric);
}

export async function updateRule(store: Store, now: number, id: string, patch: MetricAlertPatch): Promise<MetricAlertRule> {
  const row = await existing(store, id);
  const next: MetricAlertRuleRow = {
    ...row,
    ...(patch.params ? { params: patch.params } : {}),
    ...(patch.severity ? { severity: patch.severity } : {}),
    ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
    createdAt: row.createdAt || now,
    updatedAt: now,
  };
  await store.metricAlerts.put(next);
  return ruleOf(next);
}

/** Deletes an owner's rule; answers its project. */
export async function removeRule(store: Store, id: string): Promise<{ project: string }> {
  const row = await existing(store, id);
  if (row.id.startsWith(DEFAULT_PREFIX)) throw fail('BAD_REQUEST', 'A built-in rule can be switched off (enabled: false), not deleted');
  await store.metricAlerts.remove(id);
  return { project: row.projectSlug };
}

/** The owner's today (the snapshot's time zone): the day the history's latest stocks are dated. */
export async function historyToday(store: Store, now: number): Promise<string> {
  return snapshotDay(await historySchedule(store), now).date;
}

/** A project's metric over [from, to] as the detector reads it, and the currency of its latest money point. */
export async function seriesOf(store: Store, project: string, metric: MetricKey, from: string, to: string): Promise<{ series: DayValue[]; currency?: string }> {
  const rows = await store.history.read(project, [metric], from, to);
  const currency = rows.findLast((row) => row.currency !== null)?.currency ?? undefined;
  return { series: rows.map((row) => ({ date: row.date, value: row.value })), ...(currency ? { currency } : {}) };
}

/** POST /api/metric-alerts/preview: what the rule would have said over the last `days` days of the history. */
export async function previewRule(store: Store, now: number, input: MetricAlertPreviewInput): Promise<MetricAlertPreview> {
  await projectOf(store, input.project);
  const metric = metricOf(input.metric);
  if (!metric) throw fail('BAD_REQUEST', `"${input.metric}" is not a metric`);
  const to = await historyToday(store, now);
  const from = addDays(to, -(input.days - 1));
  const { series, currency } = await seriesOf(store, input.project, input.metric, addDays(from, -LOOKBACK_DAYS), to);
  const walked = walk(series, input.params, { metric, ...(currency ? { currency } : {}), from });
  return { from, to, points: series.length, firings: walked.firings, note: walked.note };
}
