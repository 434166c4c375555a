import type { IntegrationName, MetricKey, Project } from '@dash/contracts';
import {
  addDays,
  analyticsConnectors,
  betterstack,
  ConnectorError,
  google,
  isoDay,
  opencollective,
  rangeDays,
  revenueConnectors,
  roundMoney,
  sentry,
  STORE_REVIEWS,
  type DailyValue,
} from '@dash/connectors';
import type { Store } from '@dash/db';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { DataCache } from '../data/cache.ts';
import { MissingCredentialsError, type Connections } from '../data/connections.ts';
import { dataOf, type DataReads } from '../data/reads.ts';
import { ttl } from '../data/ttl.ts';
import type { Logger } from '../logger.ts';

/**
 * What one project's history is read from: the providers' daily series (flows, and a collective's balance) through the
 * connectors and the data cache, and the widgets' own answers through the data procedures (the stocks: MRR, open bugs,
 * unresolved issues, the rating; and the flows a list gives: deploys and reviews per day).
 */

/** Revenue history is kept in the dashboard's reporting currency, converted as the revenue widget converts. */
export const HISTORY_CURRENCY = 'USD';
/** A series read is cached this long: a backfill and a snapshot minutes apart ask the provider once. */
const SERIES_TTL_MS = 10 * 60_000;

export interface SourcesContext {
  store: Store;
  data: { cache: Pick<DataCache, 'through'>; connections: Pick<Connections, 'context' | 'clock'> };
  reads: DataReads;
  signal?: AbortSignal | undefined;
  log?: Logger;
}

/** What a read of one project answers: values (a day's of a metric), and what could not be read, per integration. */
export interface ProjectValues {
  values: DailyValue[];
  failed: { integration: IntegrationName; error: string }[];
}


const dailyValues = z.array(z.object({ metric: z.string(), date: z.string(), value: z.number(), currency: z.string().optional() })) as unknown as z.ZodType<DailyValue[]>;

/** The metrics each integration's daily series gives, and how far back a backfill reads it (0: it has none). */
export function seriesDaysOf(project: Project, integration: IntegrationName): number {
  const { integrations } = project;
  switch (integration) {
    case 'revenue': {
      const connector = integrations.revenue && revenueConnectors[integrations.revenue.provider];
      // A source whose one answer is its whole history (RevenueCat) gives every day its revenue route's `all` covers.
      return connector?.wholeHistory ? rangeDays.all : (connector?.history?.seriesDays ?? 0);
    }
    case 'analytics':
      return Math.max(0, ...(integrations.analytics?.platforms ?? []).map((p) => analyticsConnectors[p.provider].history?.seriesDays ?? 0));
    case 'seo':
      return integrations.seo ? (google.history?.seriesDays ?? 0) : 0;
    case 'error_tracker':
      return integrations.error_tracker ? (sentry.history?.seriesDays ?? 0) : 0;
    case 'uptime_monitor':
      return integrations.uptime_monitor ? (betterstack.history?.seriesDays ?? 0) : 0;
    case 'funding':
      return integrations.funding ? (opencollective.history?.seriesDays ?? 0) : 0;
    default:
      return 0;
  }
}

/** Integrations whose history comes from a daily series (the rest from the snapshots, and from lists: deploys, reviews). */
export const seriesIntegrations = ['revenue', 'analytics', 'seo', 'error_tracker', 'uptime_monitor', 'funding'] as const satisfies readonly IntegrationName[];

/**
 * One integration's daily series for a project over [from, to], through the data cache (route `history:<integration>`):
 * a provider answers once however many readers ask at once. Empty when the provider keeps no series.
 */
