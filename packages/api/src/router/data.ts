import {
  dataResultSchema,
  errorTrackerQuerySchema,
  errorTrackerSchema,
  healthQuerySchema,
  healthSchema,
  ideasQuerySchema,
  ideasSchema,
  notConfigured,
  revenueQuerySchema,
  revenueSchema,
  shippingQuerySchema,
  shippingSchema,
  type DataResult,
  type ErrorTracker,
  type Health,
  type Idea,
  type Ideas,
  type Revenue,
  type Shipping,
  type ShippedItem,
} from '@dash/contracts';
import type { Context } from '../context.ts';
import { betterstack, linear, revenueConnectors, sentry } from '@dash/connectors';
import { z } from 'zod';
import { convertRevenue, sliceRevenue, sumRevenue, type RevenuePart } from '../data/revenue.ts';
import { isNotConfigured, loadPerProject, metaOf, viewOf, type Loaded } from '../data/serve.ts';
import type { DataReads } from '../data/reads.ts';
import { loadShipped, shippingSources } from '../data/shipping.ts';
import { ttl } from '../data/ttl.ts';
import { createCallerFactory, publicProcedure, router } from '../trpc.ts';
import { audienceProcedures } from './audience.ts';

const revenueReport = revenueSchema.extend({ currency: z.string() });
const ideaList = z.array(ideasSchema.shape.items.element.omit({ project: true }));

/** Urgent (1) first, low (4) next to last, no priority (0) last; older first within a priority. */
const byPriorityThenAge = (a: Idea, b: Idea) => (a.priority || 5) - (b.priority || 5) || a.createdAt.localeCompare(b.createdAt);

