import type { TrackedIssue } from '@dash/contracts';
import type { ConnectorContext } from '../context.ts';
import type { ErrorTrackerConnector } from '../connector.ts';
import { ConnectorError } from '../errors.ts';
import { collectPages, defineClient, nextLink, type Client } from '../http.ts';
import { acceptedPerDay, hitsOf, toTrackedIssue } from './map.ts';
import { errorBody, issueList, organizationList, outcomeStats, project, projectList, type SentryIssue } from './schemas.ts';
import { isoDay } from '../dates.ts';
import { readableWindow } from '../series.ts';

const DEFAULT_BASE_URL = 'https://sentry.io/api/0';
/** The issue stream's page, as Sentry's own UI asks for it. */
const PAGE_SIZE = 25;
/** Counting by pages (no X-Hits) stops here: 1,000 issues. */
const MAX_COUNT_PAGES = 40;
/** How long Sentry keeps a project's event counts (its outcomes): 90 days, the usage stats' longest range. */
const STATS_DAYS = 90;

/**
 * Sentry's client for one call. Its 429 carries no Retry-After; `X-Sentry-Rate-Limit-Reset` (epoch
 * seconds, on every answer) says when the window reopens, measured here against the caller's clock.
 */
function clientFor(ctx: ConnectorContext): Client {
  return defineClient({
    service: 'Sentry',
    headers: (credentials) => ({ authorization: `Bearer ${credentials.authToken ?? ''}` }),
    errorMessage(body) {
      const parsed = errorBody.safeParse(body);
      if (!parsed.success) return undefined;
      return typeof parsed.data.detail === 'string' ? parsed.data.detail : parsed.data.detail.message;
    },
    retryAfterMs(headers) {
      if (headers.get('retry-after')) return undefined;
      const reset = Number(headers.get('x-sentry-rate-limit-reset'));
      return Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - ctx.clock.now()) : undefined;
    },
  });
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

/**
 * Why a project's self-hosted `host` may not be used with a token saved for `baseUrl` (its credential's base URL, or
 * sentry.io's without one): the token is only ever sent to the host it was saved with, so another host needs the
 * token entered again for it. Undefined when the host is the token's.
 */
export function sentryHostRefusal(host: string, baseUrl: string, credentialKey?: string): string | undefined {
  const wanted = originOf(host);
  const saved = originOf(baseUrl);
  if (wanted === saved) return undefined;
  const under = credentialKey === undefined ? '' : ` under "${credentialKey}"`;
  return `Enter the Sentry token again for the new host ${wanted}: the token${under} is only sent to ${saved}, where it was saved. Save it with the Base URL ${host.replace(/\/+$/, '')}/api/0 in Settings → Connections → Sentry (the same key, or another one named in credentialKey).`;
}

/** A project's `host` (self-hosted) is checked against the token's; the calls go to the credential's base URL. */
function onHost(ctx: ConnectorContext, host: string | undefined): ConnectorContext {
  const refused = host === undefined ? undefined : sentryHostRefusal(host, ctx.baseUrl);
  if (refused) throw new ConnectorError('auth', refused, { retryable: false });
  return ctx;
}

const slug = (value: string) => encodeURIComponent(value.trim());

/** Sentry: the project's unresolved issues, most recently seen first, and how many there are in all. */
export const sentry: ErrorTrackerConnector = {
  service: 'sentry',
  defaultBaseUrl: DEFAULT_BASE_URL,

  async test(ctx) {
    const client = clientFor(ctx);
    const org = ctx.credentials.orgSlug?.trim();
    // With the organization: proves the token and the slug together. Without: the token alone.
    if (org) await client.get(ctx, `/organizations/${slug(org)}/projects/`, { per_page: 1 }, projectList);
    else await client.get(ctx, '/organizations/', { per_page: 1 }, organizationList);
  },

  async projectId(baseCtx, { config }) {
    const ctx = onHost(baseCtx, config.host);
    return (await clientFor(ctx).get(ctx, `/projects/${slug(config.org)}/${slug(config.project)}/`, {}, project)).id;
  },

  async issues(baseCtx, { config, projectId }) {
    const ctx = onHost(baseCtx, config.host);
    const client = clientFor(ctx);
    const org = slug(config.org);
    // The organization's issue search (the project one is deprecated) filters by numeric project id.
    const id = projectId ?? (await sentry.projectId(baseCtx, { config }));
    const first = await client.request(ctx, {
      path: `/organizations/${org}/issues/`,
      query: { project: id, query: 'is:unresolved', statsPeriod: '14d', sort: 'date', limit: PAGE_SIZE },
      schema: issueList,
    });

    const issues = first.data
      .map(toTrackedIssue)
      .filter((issue): issue is TrackedIssue => issue !== undefined)
      .sort((a, b) => b.lastSeen.localeCompare(a.lastSeen));

    // X-Hits is Sentry's total across every page; without it (older self-hosted), the pages are counted.
    const hits = hitsOf(first.headers);
    if (hits !== undefined) return { issues, errorCount: Math.max(hits, first.data.length) };
    const rest = await collectPages<SentryIssue, string>(
      nextLink(first.headers.get('link')),
      async (url) => {
        if (url === undefined) return { items: [], next: undefined };
        const page = await client.request(ctx, { path: url, schema: issueList });
        return { items: page.data, next: nextLink(page.headers.get('link')) };
      },
      { maxPages: MAX_COUNT_PAGES },
    );
    return { issues, errorCount: first.data.length + rest.length };
  },

  history: {
    seriesDays: STATS_DAYS,
    /**
     * The error events Sentry accepted per UTC day (not those it filtered, rate limited or dropped), from the
     * organization's usage stats: one `interval=1d` series grouped by outcome over the window, no further back than
     * Sentry keeps. `end` is inclusive, so the last day ends a second before midnight.
     */
    async series(baseCtx, { config, projectId, ...window }) {
      const ctx = onHost(baseCtx, config.host);
      const oldest = isoDay(window.now - (STATS_DAYS - 1) * 86_400_000);
      const span = readableWindow({ ...window, from: window.from > oldest ? window.from : oldest });
      if (!span) return [];
      const stats = await clientFor(ctx).get(
        ctx,
        `/organizations/${slug(config.org)}/stats_v2/`,
        { field: 'sum(quantity)', groupBy: 'outcome', category: 'error', interval: '1d', project: projectId, start: `${span.from}T00:00:00Z`, end: `${span.to}T23:59:59Z` },
        outcomeStats,
      );
      return acceptedPerDay(stats, span);
    },
  },
};
