import { addDays, type Clock } from '@dash/connectors';
import { isMetricKey, metricOf, type MetricAlertFiring, type MetricKey, type Project } from '@dash/contracts';
import type { MetricAlertRuleRow, Store } from '@dash/db';
import type { DataReads } from '../data/reads.ts';
import { readProject, type SourcesContext } from '../history/sources.ts';
import type { Logger } from '../logger.ts';
import type { OwnEvent } from '../notifications/inbox.ts';
import { Ticker } from '../ticker.ts';
import { partialVerdict, walk } from './detect.ts';
import { historyToday, LOOKBACK_DAYS, ruleRows, seriesOf } from './rules.ts';
import { whyLines } from './why.ts';

/**
 * Turns the rules' verdicts on the history into notifications: after each snapshot and each import (days of the last
 * 48 hours only: an import of old data never alerts about the past), and hourly on today's running visitors and error
 * events. One thread per project and metric (subject `metric:<project>:<metric>`): a rule's incident opens it (or joins
 * it, when another rule of the metric already did), a week on it reminds, and it resolves once no rule of the metric is
 * out of range. Each event's id names its rule, the rule's version and its day, so evaluating again (another process,
 * a second snapshot, an import of the same days) stores nothing twice.
 */

const HOUR = 3_600_000;
/** Verdicts on days this recent are told; older ones were (or, for an import of old data, are never) told. */
const RECENT_DAYS = 2;
/** The flows whose running count today is looked at hourly. */
const FAST_METRICS: readonly MetricKey[] = ['analytics.visitors', 'errors.events'];

export interface MetricAlerterOptions {
  store: Store;
  clock: Clock;
  log: Logger;
  ingest: (events: readonly OwnEvent[]) => Promise<unknown>;
  /** The data procedures (a caller made in the composition), for the why lines and today's running counts. */
  reads: () => DataReads;
  data: SourcesContext['data'];
  /** Where the notification's link points: the project's history view. */
  origin?: string | undefined;
}

export const subjectOf = (project: string, metric: string) => `metric:${project}:${metric}`;

export class MetricAlerter {
  private readonly intraday = new Ticker({
    look: () => this.checkToday(),
    wait: () => Promise.resolve(HOUR),
    fallbackMs: HOUR,
    failed: (error) => this.options.log.warn(`metric alerts: ${error.message}`),
  });

  constructor(private readonly options: MetricAlerterOptions) {}

  /** Hourly looks at today's running counts; the first an hour after the start (the snapshot's look comes first). */
  start(): void {
    this.intraday.start(HOUR);
  }

  async stop(): Promise<void> {
    await this.intraday.stop();
  }

  /**
   * After points were written (a snapshot, an import): each enabled rule of these projects walks its metric's history,
   * and what it says about the last two days is told. `dates`: the days written; none of the last two, nothing to say.
   */
  async evaluate(options: { projects?: readonly string[]; dates?: readonly string[] } = {}): Promise<number> {
    const { store, clock } = this.options;
    const now = clock.now();
    const today = await historyToday(store, now);
    const recent = addDays(today, -RECENT_DAYS);
    if (options.dates && !options.dates.some((date) => date >= recent)) return 0;
    const ours = (project: string) => !options.projects || options.projects.includes(project);
    const rows = (await ruleRows(store)).filter((row) => row.enabled && ours(row.projectSlug));
    const watched = groupBy(rows, (row) => subjectOf(row.projectSlug, row.metric));
    // A metric whose thread is open but no rule watches any more (switched off, deleted): its thread resolves.
    const open = (await store.notifications.list({ limit: 100, integration: 'metrics' })).filter((row) => row.status === 'open' && row.projectSlug && ours(row.projectSlug));
    const subjects = new Map([...watched].map(([subject, rules]) => [subject, { project: (rules[0] as MetricAlertRuleRow).projectSlug, metric: (rules[0] as MetricAlertRuleRow).metric }]));
    for (const row of open) {
      const metric = row.subjectKey?.slice(`metric:${row.projectSlug}:`.length);
      if (row.subjectKey && row.projectSlug && metric && isMetricKey(metric) && !subjects.has(row.subjectKey)) subjects.set(row.subjectKey, { project: row.projectSlug, metric });
    }
    const events: OwnEvent[] = [];
    const why = this.whyOnce(now);
    for (const [subject, { project, metric }] of subjects) {
      events.push(...(await this.metricEvents(subject, project, metric, watched.get(subject) ?? [], { today, recent, now, why })));
    }
    if (events.length > 0) await this.options.ingest(events);
    return events.length;
  }

