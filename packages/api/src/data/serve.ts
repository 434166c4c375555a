import {
  notConfigured,
  type DataMeta,
  type IntegrationName,
  type Integrations,
  type NotConfigured,
  type Project,
} from '@dash/contracts';
import { ConnectorError } from '@dash/connectors';
import type { z } from 'zod';
import type { Store } from '@dash/db';
import { fail } from '../errors.ts';
import type { Cached, DataCache } from './cache.ts';
import { MissingCredentialsError } from './connections.ts';

/** What each integration is called on screen. */
export const integrationLabels: Record<IntegrationName, string> = {
  revenue: 'revenue source',
  code_host: 'code host',
  deploy_host: 'deploy host',
  issue_tracker: 'issue tracker',
  storefront: 'app store',
  analytics: 'analytics',
  seo: 'search analytics',
  error_tracker: 'error tracker',
  uptime_monitor: 'uptime monitor',
  funding: 'funding platform',
};

/** What serving a data route reads: the projects (one by slug, or all), and the data cache. */
export interface DataSources {
  store: { projects: Pick<Store['projects'], 'get' | 'list'> };
  data: { cache: Pick<DataCache, 'through'> };
}

export interface Configured<I extends IntegrationName> {
  project: Project;
  config: Integrations[I];
}

/**
 * The projects a data request covers: the named one, or (no `project`) every project with the
 * integration. An unknown slug is a 404; an integration that is not set up is the spec's
 * `{ configured: false }`, never an error.
 */
export async function projectsWith<I extends IntegrationName>(
  ctx: DataSources,
  integration: I,
  slug: string | undefined,
): Promise<Configured<I>[] | NotConfigured> {
  if (slug !== undefined) {
    const project = await ctx.store.projects.get(slug);
    if (!project) throw fail('NOT_FOUND', `No project with the slug "${slug}"`);
    const config = project.integrations[integration];
    if (!config) {
      return notConfigured(integration, `${project.name} has no ${integrationLabels[integration]} set up yet. Add one in settings.`);
    }
    return [{ project, config: config as Integrations[I] }];
  }
  const all = (await ctx.store.projects.list()).flatMap((project) => {
    const config = project.integrations[integration];
    return config ? [{ project, config: config as Integrations[I] }] : [];
  });
  if (all.length === 0) {
    return notConfigured(integration, `No project has its ${integrationLabels[integration]} set up yet. Add one in settings.`);
  }
  return all;
}

export interface ProjectPart<T> {
  project: Project;
  cached: Cached<T>;
}

/** The parts that could be loaded, and the projects whose upstream failed with nothing cached. */
export interface Loaded<T> {
  parts: ProjectPart<T>[];
  failed: { project: string; error: string }[];
}

/**
 * Loads one cached value per project, all at once. A project whose credentials are missing is left
 * out (when every one is, the answer is `{ configured: false }` saying which to connect). An upstream
 * failure with nothing cached is a 502 naming the project and the upstream's reason when one project
 * was asked for, or when every project failed; otherwise the others are answered and it is listed in
 * `failed`, so one broken token does not blank the founder's whole view.
 */
