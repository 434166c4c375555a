import { DAY_MS, demoOrg, demoProducts, sandboxTokens } from '../demo.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';
import { issuesOf } from './issues.ts';
import { organizationBody, projectBody, projectDetail, projectSummary } from './projects.ts';
import { badRequest, noPermission, notFound } from './replies.ts';
import { issuePage, matchesQuery } from './search.ts';
import { usageStats } from './usage.ts';

/**
 * The fake Sentry: its REST API's routes for the demo organization, the rate limit it answers with, and the
 * organization's issue search window. The projects, issues, search paging and usage stats live beside it.
 */

const HOUR_MS = 3_600_000;
/** Sentry's per-endpoint fixed window, as its 429 words it. */
const LIMIT = 40;
const WINDOW_S = 1;

const PERIOD_MS: Record<string, number> = { s: 1000, m: 60_000, h: HOUR_MS, d: DAY_MS, w: 7 * DAY_MS };

/** Sentry's REST API (`/api/0`) for the demo organization and its three projects. */
export function sentryService(now: number): SandboxService {
  const projects = demoProducts.map((product) => ({ product, body: projectBody(product, now), summary: projectSummary(product, now), detail: projectDetail(product, now) }));
  const issues = demoProducts.flatMap((product) => issuesOf(product, now));
  const organization = organizationBody(now);
  const projectBySlug = (slug: string | undefined) => projects.find((p) => p.body.slug === slug);

  /** The org endpoint's default window is 14 days; `statsPeriod` (`24h`, `14d`, `2w`…) replaces it. */
  function orgIssues(request: SandboxRequest): SandboxReply {
    const { query } = request;
    const period = query.get('statsPeriod') || '14d';
    const match = /^(\d+)([smhdw])$/.exec(period);
    if (!match) return badRequest(`Invalid statsPeriod: '${period}'`);
    const since = request.now - Number(match[1]) * (PERIOD_MS[match[2] ?? 'd'] ?? DAY_MS);
    const ids = query.getAll('project').filter(Boolean);
    const slugs = query.getAll('projectSlug').filter(Boolean);
    let wanted: string[];
    if (ids.length > 0 && !ids.includes('-1')) {
      if (ids.some((id) => !projects.some((p) => p.body.id === id))) return noPermission;
      wanted = ids;
    } else if (slugs.length > 0) {
      wanted = projects.filter((p) => slugs.includes(p.body.slug)).map((p) => p.body.id);
    } else {
      wanted = projects.map((p) => p.body.id);
    }
    const search = query.get('query') ?? 'is:unresolved';
    return issuePage(
      request,
      issues.filter((issue) => wanted.includes(issue.projectId) && issue.lastSeenMs >= since && matchesQuery(issue, search)),
    );
  }

  return {
    name: 'sentry',
    basePath: '/api/0',
    authorize: (request) => request.headers.authorization === `Bearer ${sandboxTokens.sentry}`,
    unauthorized: () => ({ body: { detail: 'Invalid token' } }),
    rateLimit: {
      limit: LIMIT,
      windowMs: WINDOW_S * 1000,
      headers: ({ limit, used, resetAt }) => ({
        'x-sentry-rate-limit-limit': String(limit),
        'x-sentry-rate-limit-remaining': String(Math.max(0, limit - used)),
        'x-sentry-rate-limit-reset': String(Math.ceil(resetAt / 1000)),
        'x-sentry-rate-limit-concurrentlimit': '25',
        'x-sentry-rate-limit-concurrentremaining': '24',
      }),
      // Sentry's middleware sends no Retry-After: the reset header above says when the window reopens.
      tooMany: () => ({
        status: 429,
        body: { detail: `You are attempting to use this endpoint too frequently. Limit is ${LIMIT} requests in ${WINDOW_S} seconds` },
      }),
    },
    routes: [
      { method: 'GET', path: '/organizations', handle: () => ({ body: [organization] }) },
      {
        method: 'GET',
        path: '/organizations/:org/projects',
        handle: ({ params, query, path, origin }) => {
          if (params.org !== demoOrg.sentryOrg) return notFound;
          // An offset cursor (`per_page:page:is_prev`), as Sentry's plain lists use.
          const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 100) || 100));
          const pageIndex = Number(/^\d+:(\d+):0$/.exec(query.get('cursor') ?? '')?.[1] ?? 0);
          const all = projects.map((p) => p.summary);
          const page = all.slice(pageIndex * perPage, (pageIndex + 1) * perPage);
          const url = new URL(path, origin);
          url.searchParams.set('per_page', String(perPage));
          const link = (rel: string, index: number, results: boolean) =>
            `<${url.toString()}&cursor=${perPage}:${index}:0>; rel="${rel}"; results="${results}"; cursor="${perPage}:${index}:0"`;
          return {
            headers: { link: [link('previous', Math.max(0, pageIndex - 1), pageIndex > 0), link('next', pageIndex + 1, (pageIndex + 1) * perPage < all.length)].join(', ') },
            body: page,
          };
        },
      },
      { method: 'GET', path: '/organizations/:org/issues', handle: (request) => (request.params.org === demoOrg.sentryOrg ? orgIssues(request) : notFound) },
      {
        method: 'GET',
        path: '/organizations/:org/stats_v2',
        handle: (request) => (request.params.org === demoOrg.sentryOrg ? usageStats(request, projects.map((p) => ({ product: p.product, id: p.body.id }))) : notFound),
      },
      {
        method: 'GET',
        path: '/projects/:org/:project',
        handle: ({ params }) => {
          const project = params.org === demoOrg.sentryOrg ? projectBySlug(params.project) : undefined;
          return project ? { body: project.detail } : notFound;
        },
      },
      {
        // Deprecated in favour of the organization's search; still answers, over all time, `statsPeriod` only shaping `stats`.
        method: 'GET',
        path: '/projects/:org/:project/issues',
        handle: (request) => {
          const project = request.params.org === demoOrg.sentryOrg ? projectBySlug(request.params.project) : undefined;
          if (!project) return notFound;
          const period = request.query.get('statsPeriod');
          if (period !== null && !['', '24h', '14d'].includes(period)) return badRequest("Invalid stats_period. Valid choices are '', '24h', and '14d'");
          const search = request.query.get('query') ?? 'is:unresolved';
          return issuePage(request, issues.filter((issue) => issue.projectId === project.body.id && matchesQuery(issue, search)));
        },
      },
    ],
  };
}