async function seriesOf(ctx: SourcesContext, project: Project, integration: (typeof seriesIntegrations)[number], from: string, to: string): Promise<DailyValue[]> {
  const { connections, cache } = ctx.data;
  const { integrations } = project;
  const now = connections.clock.now();
  const context = (service: Parameters<Connections['context']>[0], key: string | undefined) => connections.context(service, key ?? service, { signal: ctx.signal });
  const window = { from, to, now };
  const through = (config: unknown, load: () => Promise<DailyValue[]>) =>
    cache.through({ route: `history:${integration}`, params: { project: project.slug, config, from, to }, ttlMs: SERIES_TTL_MS, schema: dailyValues, load }).then((cached) => cached.value);

  switch (integration) {
    case 'revenue': {
      const config = integrations.revenue;
      if (!config) return [];
      if (revenueConnectors[config.provider].wholeHistory) {
        // RevenueCat: the revenue widget's own answer is its whole daily chart, cached, in the asked currency. Reading
        // it spends none of RevenueCat's five calls a minute that the widgets need: it is its daily series.
        const revenue = dataOf(await ctx.reads.revenue({ project: project.slug, range: 'all', currency: HISTORY_CURRENCY }));
        return (revenue?.chart ?? []).filter((day) => day.date >= from && day.date <= to).map((day) => ({ metric: 'revenue.gross', date: day.date, value: day.revenue, currency: HISTORY_CURRENCY }));
      }
      const reader = revenueConnectors[config.provider].history;
      if (!reader) return [];
      const values = await through(config, async () => reader.series(await context(config.provider, config.credentialKey), { config, currency: HISTORY_CURRENCY, ...window }));
      return inCurrency(values, (await ctx.store.settings.get()).exchangeRates);
    }
    case 'analytics': {
      const platforms = integrations.analytics?.platforms ?? [];
      if (platforms.length === 0) return [];
      // Several platforms (web, iOS) of one product: their days added up, as the widget adds their totals.
      const each = await through(integrations.analytics, async () =>
        (
          await Promise.all(
            platforms.map(async (p) => {
              const reader = analyticsConnectors[p.provider].history;
              return reader ? reader.series(await context(p.provider, p.credentialKey), { siteId: p.siteId, ...window }) : [];
            }),
          )
        ).flat(),
      );
      return summed(each);
    }
    case 'seo': {
      const config = integrations.seo;
      const reader = google.history;
      if (!config || !reader) return [];
      return through(config, async () => reader.series(await context('google', config.credentialKey), { siteUrl: config.siteUrl, ...window }));
    }
    case 'error_tracker': {
      const config = integrations.error_tracker;
      const reader = sentry.history;
      if (!config || !reader) return [];
      return through(config, async () => {
        const upstream = await context('sentry', config.credentialKey);
        const { value: projectId } = await cache.through({
          route: 'errortracker:project',
          params: { org: config.org, project: config.project, host: config.host },
          ttlMs: ttl.errortrackerProjects,
          schema: z.string(),
          load: () => sentry.projectId(upstream, { config }),
        });
        return reader.series(upstream, { config, projectId, ...window });
      });
    }
    case 'uptime_monitor': {
      const config = integrations.uptime_monitor;
      const reader = betterstack.history;
      if (!config || !reader) return [];
      return through(config, async () => reader.series(await context('betterstack', config.credentialKey), { config, ...window }));
    }
    case 'funding': {
      const config = integrations.funding;
      const reader = opencollective.history;
      if (!config || !reader) return [];
      return through(config, async () => reader.series(await context('opencollective', config.credentialKey), { slug: config.slug, ...window }));
    }
  }
}

/** Values of one metric and day from several sources (platforms) as one: their sum. */
function summed(values: readonly DailyValue[]): DailyValue[] {
  const byKey = new Map<string, DailyValue>();
  for (const value of values) {
    const key = `${value.metric}\0${value.date}`;
    const seen = byKey.get(key);
    byKey.set(key, seen ? { ...seen, value: seen.value + value.value } : { ...value });
  }
  return [...byKey.values()];
}

/** Money values converted into the history's currency with the rates in settings (units per 1 USD), as the widget does. */
function inCurrency(values: readonly DailyValue[], rates: Record<string, number>): DailyValue[] {
  return values.map((value) => {
    const from = value.currency?.toUpperCase();
    if (from === undefined || from === HISTORY_CURRENCY) return { ...value, currency: HISTORY_CURRENCY };
    const rate = rates[from];
    if (rate === undefined) throw new ConnectorError('upstream', `No exchange rate for ${from} in settings: add exchangeRates.${from} to keep this revenue's history in ${HISTORY_CURRENCY}`);
    return { ...value, value: roundMoney(value.value / rate), currency: HISTORY_CURRENCY };
  });
}

/**
 * Counts per UTC day of the instants a list gives (deploys, reviews), over the days of [from, to] the list covers: all of
 * them when the list is complete (shorter than its limit: a day without any is a true 0), else from the day after its
 * oldest entry (that day may have been cut short).
 */
function perDay(metric: MetricKey, instants: readonly string[], oldestListed: string | undefined, full: boolean, from: string, to: string): DailyValue[] {
  const start = full ? (oldestListed === undefined ? to : addDays(isoDay(Date.parse(oldestListed)), 1)) : from;
  const counts = new Map<string, number>();
  for (const at of instants) {
    const day = isoDay(Date.parse(at));
    counts.set(day, (counts.get(day) ?? 0) + 1);
  }
  const values: DailyValue[] = [];
  for (let day = start > from ? start : from; day <= to; day = addDays(day, 1)) values.push({ metric, date: day, value: counts.get(day) ?? 0 });
  return values;
}

const oldest = (instants: readonly string[]) => [...instants].sort()[0];

const IDEAS_LIMIT = 250;
const SHIPPING_LIMIT = 200;

