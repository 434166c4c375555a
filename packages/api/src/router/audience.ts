import {
  analyticsQuerySchema,
  analyticsSchema,
  dataResultSchema,
  fundingQuerySchema,
  fundingSchema,
  seoQuerySchema,
  seoSchema,
  storefrontQuerySchema,
  storefrontSchema,
  type Analytics,
  type DataResult,
  type Funding,
  type Seo,
  type Storefront,
} from '@dash/contracts';
import { analyticsConnectors, appstoreconnect, google, opencollective } from '@dash/connectors';
import { z } from 'zod';
import { sumAnalytics, sumFunding, sumSeo } from '../data/combine.ts';
import { isNotConfigured, loadPerProject, metaOf, viewOf } from '../data/serve.ts';
import { ttl } from '../data/ttl.ts';
import { publicProcedure } from '../trpc.ts';

/**
 * The data router's procedures about the products' audience: the app store's ratings and reviews (storefront), web
 * analytics, search analytics (seo) and funding (backers).
 */
export const audienceProcedures = {
  storefront: publicProcedure
    .input(storefrontQuerySchema)
    .output(dataResultSchema(storefrontSchema))
    .query(async ({ ctx, input, signal }): Promise<DataResult<Storefront>> => {
      const { connections } = ctx.data;
      const loaded = await loadPerProject(ctx, {
        integration: 'storefront',
        route: 'storefront',
        slug: input.project,
        ttlMs: ttl.storefront,
        schema: storefrontSchema,
        refresh: input.refresh,
        params: {},
        load: async ({ config }) =>
          appstoreconnect.storefront(await connections.context('appstoreconnect', config.credentialKey ?? 'appstoreconnect', { signal }), { config }),
      });
      if (isNotConfigured(loaded)) return { data: loaded, meta: null };
      const { parts, failed } = loaded;
      return viewOf('storefront', input, loaded, [], () => {
        const apps = parts.map((part) => part.cached.value.app);
        return {
          data: {
            // Several apps at once: their names and bundle ids side by side, reviews and versions merged.
            app: { name: apps.map((app) => app.name).join(' · '), bundleId: apps.map((app) => app.bundleId).join(', ') },
            reviews: parts
              .flatMap(({ project, cached }) => cached.value.reviews.map((review) => ({ ...review, project: project.slug })))
              .sort((a, b) => b.createdAt.localeCompare(a.createdAt)),
            versions: parts
              .flatMap(({ project, cached }) => cached.value.versions.map((version) => ({ ...version, project: project.slug })))
              .sort((a, b) => b.createdAt.localeCompare(a.createdAt)),
          },
          meta: metaOf(parts, failed),
        };
      });
    }),

  analytics: publicProcedure
    .input(analyticsQuerySchema)
    .output(dataResultSchema(analyticsSchema))
    .query(async ({ ctx, input, signal }): Promise<DataResult<Analytics>> => {
      const { connections } = ctx.data;
      type Platform = { platform: string; provider: 'plausible' | 'umami'; siteId: string; credentialKey?: string | undefined };
      const chosen = (platforms: readonly Platform[]) => platforms.filter((p) => input.platform === undefined || p.platform === input.platform);
      const filter = input.platform
        ? { keep: ({ config }: { config: { platforms: Platform[] } }) => chosen(config.platforms).length > 0, whenNone: `No project has a "${input.platform}" platform in its analytics` }
        : undefined;
      const common = { integration: 'analytics' as const, slug: input.project, refresh: input.refresh, ...(filter ? { filter } : {}) };
      const contextFor = (p: Platform) => connections.context(p.provider, p.credentialKey ?? p.provider, { signal });
      const [loaded, live] = await Promise.all([
        loadPerProject(ctx, {
          ...common,
          route: 'analytics',
          ttlMs: ttl.analytics,
          schema: analyticsSchema,
          params: { range: input.range, platform: input.platform },
          load: async ({ config }) =>
            sumAnalytics(
              await Promise.all(
                chosen(config.platforms).map(async (p) =>
                  analyticsConnectors[p.provider].analytics(await contextFor(p), { siteId: p.siteId, range: input.range, now: connections.clock.now() }),
                ),
              ),
            ),
        }),
        // Live visitors move faster than the rest: their own, shorter-lived cache entry.
        loadPerProject(ctx, {
          ...common,
          route: 'analytics:live',
          ttlMs: ttl.liveVisitors,
          schema: z.number().int().nonnegative(),
          params: { platform: input.platform },
          load: async ({ config }) => {
            const counts = await Promise.all(
              chosen(config.platforms).map(async (p) => {
                const connector = analyticsConnectors[p.provider];
                return connector.live ? connector.live(await contextFor(p), { siteId: p.siteId }) : undefined;
              }),
            );
            return counts.reduce<number>((sum, count) => sum + (count ?? 0), 0);
          },
        }),
      ]);
      if (isNotConfigured(loaded)) return { data: loaded, meta: null };
      const liveBySlug = isNotConfigured(live) ? new Map<string, number>() : new Map(live.parts.map((part) => [part.project.slug, part.cached.value]));
      return viewOf('analytics', input, loaded, [...liveBySlug.values()], () => ({
        data: sumAnalytics(
          loaded.parts.map(({ project, cached }) => {
            const fresh = liveBySlug.get(project.slug);
            return fresh === undefined ? cached.value : { ...cached.value, liveVisitors: fresh };
          }),
        ),
        meta: metaOf(loaded.parts, loaded.failed),
      }));
    }),

  seo: publicProcedure
    .input(seoQuerySchema)
    .output(dataResultSchema(seoSchema))
    .query(async ({ ctx, input, signal }): Promise<DataResult<Seo>> => {
      const { connections } = ctx.data;
      const siteUrlOf = (config: { siteUrl: string }) => input.siteUrl ?? config.siteUrl;
      const loaded = await loadPerProject<'seo', Seo>(ctx, {
        integration: 'seo',
        route: 'seo',
        slug: input.project,
        ttlMs: ttl.seo,
        schema: seoSchema,
        refresh: input.refresh,
        // A property named without a project: the projects that have it. With a project: its credentials ask for it.
        ...(input.siteUrl && !input.project
          ? { filter: { keep: ({ config }) => config.siteUrl === input.siteUrl, whenNone: `No project has the Search Console property ${input.siteUrl}` } }
          : {}),
        params: ({ config }) => ({ siteUrl: siteUrlOf(config) }),
        load: async ({ config }) =>
          google.seo(await connections.context('google', config.credentialKey ?? 'google', { signal }), {
            siteUrl: siteUrlOf(config),
            now: connections.clock.now(),
          }),
      });
      if (isNotConfigured(loaded)) return { data: loaded, meta: null };
      return viewOf('seo', input, loaded, [], () => ({ data: sumSeo(loaded.parts.map((part) => part.cached.value)), meta: metaOf(loaded.parts, loaded.failed) }));
    }),

  funding: publicProcedure
    .input(fundingQuerySchema)
    .output(dataResultSchema(fundingSchema))
    .query(async ({ ctx, input, signal }): Promise<DataResult<Funding>> => {
      const { connections } = ctx.data;
      const all = await ctx.store.projects.list();
      // A slug no project names is still public on Open Collective: ask with the first funding credential.
      const named = input.slug !== undefined && all.some((p) => p.integrations.funding?.slug === input.slug);
      const firstFunded = all.find((p) => p.integrations.funding)?.slug;
      const loaded = await loadPerProject<'funding', Funding>(ctx, {
        integration: 'funding',
        route: 'funding',
        slug: undefined,
        ttlMs: ttl.funding,
        schema: fundingSchema,
        refresh: input.refresh,
        ...(input.slug !== undefined
          ? {
              filter: {
                keep: ({ project, config }) => (named ? config.slug === input.slug : project.slug === firstFunded),
                whenNone: `No project can ask Open Collective for ${input.slug}`,
              },
            }
          : {}),
        ...(input.slug !== undefined ? { callerGave: input.slug } : {}),
        params: ({ config }) => ({ slug: named || input.slug === undefined ? config.slug : input.slug }),
        load: async ({ config }) =>
          opencollective.funding(await connections.context('opencollective', config.credentialKey ?? 'opencollective', { signal }), {
            slug: named || input.slug === undefined ? config.slug : input.slug,
          }),
      });
      if (isNotConfigured(loaded)) return { data: loaded, meta: null };
      // Collectives in other currencies than the first are not added up; they are named instead.
      const currency = loaded.parts[0]?.cached.value.currency;
      const same = loaded.parts.filter((part) => part.cached.value.currency === currency);
      const other = loaded.parts.filter((part) => part.cached.value.currency !== currency);
      const failed = [
        ...loaded.failed,
        ...other.map(({ project, cached }) => ({
          project: project.slug,
          error: `${project.name}: its collective counts in ${cached.value.currency ?? 'another currency'}; ask with slug=${project.integrations.funding?.slug ?? ''}`,
        })),
      ];
      return viewOf('funding', input, { parts: same, failed }, [], () => ({ data: sumFunding(same.map((part) => part.cached.value)), meta: metaOf(same, failed) }));
    }),
};
