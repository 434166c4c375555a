import {
  currencies,
  services,
  shippingQuerySchema,
  type DataMeta,
  type IntegrationName,
  type NotConfigured,
  type Project,
  type ServiceName,
} from '@dash/contracts';
import { revenueConnectors } from '@dash/connectors';
import { BRIEFING_REVENUE_RANGE } from '../briefing/compose.ts';
import type { DataReads } from '../data/reads.ts';
import { metaOf, type Loaded } from '../data/serve.ts';
import { shippingServices, shippingSources, type ShippingSource } from '../data/shipping.ts';

/** SPEC.md's delays between two calls on one lane. */
export interface LaneDelays {
  /** RevenueCat and Stripe: 15 s (RevenueCat allows 5 requests a minute). */
  revenue: number;
  /** App Store Connect: 2 s. */
  storefront: number;
  /** Every other upstream: 500 ms. */
  other: number;
}
export const specDelays: LaneDelays = { revenue: 15_000, storefront: 2_000, other: 500 };

const delayOf = (service: ServiceName, delays: LaneDelays) =>
  service === 'revenuecat' || service === 'stripe' ? delays.revenue : service === 'appstoreconnect' ? delays.storefront : delays.other;

/** One upstream and the credential it is reached with: calls on a lane wait its delay between them. */
export interface LaneKey {
  id: string;
  label: string;
  delayMs: number;
}

function laneOf(service: ServiceName, credentialKey: string | undefined, delays: LaneDelays): LaneKey {
  const key = credentialKey ?? service;
  const { label } = services[service];
  return { id: `${service}|${key}`, label: key === service ? label : `${label} (${key})`, delayMs: delayOf(service, delays) };
}

/**
 * What a backup asks: the data procedures (a caller of the data router made in the composition, over connections
 * that wait their turn on a limiter), and each source of shipped work alone (the shipping route merges the three).
 */
export interface BackupReads {
  procedures: DataReads;
  shipped(source: ShippingSource, input: { project?: string | undefined; limit: number; refresh: boolean }): Promise<Loaded<unknown> | NotConfigured>;
}

/** One cached answer to ask again: a data procedure's, for one project, with refresh. */
export interface BackupTask {
  project: Project;
  integration: IntegrationName;
  /** `revenue (CAD)`, `analytics (web)`: what the task asks, on screen and in errors. */
  label: string;
  /** The lanes it calls; it waits until each is free (most tasks have one). */
  lanes: LaneKey[];
  /** Resolves when the answer is fresh; rejects with the reason when it is not. */
  run(reads: BackupReads): Promise<void>;
}

/** The fresh answer could not be had: the route served what was cached before, or nothing. */
export class RefreshFailed extends Error {}

/** A data procedure's answer, judged: fresh from the upstream, or the reason it is not. */
function judge(data: object, meta: DataMeta | null): void {
  if ('configured' in data && data.configured === false) throw new RefreshFailed((data as NotConfigured).message);
  if (meta?.cache === 'STALE') throw new RefreshFailed(meta.staleReason ?? 'the upstream did not answer; the cached answer was kept');
  const failure = meta?.failed?.[0];
  if (failure) throw new RefreshFailed(failure.error);
}

/** A loader's answer (a shipping source), judged as the route's freshness would judge it. */
function judgeLoaded(loaded: Loaded<unknown> | NotConfigured): void {
  if ('configured' in loaded) throw new RefreshFailed(loaded.message);
  judge({}, metaOf(loaded.parts, loaded.failed));
}

/**
 * Every cached answer the dashboard reads, per project, as its widgets ask for it: revenue in each
 * currency (RevenueCat reports per currency; Stripe's one fetch serves both, and its two weeks for the briefing), ideas, each source of
 * shipped work, the app store, analytics for all platforms and for each one, search per site, errors,
 * uptime, and funding per collective (once for projects sharing one).
 */
