import { getContext, setContext } from 'svelte';
import type { History, HistoryMetric, Integrations } from '@dash/contracts';
import { dateLabel, type PackedTrend } from './trend.ts';

/**
 * A page's loaded history: a year of each metric it charts (one project's, or all projects' summed on the server, so
 * the page carries one series per metric whatever the number of projects; packed, `PackedDays`), read once by its server load with one
 * `history.series` call; every chart on the page slices it by range. Or the reason it could not be read. `to` is the
 * last day of every range: today, or a later day a point has (a snapshot in a time zone ahead of the server's).
 */
export type PageHistory = { trends: Record<string, PackedTrend>; to: string } | { error: string; to: string };

/** The last day of the ranges: the server's today, or a later day a point already has. */
export const lastDayOf = (series: readonly History[], today: string): string =>
  series.reduce((latest, one) => {
    const last = one.points.at(-1)?.date;
    return last !== undefined && last > latest ? last : latest;
  }, today);

const key = Symbol('page history');

/** Gives the page's widgets its history (a getter, so a new load, another project's, reaches them). */
export const providePageHistory = (history: () => PageHistory | undefined) => setContext(key, history);

/** The page's history, when the page provides one (the dashboard does). */
export const pageHistory = (): (() => PageHistory | undefined) | undefined => getContext(key);

/** The history view of a project, or of the first (no project: the view offers them all); with a metric, at its chart. */
export const historyHref = (project: string | undefined, metric?: string) =>
  `/history${project ? `?project=${encodeURIComponent(project)}` : ''}${metric ? `#metric-${metric.replace('.', '-')}` : ''}`;

/** The service a project's metric comes from, by name: the revenue's and analytics' provider, else the integration's one service. */
export function sourceName(integrations: Partial<Integrations>, integration: string): string {
  const named: Record<string, string> = { stripe: 'Stripe', revenuecat: 'RevenueCat', plausible: 'Plausible', umami: 'Umami' };
  if (integration === 'revenue') return named[integrations.revenue?.provider ?? ''] ?? 'the revenue source';
  if (integration === 'analytics') {
    const providers = [...new Set(integrations.analytics?.platforms.map((platform) => named[platform.provider] ?? platform.provider) ?? [])];
    return providers.length > 0 ? providers.join(' and ') : 'the analytics source';
  }
  const services: Record<string, string> = {
    seo: 'Search Console',
    error_tracker: 'Sentry',
    uptime_monitor: 'Better Stack',
    storefront: 'the App Store',
    issue_tracker: 'Linear',
    deploy_host: 'Vercel',
    funding: 'Open Collective',
    code_host: 'GitHub',
  };
  return services[integration] ?? integration;
}

/** Where a metric's history comes from and since when, in one line for the history view. */
export function historyFact(metric: Pick<HistoryMetric, 'configured' | 'backfill' | 'points' | 'first' | 'last'>, source: string): string {
  const days = `${metric.points} ${metric.points === 1 ? 'day' : 'days'} kept`;
  if (!metric.configured) return metric.points > 0 ? `${days}; ${source} is no longer set up for this project.` : `Not kept: ${source} is not set up for this project.`;
  if (metric.first === null || metric.points === 0) {
    return metric.backfill
      ? `No days yet: ${source}’s daily series is read back when it connects, or with “Read back history now” in Settings → History.`
      : `History starts with the next daily snapshot: ${source} keeps no daily series.`;
  }
  return metric.backfill ? `Backfilled from ${source} since ${dateLabel(metric.first)}; ${days}.` : `History starts on ${dateLabel(metric.first)}: ${source} keeps no daily series; ${days}.`;
}