/**
 * The values a snapshot or a backfill reads for one project: the flows of each series over [from, to] (each capped by
 * `seriesFrom` of its integration when given), the flows that lists give (deploys, new reviews) over the same days, and,
 * with `stocksOn`, the stocks as the widgets show them now, dated that day. One integration failing is named in `failed`
 * and the others are still read; an integration not set up, or whose credentials are missing, is not a failure. `only`
 * narrows the read to some integrations (a backfill of the one just connected).
 */
export async function readProject(
  ctx: SourcesContext,
  project: Project,
  options: { from: string; to: string; seriesFrom?: (integration: IntegrationName) => string; stocksOn?: string; only?: ReadonlySet<IntegrationName> },
): Promise<ProjectValues> {
  const { from, to, stocksOn } = options;
  const { integrations } = project;
  const slug = project.slug;
  const values: DailyValue[] = [];
  const failed: ProjectValues['failed'] = [];
  const attempt = async (integration: IntegrationName, work: () => Promise<DailyValue[]>) => {
    if (!integrations[integration] || (options.only && !options.only.has(integration))) return;
    try {
      values.push(...(await work()));
    } catch (error) {
      if (error instanceof MissingCredentialsError) return;
      // An upstream's reason (a ConnectorError's, or a data procedure's 502) is said; anything else is the server log's.
      if (error instanceof ConnectorError || error instanceof TRPCError) failed.push({ integration, error: error.message });
      else {
        ctx.log?.error(`history: ${project.slug} ${integration}: ${(error as Error).message}`);
        failed.push({ integration, error: 'It could not be read; the server log has the details.' });
      }
    }
  };
  const { reads } = ctx;
  await Promise.all([
    ...seriesIntegrations.map((integration) =>
      attempt(integration, async () => {
        const start = options.seriesFrom?.(integration) ?? from;
        const series = start > to ? [] : await seriesOf(ctx, project, integration, start, to);
        return series.filter((value) => value.date >= start && value.date <= to);
      }),
    ),
    attempt('deploy_host', async () => {
      const shipping = dataOf(await reads.shipping({ project: slug, limit: SHIPPING_LIMIT }));
      if (!shipping) return [];
      const deploys = shipping.items.filter((item) => item.source === 'deploy_host').map((item) => item.shippedAt);
      return perDay('shipping.deploys', deploys, oldest(shipping.items.map((item) => item.shippedAt)), shipping.items.length >= SHIPPING_LIMIT, from, to);
    }),
    attempt('storefront', async () => {
      const storefront = dataOf(await reads.storefront({ project: slug }));
      if (!storefront) return [];
      const { reviews } = storefront;
      const written = reviews.map((review) => review.createdAt);
      const flows = perDay('storefront.reviews', written, oldest(written), reviews.length >= STORE_REVIEWS, from, to);
      if (stocksOn === undefined || reviews.length === 0) return flows;
      const rating = reviews.reduce((sum, review) => sum + review.rating, 0) / reviews.length;
      return [...flows, { metric: 'storefront.rating', date: stocksOn, value: Math.round(rating * 100) / 100 }];
    }),
    ...(stocksOn === undefined
      ? []
      : [
          attempt('revenue', async () => {
            const revenue = dataOf(await reads.revenue({ project: slug, range: '7d', currency: HISTORY_CURRENCY }));
            if (!revenue) return [];
            return [
              ...(revenue.mrr === null ? [] : [{ metric: 'revenue.mrr' as const, date: stocksOn, value: revenue.mrr, currency: HISTORY_CURRENCY }]),
              ...(revenue.activeSubscribers === null ? [] : [{ metric: 'revenue.subscribers' as const, date: stocksOn, value: revenue.activeSubscribers }]),
            ];
          }),
          attempt('issue_tracker', async () => {
            const ideas = dataOf(await reads.ideas({ project: slug, limit: IDEAS_LIMIT }));
            if (!ideas) return [];
            const bugs = ideas.items.filter((item) => item.type === 'bug').length;
            return [
              { metric: 'ideas.open', date: stocksOn, value: ideas.items.length - bugs },
              { metric: 'bugs.open', date: stocksOn, value: bugs },
            ];
          }),
          attempt('error_tracker', async () => {
            const errors = dataOf(await reads.errortracker({ project: slug }));
            return errors ? [{ metric: 'errors.unresolved', date: stocksOn, value: errors.errorCount }] : [];
          }),
          attempt('funding', async () => {
            const config = integrations.funding;
            const funding = config && dataOf(await reads.funding({ slug: config.slug }));
            const balance = funding?.stats.balance;
            return balance === null || balance === undefined ? [] : [{ metric: 'funding.balance', date: stocksOn, value: balance, ...(funding?.currency ? { currency: funding.currency } : {}) }];
          }),
        ]),
  ]);
  return { values, failed };
}