export function backupPlan(projects: readonly Project[], delays: LaneDelays): BackupTask[] {
  const tasks: BackupTask[] = [];
  const collectives = new Set<string>();
  for (const project of projects) {
    const slug = project.slug;
    const { integrations } = project;
    const add = (integration: IntegrationName, label: string, lanes: LaneKey[], run: BackupTask['run']) =>
      tasks.push({ project, integration, label, lanes, run });

    const revenue = integrations.revenue;
    if (revenue) {
      const lane = [laneOf(revenue.provider, revenue.credentialKey, delays)];
      for (const currency of revenue.provider === 'revenuecat' ? currencies : (['USD'] as const)) {
        add('revenue', revenue.provider === 'revenuecat' ? `revenue (${currency})` : 'revenue', lane, async (reads) => {
          const { data, meta } = await reads.procedures.revenue({ project: slug, currency, refresh: true });
          judge(data, meta);
        });
      }
      // The briefing compares two weeks of the daily chart: a source asked per range (Stripe) is asked for those too,
      // so the briefing email's refresh covers every answer it reads. RevenueCat's one history serves every range.
      if (!revenueConnectors[revenue.provider].wholeHistory) {
        add('revenue', `revenue (${BRIEFING_REVENUE_RANGE}, briefing)`, lane, async (reads) => {
          const { data, meta } = await reads.procedures.revenue({ project: slug, range: BRIEFING_REVENUE_RANGE, currency: 'USD', refresh: true });
          judge(data, meta);
        });
      }
    }
    if (integrations.issue_tracker) {
      add('issue_tracker', 'ideas', [laneOf('linear', integrations.issue_tracker.credentialKey, delays)], async (reads) => {
        const { data, meta } = await reads.procedures.ideas({ project: slug, refresh: true });
        judge(data, meta);
      });
    }
    for (const source of shippingSources) {
      const config = integrations[source];
      if (!config) continue;
      add(source, source === 'issue_tracker' ? 'shipped issues' : 'shipped', [laneOf(shippingServices[source], config.credentialKey, delays)], async (reads) =>
        judgeLoaded(await reads.shipped(source, { ...shippingQuerySchema.parse({ project: slug }), refresh: true })),
      );
    }
    if (integrations.storefront) {
      add('storefront', 'app store', [laneOf('appstoreconnect', integrations.storefront.credentialKey, delays)], async (reads) => {
        const { data, meta } = await reads.procedures.storefront({ project: slug, refresh: true });
        judge(data, meta);
      });
    }
    const analytics = integrations.analytics;
    if (analytics) {
      const laneFor = (p: (typeof analytics.platforms)[number]) => laneOf(p.provider, p.credentialKey, delays);
      const unique = (lanes: LaneKey[]) => [...new Map(lanes.map((lane) => [lane.id, lane])).values()];
      // The widget's default range; all platforms together, and each one when there are several.
      add('analytics', 'analytics', unique(analytics.platforms.map(laneFor)), async (reads) => {
        const { data, meta } = await reads.procedures.analytics({ project: slug, range: '30d', refresh: true });
        judge(data, meta);
      });
      if (analytics.platforms.length > 1) {
        for (const p of analytics.platforms) {
          add('analytics', `analytics (${p.platform})`, [laneFor(p)], async (reads) => {
            const { data, meta } = await reads.procedures.analytics({ project: slug, range: '30d', platform: p.platform, refresh: true });
            judge(data, meta);
          });
        }
      }
    }
    if (integrations.seo) {
      add('seo', `search (${integrations.seo.siteUrl})`, [laneOf('google', integrations.seo.credentialKey, delays)], async (reads) => {
        const { data, meta } = await reads.procedures.seo({ project: slug, refresh: true });
        judge(data, meta);
      });
    }
    if (integrations.error_tracker) {
      add('error_tracker', 'errors', [laneOf('sentry', integrations.error_tracker.credentialKey, delays)], async (reads) => {
        const { data, meta } = await reads.procedures.errortracker({ project: slug, refresh: true });
        judge(data, meta);
      });
    }
    if (integrations.uptime_monitor) {
      add('uptime_monitor', 'uptime', [laneOf('betterstack', integrations.uptime_monitor.credentialKey, delays)], async (reads) => {
        const { data, meta } = await reads.procedures.health({ project: slug, refresh: true });
        judge(data, meta);
      });
    }
    const funding = integrations.funding;
    if (funding && !collectives.has(funding.slug)) {
      collectives.add(funding.slug);
      add('funding', `funding (${funding.slug})`, [laneOf('opencollective', funding.credentialKey, delays)], async (reads) => {
        const { data, meta } = await reads.procedures.funding({ slug: funding.slug, refresh: true });
        judge(data, meta);
      });
    }
  }
  return tasks;
}