export async function loadPerProject<I extends IntegrationName, T>(
  ctx: DataSources,
  options: {
    integration: I;
    route: string;
    slug: string | undefined;
    ttlMs: number;
    schema: z.ZodType<T>;
    refresh: boolean;
    /** Everything besides the project that changes the answer (range, currency, limit…). */
    params: Record<string, unknown> | ((configured: Configured<I>) => Record<string, unknown>);
    load: (configured: Configured<I>) => Promise<T>;
    /** Narrows the projects (a Search Console property, a collective); when none is left, `whenNone` says why. */
    filter?: { keep: (configured: Configured<I>) => boolean; whenNone: string };
    /**
     * An upstream identifier the caller gave (a collective's slug): the upstream not knowing it is the caller's mistake,
     * a 404 naming it, not a 502.
     */
    callerGave?: string;
  },
): Promise<Loaded<T> | NotConfigured> {
  const found = await projectsWith(ctx, options.integration, options.slug);
  if (!Array.isArray(found)) return found;
  const projects = options.filter ? found.filter(options.filter.keep) : found;
  if (projects.length === 0) return notConfigured(options.integration, options.filter?.whenNone ?? '');
  const missing: MissingCredentialsError[] = [];
  const failures: { project: Project; error: ConnectorError }[] = [];
  const parts = await Promise.all(
    projects.map(async (configured): Promise<ProjectPart<T> | undefined> => {
      try {
        const cached = await ctx.data.cache.through({
          route: options.route,
          params: {
            ...(typeof options.params === 'function' ? options.params(configured) : options.params),
            project: configured.project.slug,
            config: configured.config,
          },
          ttlMs: options.ttlMs,
          schema: options.schema,
          refresh: options.refresh,
          load: () => options.load(configured),
        });
        return { project: configured.project, cached };
      } catch (error) {
        if (error instanceof MissingCredentialsError) {
          missing.push(error);
          return undefined;
        }
        if (error instanceof ConnectorError) {
          failures.push({ project: configured.project, error });
          return undefined;
        }
        throw error;
      }
    }),
  );
  const loaded = parts.filter((part): part is ProjectPart<T> => part !== undefined);
  const first = failures[0];
  if (first && (options.slug !== undefined || loaded.length === 0)) {
    if (options.callerGave !== undefined && first.error.kind === 'not_found') throw fail('NOT_FOUND', first.error.message, first.error);
    throw fail('BAD_GATEWAY', `${first.project.name}: ${first.error.message}`, first.error);
  }
  if (loaded.length === 0 && missing[0]) return notConfigured(options.integration, missing[0].message);
  return { parts: loaded, failed: failures.map(({ project, error }) => ({ project: project.slug, error: `${project.name}: ${error.message}` })) };
}

export const isNotConfigured = <T>(loaded: Loaded<T> | NotConfigured): loaded is NotConfigured => 'configured' in loaded;

/** The freshness of an answer made of several cached parts: the worst status, the oldest fetch, who failed. */
export function metaOf(
  parts: readonly ProjectPart<unknown>[],
  failed: Loaded<unknown>['failed'] = [],
  extra: Partial<DataMeta> = {},
): DataMeta {
  const statuses = parts.map((part) => part.cached.status);
  const cache = statuses.includes('STALE') ? 'STALE' : statuses.includes('MISS') ? 'MISS' : 'HIT';
  const fetchedAt = parts.map((part) => part.cached.fetchedAt).sort()[0] ?? new Date().toISOString();
  const stale = parts.find((part) => part.cached.staleReason);
  return {
    cache,
    fetchedAt,
    ...(stale?.cached.staleReason ? { staleReason: `${stale.project.name}: ${stale.cached.staleReason}` } : {}),
    ...(failed.length > 0 ? { failed } : {}),
    ...extra,
  };
}

interface View {
  signature: readonly unknown[];
  value: unknown;
}
const views = new Map<string, View>();
const MAX_VIEWS = 200;

/**
 * The combined answer for one input, computed again only when a part changed (another fetch, a
 * status, a failure) or `inputs` did. Dashboards ask the same few questions all day; merging and
 * sorting the same cached parts each time is wasted work on the hot path.
 */
export function viewOf<R>(name: string, input: object, loaded: Loaded<unknown>, inputs: readonly unknown[], compute: () => R): R {
  const key = `${name}:${JSON.stringify(input)}`;
  const signature = [
    ...loaded.parts.flatMap((part) => [part.project, part.cached.value, part.cached.status, part.cached.fetchedAt]),
    loaded.failed.map((failure) => failure.error).join('\n'),
    ...inputs,
  ];
  const seen = views.get(key);
  if (seen && seen.signature.length === signature.length && seen.signature.every((item, i) => item === signature[i])) return seen.value as R;
  const value = compute();
  views.delete(key);
  views.set(key, { signature, value });
  if (views.size > MAX_VIEWS) views.delete(views.keys().next().value as string);
  return value;
}
