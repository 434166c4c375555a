import { DAY_MS, demoProducts, sandboxTokens } from '../demo.ts';
import type { SandboxService } from '../service.ts';
import { chart, chartNames, resolutions, revenueTypes } from './charts.ts';
import { currencyOf } from './currency.ts';
import { overview } from './overview.ts';
import { buildProject } from './projects.ts';
import { error, parameterError } from './replies.ts';

/** The fake RevenueCat's routes, its key check and rate limit; the projects, overview and charts live beside it. */

const MINUTE = 60_000;

/**
 * RevenueCat API v2 (`/v2/projects`, `/v2/projects/{id}/metrics/overview`, `/v2/projects/{id}/charts/{name}`)
 * for the demo's App Store apps: Pocket Ledger and Tideline, 450 days of daily revenue each.
 */
export function revenuecatService(now: number): SandboxService {
  // Pocket Ledger sells more monthly plans; Tideline's anglers buy a year at a time.
  const yearlyShare: Record<string, number> = { 'pocket-ledger': 0.3, tideline: 0.45 };
  const projects = demoProducts.flatMap((product) =>
    product.revenue.provider === 'revenuecat' ? [buildProject(product.name, product.revenue, now, yearlyShare[product.slug] ?? 0.3)] : [],
  );
  // And a project the key can see that is on no dashboard: the list has a second page at limit=2.
  const listed = [
    ...projects.map((p) => ({ object: 'project', id: p.id, name: p.name, created_at: p.createdAt })),
    { object: 'project', id: 'proj0c81d2aa', name: 'Weekend experiments', created_at: now - 90 * DAY_MS },
  ];
  const find = (id: string | undefined) => projects.find((p) => p.id === id);
  const missing = () => error(404, 'resource_missing', 'Project not found.');

  return {
    name: 'revenuecat',
    basePath: '/v2',
    authorize: (request) => request.headers.authorization === `Bearer ${sandboxTokens.revenuecat}`,
    unauthorized: () => error(401, 'authentication_error', 'Invalid API key.'),
    // The Charts & Metrics domain's documented default: 25 a minute per project. Retry-After is in ms.
    rateLimit: {
      limit: 25,
      windowMs: MINUTE,
      headers: ({ limit, used }) => ({
        'RevenueCat-Rate-Limit-Current-Usage': String(used),
        'RevenueCat-Rate-Limit-Current-Limit': String(limit),
      }),
      tooMany: (retryAfterMs) => ({
        status: 429,
        headers: { 'Retry-After': String(Math.ceil(retryAfterMs)) },
        body: {
          object: 'error',
          type: 'rate_limit_error',
          message: 'Rate limit exceeded',
          retryable: true,
          doc_url: 'https://errors.rev.cat/rate-limit-error',
          backoff_ms: Math.ceil(retryAfterMs),
        },
      }),
    },
    routes: [
      {
        method: 'GET',
        path: '/projects',
        handle: (request) => {
          const limit = Math.min(100, Math.max(1, Number(request.query.get('limit') ?? 20) || 20));
          const after = request.query.get('starting_after');
          const from = after ? listed.findIndex((p) => p.id === after) + 1 : 0;
          const items = listed.slice(from, from + limit);
          const last = items.at(-1);
          const more = from + limit < listed.length && last;
          return {
            body: {
              object: 'list',
              items,
              next_page: more ? `/v2/projects?starting_after=${last.id}&limit=${limit}` : null,
              url: '/v2/projects',
            },
          };
        },
      },
      {
        method: 'GET',
        path: '/projects/:id/metrics/overview',
        handle: (request) => {
          const project = find(request.params.id);
          if (!project) return missing();
          const currency = currencyOf(request);
          return typeof currency === 'string' ? overview(project, currency) : currency;
        },
      },
      {
        method: 'GET',
        path: '/projects/:id/charts/:chart',
        handle: (request) => {
          const project = find(request.params.id);
          return project ? chart(project, request.params.chart ?? '', request) : missing();
        },
      },
      {
        method: 'GET',
        path: '/projects/:id/charts/:chart/options',
        handle: (request) => {
          if (!find(request.params.id)) return missing();
          const name = request.params.chart ?? '';
          if (!chartNames.includes(name)) return parameterError('chart_name', `chart_name must be one of: ${chartNames.join(', ')}`);
          return {
            body: {
              object: 'chart_options',
              resolutions,
              segments: [],
              filters: [],
              user_selectors:
                name === 'actives'
                  ? {}
                  : {
                      revenue_type: {
                        default: 'revenue',
                        display_name: 'Revenue type',
                        options: revenueTypes.map((id) => ({ id, display_name: id })),
                      },
                    },
            },
          };
        },
      },
    ],
  };
}
