import type { z } from 'zod';
import type { IdeasConnector, ShippingConnector } from '../connector.ts';
import type { ConnectorContext } from '../context.ts';
import { ConnectorError } from '../errors.ts';
import { collectPages, defineClient, parseRetryAfter, parseWith, type ClientSpec } from '../http.ts';
import { categorise, compareIdeas, defaultBugWords, defaultIdeaWords, toIdea, toShipped } from './map.ts';
import { envelope, errorBody, issuesData, viewerData, type LinearGraphQLError, type LinearIssue } from './schemas.ts';

const SERVICE = 'Linear';
const PAGE_SIZE = 50;
const DAY_MS = 86_400_000;
/** How far back the shipped feed looks: Linear cannot order by completion, so the window bounds the read. */
const SHIPPED_WINDOW_DAYS = 90;
const OPEN_STATE_TYPES = ['triage', 'backlog', 'unstarted', 'started'];

/**
 * The hook this connector needs from `defineClient` (see the report to the lead): it decides a failed
 * answer's error before the status rules, because Linear says "rate limited" with a 400 and a GraphQL
 * error code. Until http.ts calls it, a 400 RATELIMITED falls back to a non-retryable upstream error.
 */
type Classify = (status: number, headers: Headers, body: unknown, now: number) => ConnectorError | undefined;

/** Milliseconds until Linear lets us in again: Retry-After when sent, else the request budget's reset. */
export function linearRetryAfterMs(headers: Headers, now: number): number | undefined {
  const retryAfter = parseRetryAfter(headers.get('retry-after'), now);
  if (retryAfter !== undefined) return retryAfter;
  const raw = headers.get('x-ratelimit-requests-reset');
  const reset = raw ? Number(raw) : Number.NaN;
  if (!Number.isFinite(reset) || reset <= 0) return undefined;
  // Linear documents an epoch in milliseconds; a value that small can only be seconds.
  const at = reset < 1e12 ? reset * 1000 : reset;
  return Math.max(0, at - now);
}

/** Linear's own wording: the message meant for people when it has one, as its SDK does. */
const reasonOf = (errors: readonly LinearGraphQLError[]) => {
  const first = errors[0];
  return first?.extensions?.userPresentableMessage ?? first?.message ?? 'unknown error';
};

/** A GraphQL error list as a ConnectorError, by Linear's `extensions.code` (or its SDK's `type`). */
export function linearError(status: number, headers: Headers, errors: readonly LinearGraphQLError[], now: number): ConnectorError {
  const extensions = errors[0]?.extensions;
  const code = extensions?.code?.toUpperCase();
  const type = extensions?.type?.toLowerCase();
  const said = `(${status}): ${reasonOf(errors)}`;
  if (code === 'RATELIMITED' || type === 'ratelimited') {
    const retryAfterMs = linearRetryAfterMs(headers, now);
    return new ConnectorError('rate_limited', `${SERVICE} is rate limiting us ${said}`, retryAfterMs === undefined ? {} : { retryAfterMs });
  }
  if (code === 'AUTHENTICATION_ERROR' || type === 'authentication error') return new ConnectorError('auth', `${SERVICE} rejected the credentials ${said}`);
  if (code === 'FORBIDDEN' || type === 'forbidden') return new ConnectorError('auth', `${SERVICE} refused access ${said}`);
  // Anything else means Linear could not run the query we sent: a schema it no longer has, a bad value.
  return new ConnectorError('bad_response', `${SERVICE} could not answer our query ${said}`);
}

const spec: ClientSpec & { classify: Classify } = {
  service: SERVICE,
  // A personal API key goes in bare; only OAuth access tokens are sent as Bearer.
  headers: (credentials) => {
    const key = credentials.apiKey ?? '';
    return { authorization: key.startsWith('lin_oauth_') ? `Bearer ${key}` : key };
  },
  errorMessage(body) {
    const parsed = errorBody.safeParse(body);
    return parsed.success ? reasonOf(parsed.data.errors) : undefined;
  },
  classify(status, headers, body, now) {
    if (status >= 500) return undefined;
    const parsed = errorBody.safeParse(body);
    return parsed.success ? linearError(status, headers, parsed.data.errors, now) : undefined;
  },
};
const client = defineClient(spec);

/** One GraphQL operation: errors are checked even on a 200, then `data` is parsed against its schema. */
async function graphql<T>(ctx: ConnectorContext, query: string, variables: Record<string, unknown>, schema: z.ZodType<T>): Promise<T> {
  const { data: reply, headers } = await client.request(ctx, { method: 'POST', path: '/graphql', body: { query, variables }, schema: envelope });
  if (reply.errors && reply.errors.length > 0) {
    const error = linearError(200, headers, reply.errors, ctx.clock.now());
    if (error.kind === 'rate_limited') ctx.limiter.pauseFor(error.retryAfterMs ?? 1000);
    throw error;
  }
  return parseWith(SERVICE, schema, reply.data);
}

const ISSUES_QUERY = `query Issues($filter: IssueFilter, $first: Int, $after: String, $orderBy: PaginationOrderBy) {
  issues(filter: $filter, first: $first, after: $after, orderBy: $orderBy) {
    nodes {
      id identifier title url priority createdAt completedAt
      state { type }
      labels(first: 20) { nodes { name } }
    }
    pageInfo { hasNextPage endCursor }
  }
}`;

/** Every issue the filter matches, page by page, following Linear's cursors. */
function issues(ctx: ConnectorContext, filter: Record<string, unknown>, orderBy: 'createdAt' | 'updatedAt'): Promise<LinearIssue[]> {
  return collectPages<LinearIssue, string>(
    undefined,
    async (after) => {
      const { issues: page } = await graphql(ctx, ISSUES_QUERY, { filter, first: PAGE_SIZE, after: after ?? null, orderBy }, issuesData);
      return { items: page.nodes, next: page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? undefined) : undefined };
    },
    { maxPages: 10 },
  );
}

/** Linear: open issues as ideas and bugs (by label), and completed issues as shipped work. */
export const linear: IdeasConnector & ShippingConnector<'issue_tracker'> = {
  service: 'linear',
  defaultBaseUrl: 'https://api.linear.app',
  // Linear's published budget for a personal API key.
  rateLimit: { limit: 2500, windowMs: 3_600_000 },

  async test(ctx) {
    await graphql(ctx, 'query Viewer { viewer { id name } }', {}, viewerData);
  },

  async ideas(ctx, { config, limit }) {
    const ideaWords = config.ideaLabels ?? defaultIdeaWords;
    const bugWords = config.bugLabels ?? defaultBugWords;
    const open = await issues(ctx, { team: { id: { in: config.teamIds } }, state: { type: { in: OPEN_STATE_TYPES } } }, 'createdAt');
    return open
      .flatMap((issue) => {
        const type = categorise(
          issue.labels.nodes.map((label) => label.name),
          ideaWords,
          bugWords,
        );
        return type ? [toIdea(issue, type)] : [];
      })
      .sort(compareIdeas)
      .slice(0, limit);
  },

  async shipped(ctx, { config, limit, now }) {
    const since = new Date(now - SHIPPED_WINDOW_DAYS * DAY_MS).toISOString();
    const completed = await issues(
      ctx,
      { team: { id: { in: config.teamIds } }, state: { type: { eq: 'completed' } }, completedAt: { gte: since } },
      'updatedAt',
    );
    return completed
      .flatMap((issue) => (issue.completedAt === null ? [] : [toShipped({ ...issue, completedAt: issue.completedAt })]))
      .sort((a, b) => b.shippedAt.localeCompare(a.shippedAt))
      .slice(0, limit);
  },
};
