import type { Caller } from '@dash/api';
import { metricOf, type MetricDefinition, type MetricKey } from '@dash/contracts/names';
import { TRPCError } from '@trpc/server';
import { lastDayOf, type PageHistory } from '$lib/history';
import { packTrend, trendsOf } from '$lib/trend';

/**
 * A page's year of history of `metrics` (one project's, or every project's summed per day), in one call: the charts
 * slice it by range in the browser and ask nothing more. A failure is the charts' note, not the page's 500.
 */
export async function readPageHistory(api: Caller, project: string | undefined, metrics: MetricKey[]): Promise<PageHistory> {
  const today = new Date().toISOString().slice(0, 10);
  if (metrics.length === 0) return { trends: {}, to: today };
  try {
    const { series } = await api.history.series({ ...(project ? { project } : {}), metrics });
    const definitions = metrics.map(metricOf).filter((metric): metric is MetricDefinition => metric !== undefined);
    const trends = Object.entries(trendsOf(series, definitions, project)).map(([key, trend]) => [key, packTrend(trend)] as const);
    return { trends: Object.fromEntries(trends), to: lastDayOf(series, today) };
  } catch (error) {
    // The trends put it in a sentence of their own: without its closing full stop.
    return { error: error instanceof TRPCError ? error.message.replace(/\.$/, '') : 'the server log has the details', to: today };
  }
}
