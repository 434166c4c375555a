import {
  changeComparisons,
  DEFAULT_UNUSUAL_Z,
  metricAlertKinds,
  metricAlertSeverities,
  type ChangeComparison,
  type IntegrationName,
  type MetricAlertKind,
  type MetricAlertParams,
  type MetricAlertRule,
  type MetricAlertSeverity,
} from '@dash/contracts';
import { metricCatalogue, metricOf, type MetricDefinition, type MetricKey, type MetricUnit } from '@dash/contracts/names';
import { formatValue } from './trend.ts';

/**
 * Settings → Change alerts' pure parts: a rule's params in words, the form's draft of a rule (shaped for its controls:
 * every kind's values kept while the owner switches kind, a fraction's value in percent) and the API's params back
 * from it. MetricAlertsSection.svelte shows and edits what these return.
 */

export { changeComparisons, metricAlertKinds, metricAlertSeverities };

export const kindNames: Record<MetricAlertKind, string> = { threshold: 'Threshold', change: 'Change', unusual: 'Unusual' };
export const kindHints: Record<MetricAlertKind, string> = {
  threshold: 'Above or below a value',
  change: 'More than a percent against a period before',
  unusual: 'Outside what its own history expects for the weekday',
};

export const comparisonNames: Record<ChangeComparison, string> = {
  same_weekday: 'the same weekday last week',
  previous_7: 'the previous 7 days’ average',
  previous_28: 'the previous 28 days’ average',
};

export const severityNames: Record<MetricAlertSeverity, string> = { info: 'Info', warning: 'Warning', error: 'Error' };

export type Direction = 'above' | 'below' | 'either';
export const changeDirectionNames: Record<Direction, string> = { either: 'Up or down', above: 'Up', below: 'Down' };
export const unusualDirectionNames: Record<Direction, string> = { either: 'Unusually high or low', above: 'Unusually high', below: 'Unusually low' };

/** What a preview's day says, as its list names it. */
export const verdictNames = { open: 'Alert', remind: 'Reminder', resolve: 'Back in range' } as const;

/** The catalogue's label of a metric ("Visitors"), or its key for one the catalogue does not hold. */
export const metricLabel = (key: string): string => metricOf(key)?.label ?? key;

/** A value a rule holds a metric to, in its unit's words, without a currency (a rule has none). */
const valueWords = (value: number, unit: MetricUnit) => formatValue(value, unit);

/**
 * A rule's kind and params in words: "Below 1,500", "Down more than 20 % against the same weekday last week",
 * "Unusually high or low for its weekday (sensitivity z 4)".
 */
export function paramsInWords(params: MetricAlertParams, metric: string): string {
  const unit = metricOf(metric)?.unit ?? 'count';
  switch (params.kind) {
    case 'threshold':
      return `${params.direction === 'above' ? 'Above' : 'Below'} ${valueWords(params.value, unit)}`;
    case 'change':
      return `${changeDirectionNames[params.direction]} more than ${formatValue(params.percent, 'count')} % against ${comparisonNames[params.compareTo]}`;
    case 'unusual':
      return `${unusualDirectionNames[params.direction]} for its weekday (sensitivity z ${formatValue(params.z, 'count')})`;
  }
}

/** The form's rule: each kind's values side by side, numbers as their fields hold them (null: empty). */
export interface RuleDraft {
  project: string;
  metric: MetricKey;
  kind: MetricAlertKind;
  /** A threshold's side. */
  side: 'above' | 'below';
  /** A threshold's value in the metric's unit, a fraction's in percent (99.5 for 0.995). */
  value: number | null;
  /** A change's and an unusual rule's direction. */
  direction: Direction;
  percent: number | null;
  compareTo: ChangeComparison;
  z: number | null;
  severity: MetricAlertSeverity;
}

/** Whether a metric's threshold is typed in percent (its unit is a 0-1 fraction). */
export const inPercent = (metric: string): boolean => metricOf(metric)?.unit === 'fraction';

/** 0.995 → 99.5 and back, without the float's tail (0.995 * 100 is 99.49999999999999). */
const round = (value: number) => Math.round(value * 1e9) / 1e9;

/** A project as the form needs it: which integrations it has set up, for the metrics offered first. */
export interface RuleProject {
  slug: string;
  name: string;
  integrations: readonly IntegrationName[];
}

/** The metrics a project has set up (first in the list) and the others (history imported, or set up later). */
export function metricsFor(project: RuleProject | undefined): { setUp: MetricDefinition[]; others: MetricDefinition[] } {
  const setUp = metricCatalogue.filter((metric) => project?.integrations.includes(metric.integration) ?? false);
  return { setUp, others: metricCatalogue.filter((metric) => !setUp.includes(metric)) };
}

export function blankDraft(project: RuleProject | undefined): RuleDraft {
  const { setUp } = metricsFor(project);
  return {
    project: project?.slug ?? '',
    metric: (setUp[0] ?? metricCatalogue[0]).key as MetricKey,
    kind: 'threshold',
    side: 'below',
    value: null,
    direction: 'either',
    percent: 20,
    compareTo: 'same_weekday',
    z: DEFAULT_UNUSUAL_Z,
    severity: 'warning',
  };
}

/** A saved rule in the form, to edit it. */
export function draftOf(rule: MetricAlertRule): RuleDraft {
  const draft: RuleDraft = { ...blankDraft(undefined), project: rule.project, metric: rule.metric, kind: rule.params.kind, severity: rule.severity };
  const { params } = rule;
  if (params.kind === 'threshold') return { ...draft, side: params.direction, value: inPercent(rule.metric) ? round(params.value * 100) : params.value };
  if (params.kind === 'change') return { ...draft, direction: params.direction, percent: params.percent, compareTo: params.compareTo };
  return { ...draft, direction: params.direction, z: params.z };
}

/**
 * The API's params of a draft. An empty number is sent as it is (null), for the server to name the field: the form
 * shows the API's own message there.
 */
export function paramsOf(draft: RuleDraft): MetricAlertParams {
  switch (draft.kind) {
    case 'threshold': {
      const value = draft.value !== null && inPercent(draft.metric) ? round(draft.value / 100) : draft.value;
      return { kind: 'threshold', direction: draft.side, value: value as number };
    }
    case 'change':
      return { kind: 'change', direction: draft.direction, percent: draft.percent as number, compareTo: draft.compareTo };
    case 'unusual':
      return { kind: 'unusual', direction: draft.direction, z: draft.z as number };
  }
}

/** Why the preview waits (a number still empty), or undefined when the draft can be previewed. */
export function previewWaits(draft: RuleDraft): string | undefined {
  if (!draft.project) return 'Add a project to preview a rule.';
  const missing = { threshold: draft.value === null && 'a value', change: draft.percent === null && 'a percent', unusual: draft.z === null && 'a sensitivity' }[draft.kind];
  return missing ? `Give ${missing} to see what this rule would have said.` : undefined;
}

/** The rules of each project, in the projects' order (a rule of a project not listed goes last, under its slug). */
export function rulesByProject<Rule extends { project: string }>(rules: readonly Rule[], projects: readonly { slug: string; name: string }[]): { slug: string; name: string; rules: Rule[] }[] {
  const groups = projects.map((project) => ({ slug: project.slug, name: project.name, rules: rules.filter((rule) => rule.project === project.slug) }));
  const strays = [...new Set(rules.map((rule) => rule.project).filter((slug) => !projects.some((project) => project.slug === slug)))];
  return [...groups, ...strays.map((slug) => ({ slug, name: slug, rules: rules.filter((rule) => rule.project === slug) }))];
}
