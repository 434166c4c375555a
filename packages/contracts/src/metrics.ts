// The metric catalogue: every number a widget shows, as a named metric the dashboard keeps a daily history of. Zod-free,
// so the browser's pages read it through `@dash/contracts/names` without building a schema.
import type { IntegrationName } from './projects.ts';

/**
 * What a value is measured in. `money` is in major units of the point's currency (the revenue source's asked currency,
 * the collective's own); `fraction` is 0-1 (0.05 = 5 %); `position` is an average rank, 1 = top; `stars` is 1-5.
 */
export const metricUnits = ['money', 'count', 'fraction', 'position', 'stars'] as const;
export type MetricUnit = (typeof metricUnits)[number];

/**
 * `flow`: what happened on a day (revenue taken, visitors, error events): the point of a day is that day's total, the
 * provider's own day, and a provider that keeps daily series gives past days too (backfill). `stock`: a level at a
 * moment (MRR, open bugs, a balance): the point of a day is what the daily snapshot read that day, in the owner's time
 * zone; no provider keeps it, so its history starts with the first snapshot.
 */
export type MetricKind = 'flow' | 'stock';

export interface MetricDefinition {
  key: string;
  label: string;
  unit: MetricUnit;
  kind: MetricKind;
  /** The integration whose widget shows it, and whose upstream gives it. */
  integration: IntegrationName;
  /** The widget it trends on. */
  widget: 'revenue' | 'analytics' | 'seo' | 'errors' | 'health' | 'storefront' | 'ideas' | 'shipping' | 'funding';
  /** One sentence for the docs and the history view. */
  description: string;
}

const metric = <K extends string>(key: K, rest: Omit<MetricDefinition, 'key'>) => ({ key, ...rest });

/** Every metric, in the order the history view lists them. */
export const metricCatalogue = [
  metric('revenue.gross', { label: 'Gross revenue', unit: 'money', kind: 'flow', integration: 'revenue', widget: 'revenue', description: 'Revenue taken that day, before fees and refunds.' }),
  metric('revenue.net', { label: 'Net revenue', unit: 'money', kind: 'flow', integration: 'revenue', widget: 'revenue', description: 'Revenue that day after fees and refunds (Stripe’s balance transactions; RevenueCat’s revenue chart gives gross only).' }),
  metric('revenue.mrr', { label: 'MRR', unit: 'money', kind: 'stock', integration: 'revenue', widget: 'revenue', description: 'Monthly recurring revenue when the snapshot was taken.' }),
  metric('revenue.subscribers', { label: 'Active subscribers', unit: 'count', kind: 'stock', integration: 'revenue', widget: 'revenue', description: 'Active subscriptions when the snapshot was taken.' }),
  metric('analytics.visitors', { label: 'Visitors', unit: 'count', kind: 'flow', integration: 'analytics', widget: 'analytics', description: 'Unique visitors that day (a day’s uniques; days are never summed into a period’s).' }),
  metric('analytics.pageviews', { label: 'Page views', unit: 'count', kind: 'flow', integration: 'analytics', widget: 'analytics', description: 'Page views that day.' }),
  metric('search.clicks', { label: 'Search clicks', unit: 'count', kind: 'flow', integration: 'seo', widget: 'seo', description: 'Clicks from Google Search that day (Pacific time, as Search Console counts).' }),
  metric('search.impressions', { label: 'Search impressions', unit: 'count', kind: 'flow', integration: 'seo', widget: 'seo', description: 'Impressions in Google Search that day.' }),
  metric('search.ctr', { label: 'Search CTR', unit: 'fraction', kind: 'flow', integration: 'seo', widget: 'seo', description: 'Clicks per impression that day, 0-1.' }),
  metric('search.position', { label: 'Average position', unit: 'position', kind: 'flow', integration: 'seo', widget: 'seo', description: 'Average ranking that day, 1 = top.' }),
  metric('errors.events', { label: 'Error events', unit: 'count', kind: 'flow', integration: 'error_tracker', widget: 'errors', description: 'Error events the tracker accepted that day.' }),
  metric('errors.unresolved', { label: 'Unresolved issues', unit: 'count', kind: 'stock', integration: 'error_tracker', widget: 'errors', description: 'Unresolved issues when the snapshot was taken.' }),
  metric('uptime.up_ratio', { label: 'Uptime', unit: 'fraction', kind: 'flow', integration: 'uptime_monitor', widget: 'health', description: 'The share of the day the project’s monitors were up, 0-1 (their average).' }),
  metric('uptime.incidents', { label: 'Incidents', unit: 'count', kind: 'flow', integration: 'uptime_monitor', widget: 'health', description: 'Incidents that started that day.' }),
  metric('storefront.rating', { label: 'Rating', unit: 'stars', kind: 'stock', integration: 'storefront', widget: 'storefront', description: 'The average stars of the written reviews the store lists, when the snapshot was taken.' }),
  metric('storefront.reviews', { label: 'New reviews', unit: 'count', kind: 'flow', integration: 'storefront', widget: 'storefront', description: 'Written reviews posted that day.' }),
  metric('ideas.open', { label: 'Open ideas', unit: 'count', kind: 'stock', integration: 'issue_tracker', widget: 'ideas', description: 'Open ideas (not bugs) when the snapshot was taken.' }),
  metric('bugs.open', { label: 'Open bugs', unit: 'count', kind: 'stock', integration: 'issue_tracker', widget: 'ideas', description: 'Open bugs when the snapshot was taken.' }),
  metric('shipping.deploys', { label: 'Deploys', unit: 'count', kind: 'flow', integration: 'deploy_host', widget: 'shipping', description: 'Production deployments that day.' }),
  metric('funding.balance', { label: 'Balance', unit: 'money', kind: 'stock', integration: 'funding', widget: 'funding', description: 'The collective’s balance at the end of the day, in its own currency.' }),
] as const satisfies readonly MetricDefinition[];

export type MetricKey = (typeof metricCatalogue)[number]['key'];
export const metricKeys = metricCatalogue.map((entry) => entry.key) as readonly MetricKey[] as readonly [MetricKey, ...MetricKey[]];

const byKey = new Map<string, MetricDefinition>(metricCatalogue.map((entry) => [entry.key, entry]));
/** The catalogue's entry of a key, or undefined for a name it does not hold. */
export const metricOf = (key: string): MetricDefinition | undefined => byKey.get(key);
export const isMetricKey = (key: string): key is MetricKey => byKey.has(key);

/** The trend ranges a widget offers, in days. */
export const trendRanges = [7, 30, 90, 365] as const;
export type TrendRange = (typeof trendRanges)[number];