  /** One metric's events: each rule's opens and reminders of the recent days, then a resolve when none is out now. */
  private async metricEvents(
    subject: string,
    project: string,
    metric: MetricKey,
    rules: readonly MetricAlertRuleRow[],
    { today, recent, now, why }: { today: string; recent: string; now: number; why: WhyLines },
  ): Promise<OwnEvent[]> {
    const definition = metricOf(metric);
    if (!definition) return [];
    const { series, currency } = await seriesOf(this.options.store, project, metric, addDays(today, -(LOOKBACK_DAYS + 60)), today);
    const walks = rules.map((rule) => {
      const walked = walk(series, rule.params, { metric: definition, ...(currency ? { currency } : {}) });
      const opened = walked.open && walked.firings.findLast((f) => f.verdict === 'open' && f.date === walked.open?.since);
      return { rule, open: walked.open, opened, firings: walked.firings.filter((f) => f.date >= recent) };
    });
    const thread = await this.openThread(subject);
    const threadOpen = thread !== undefined;
    const events: OwnEvent[] = [];
    for (const { rule, firings, opened } of walks) {
      const told = firings.filter((f) => f.verdict !== 'resolve');
      for (const firing of told) events.push(await this.trigger(rule, subject, firing, now, why));
      // Out of range now since before the last two days (a rule made on a metric already out, history imported with its
      // step weeks ago), and nobody told: that incident is told now, under the id it would have had on its day.
      if (told.length === 0 && opened && !threadOpen) events.push(await this.trigger(rule, subject, opened, now, why));
    }
    const stillOut = walks.some((w) => w.open !== null);
    if (!stillOut && thread !== undefined) {
      const last = walks.flatMap((w) => w.firings).filter((f) => f.verdict === 'resolve').sort((a, b) => a.date.localeCompare(b.date)).at(-1);
      events.push({
        // Named by the thread it ends: a thread opened and ended twice in a day (a rule switched off, on and off) ends twice.
        sourceEventId: `metric:${subject}:${thread}:resolved`,
        integration: 'metrics',
        type: 'metric.resolved',
        subject,
        transition: 'resolve',
        severity: 'success',
        title: last?.message ?? (rules.length === 0 ? `${definition.label}: no rule watches it any more` : `${definition.label} back in range`),
        lasted: 'Out of range for',
        url: this.link(project),
        projectSlug: project,
        occurredAt: new Date(now).toISOString(),
      });
    }
    return events;
  }

  /**
   * One evaluation's "what else happened" lines, read once per project, metric and day however many rules fire on
   * them (each read asks the providers, or the cache, for deploys, issues, referrers and the rest).
   */
  private whyOnce(now: number): WhyLines {
    const read = new Map<string, Promise<string[]>>();
    return (project, metric, date) => {
      const key = JSON.stringify([project, metric, date]);
      let lines = read.get(key);
      if (!lines) {
        lines = whyLines(this.options.reads(), { project, metric, from: addDays(date, -RECENT_DAYS), to: date, now }, { store: this.options.store }).catch((error: unknown) => {
          this.options.log.warn(`metric alerts: what else happened to ${project}: ${(error as Error).message}`);
          return [];
        });
        read.set(key, lines);
      }
      return lines;
    };
  }

  private async trigger(rule: MetricAlertRuleRow, subject: string, firing: MetricAlertFiring, now: number, why: WhyLines): Promise<OwnEvent> {
    const version = rule.updatedAt.toString(36);
    const context = await why(rule.projectSlug, rule.metric, firing.date);
    return {
      sourceEventId: `metric:${rule.id}:${version}:${firing.date}:${firing.verdict}`,
      integration: 'metrics',
      type: `metric.${rule.params.kind}`,
      subject,
      transition: 'trigger',
      severity: rule.severity,
      title: firing.message,
      url: this.link(rule.projectSlug),
      projectSlug: rule.projectSlug,
      occurredAt: new Date(now).toISOString(),
      context,
      reminder: firing.verdict === 'remind',
      payload: { metric: rule.metric, rule: rule.id, kind: rule.params.kind, value: firing.value, date: firing.date },
    };
  }

  /** The id of the subject's open thread, if it has one. */
  private async openThread(subject: string): Promise<string | undefined> {
    const [open] = await this.options.store.notifications.read((ops) => ops.openRows([subject]));
    return open?.id;
  }

  private link(project: string): string | null {
    return this.options.origin ? `${this.options.origin}/history?project=${encodeURIComponent(project)}` : null;
  }

  /**
   * Hourly: today's running visitors and error events, against the rules of those metrics. A running count only grows,
   * so it can only prove "above" (a spike of errors by noon); a drop is told when the day is complete, at the snapshot.
   */
  async checkToday(): Promise<number> {
    const { store, clock } = this.options;
    const now = clock.now();
    const rows = (await ruleRows(store)).filter((row) => row.enabled && FAST_METRICS.includes(row.metric));
    if (rows.length === 0) return 0;
    const today = await historyToday(store, now);
    const projects = new Map((await store.projects.list()).map((project) => [project.slug, project]));
    const events: OwnEvent[] = [];
    const why = this.whyOnce(now);
    for (const [slug, rules] of groupBy(rows, (row) => row.projectSlug)) {
      const project = projects.get(slug);
      if (project) events.push(...(await this.todayEvents(project, rules, today, now, why)));
    }
    if (events.length > 0) await this.options.ingest(events);
    return events.length;
  }

  private async todayEvents(project: Project, rules: readonly MetricAlertRuleRow[], today: string, now: number, why: WhyLines): Promise<OwnEvent[]> {
    const { values } = await readProject({ store: this.options.store, data: this.options.data, reads: this.options.reads() }, project, {
      from: today,
      to: today,
      only: new Set(['analytics', 'error_tracker']),
    });
    const events: OwnEvent[] = [];
    for (const rule of rules) {
      const definition = metricOf(rule.metric);
      const running = values.find((value) => value.metric === rule.metric && value.date === today);
      if (!definition || !running) continue;
      const { series } = await seriesOf(this.options.store, project.slug, rule.metric, addDays(today, -LOOKBACK_DAYS), addDays(today, -1));
      const firing = partialVerdict(series, { date: today, value: running.value }, rule.params, { metric: definition });
      if (firing) events.push(await this.trigger(rule, subjectOf(project.slug, rule.metric), firing, now, why));
    }
    return events;
  }
}

/** A project's metric's "what else happened" lines up to a day (see `whyOnce`). */
type WhyLines = (project: string, metric: MetricKey, date: string) => Promise<string[]>;

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