export const dataRouter = router({
  ...audienceProcedures,

  revenue: publicProcedure
    .input(revenueQuerySchema)
    .output(dataResultSchema(revenueSchema))
    .query(async ({ ctx, input, signal }): Promise<DataResult<Revenue>> => {
      const { connections } = ctx.data;
      const loaded = await loadPerProject(ctx, {
        integration: 'revenue',
        route: 'revenue',
        slug: input.project,
        ttlMs: ttl.revenue,
        schema: revenueReport,
        refresh: input.refresh,
        // RevenueCat reports in the asked currency and answers every range from one fetch of `all`;
        // Stripe reports in its own currency (converted below), so one fetch serves USD and CAD.
        params: ({ config }) => ({
          range: revenueConnectors[config.provider].wholeHistory ? 'all' : input.range,
          ...(config.provider === 'revenuecat' ? { currency: input.currency } : {}),
        }),
        load: async ({ config }) => {
          const connector = revenueConnectors[config.provider];
          const upstream = await connections.context(config.provider, config.credentialKey ?? config.provider, { signal });
          const range = connector.wholeHistory ? 'all' : input.range;
          return connector.revenue(upstream, { config, range, currency: input.currency, now: connections.clock.now() });
        },
      });
      if (isNotConfigured(loaded)) return { data: loaded, meta: null };
      const { exchangeRates } = await ctx.store.settings.get();
      const now = connections.clock.now();
      const today = Math.floor(now / 86_400_000);
      return viewOf('revenue', input, loaded, [exchangeRates, today], () => {
        const converted: RevenuePart[] = loaded.parts.map(({ project, cached }) => {
          const report = revenueConnectors[project.integrations.revenue?.provider ?? 'stripe'].wholeHistory
            ? sliceRevenue(cached.value, input.range, now)
            : cached.value;
          return convertRevenue(report, input.currency, exchangeRates);
        });
        const conversion = converted.find((part) => part.conversion)?.conversion;
        return {
          data: sumRevenue(converted.map((part) => part.revenue)),
          meta: metaOf(loaded.parts, loaded.failed, conversion ? { conversion } : {}),
        };
      });
    }),

  ideas: publicProcedure
    .input(ideasQuerySchema)
    .output(dataResultSchema(ideasSchema))
    .query(async ({ ctx, input, signal }): Promise<DataResult<Ideas>> => {
      const { connections } = ctx.data;
      const loaded = await loadPerProject(ctx, {
        integration: 'issue_tracker',
        route: 'ideas',
        slug: input.project,
        ttlMs: ttl.ideas,
        schema: ideaList,
        refresh: input.refresh,
        params: { limit: input.limit },
        load: async ({ config }) => {
          const upstream = await connections.context('linear', config.credentialKey ?? 'linear', { signal });
          return linear.ideas(upstream, { config, limit: input.limit });
        },
      });
      if (isNotConfigured(loaded)) return { data: loaded, meta: null };
      const items = loaded.parts
        .flatMap(({ project, cached }) => cached.value.map((idea) => ({ ...idea, project: project.slug })))
        .sort(byPriorityThenAge)
        .slice(0, input.limit);
      return { data: { items }, meta: metaOf(loaded.parts, loaded.failed) };
    }),

  shipping: publicProcedure
    .input(shippingQuerySchema)
    .output(dataResultSchema(shippingSchema))
    .query(async ({ ctx, input, signal }): Promise<DataResult<Shipping>> => {
      const sources = await Promise.all(shippingSources.map((source) => loadShipped(ctx, source, input, signal)));
      const loadedSources = sources.filter((source): source is Loaded<Omit<ShippedItem, 'project'>[]> => !isNotConfigured(source));
      const parts = loadedSources.flatMap((source) => source.parts);
      if (parts.length === 0 && loadedSources.every((source) => source.failed.length === 0)) {
        // Nothing set up: say what to connect, preferring the message that names missing credentials.
        const reasons = sources.filter(isNotConfigured);
        const missing = reasons.find((reason) => reason.message.startsWith('Connect '));
        const what = 'a code host, issue tracker or deploy host';
        return {
          data:
            missing ??
            notConfigured('code_host', input.project ? `This project has no ${what} set up yet. Add one in settings.` : `No project has ${what} set up yet. Add one in settings.`),
          meta: null,
        };
      }
      const items = parts
        .flatMap(({ project, cached }) => cached.value.map((item) => ({ ...item, project: project.slug })))
        .sort((a, b) => b.shippedAt.localeCompare(a.shippedAt))
        .slice(0, input.limit);
      return { data: { items }, meta: metaOf(parts, loadedSources.flatMap((source) => source.failed)) };
    }),

  errortracker: publicProcedure
    .input(errorTrackerQuerySchema)
    .output(dataResultSchema(errorTrackerSchema))
    .query(async ({ ctx, input, signal }): Promise<DataResult<ErrorTracker>> => {
      const { connections } = ctx.data;
      const loaded = await loadPerProject(ctx, {
        integration: 'error_tracker',
        route: 'errortracker',
        slug: input.project,
        ttlMs: ttl.errortracker,
        schema: errorTrackerSchema,
        refresh: input.refresh,
        params: {},
        load: async ({ config }) => {
          // A self-hosted `host` on the integration is applied by the connector (the credential's own base URL wins).
          const upstream = await connections.context('sentry', config.credentialKey ?? 'sentry', { signal });
          const { value: projectId } = await ctx.data.cache.through({
            route: 'errortracker:project',
            params: { org: config.org, project: config.project, host: config.host },
            ttlMs: ttl.errortrackerProjects,
            schema: z.string(),
            load: () => sentry.projectId(upstream, { config }),
          });
          return sentry.issues(upstream, { config, projectId });
        },
      });
      if (isNotConfigured(loaded)) return { data: loaded, meta: null };
      const { parts, failed } = loaded;
      const issues = parts
        .flatMap(({ project, cached }) => cached.value.issues.map((issue) => ({ ...issue, project: project.slug })))
        .sort((a, b) => b.lastSeen.localeCompare(a.lastSeen));
      const errorCount = parts.reduce((sum, { cached }) => sum + cached.value.errorCount, 0);
      return { data: { issues, errorCount }, meta: metaOf(parts, failed) };
    }),

  health: publicProcedure
    .input(healthQuerySchema)
    .output(dataResultSchema(healthSchema))
    .query(async ({ ctx, input, signal }): Promise<DataResult<Health>> => {
      const { connections } = ctx.data;
      const loaded = await loadPerProject(ctx, {
        integration: 'uptime_monitor',
        route: 'health',
        slug: input.project,
        ttlMs: ttl.health,
        schema: healthSchema,
        refresh: input.refresh,
        params: {},
        load: async ({ config }) =>
          betterstack.health(await connections.context('betterstack', config.credentialKey ?? 'betterstack', { signal }), { config }),
      });
      if (isNotConfigured(loaded)) return { data: loaded, meta: null };
      const { parts, failed } = loaded;
      return {
        data: {
          monitors: parts.flatMap(({ project, cached }) => cached.value.monitors.map((m) => ({ ...m, project: project.slug }))),
          incidents: parts
            .flatMap(({ project, cached }) => cached.value.incidents.map((i) => ({ ...i, project: project.slug })))
            .sort((a, b) => b.startedAt.localeCompare(a.startedAt)),
        },
        meta: metaOf(parts, failed),
      };
    }),
});

const dataCaller = createCallerFactory(dataRouter);

/** The data procedures over a context, for the services that read them (the briefing, the backup), ending with `signal`. */
export const dataReadsOf = (ctx: Context, signal?: AbortSignal): DataReads => dataCaller(ctx, { signal });
