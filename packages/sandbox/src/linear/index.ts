import { demoProducts, sandboxTokens } from '../demo.ts';
import type { SandboxReply, SandboxService } from '../service.ts';
import { asText, GraphQLFailure, matchesFilter, parseOperation, project, type Field } from '../graphql.ts';
import { buildIssues, demoOrganization, demoViewer, type LinearIssue } from './issues.ts';

const HOUR = 3_600_000;
/** Linear's request budget for a personal API key, per hour. */
const REQUESTS_PER_HOUR = 2500;

/** Linear's error entry: the developer message, and in `extensions` its type, code and the user's wording. */
function graphqlErrors(status: number, message: string, extensions: { type: string; code: string; userPresentableMessage?: string; statusCode?: number }): SandboxReply {
  return {
    status,
    body: {
      errors: [{ message, extensions: { type: extensions.type, code: extensions.code, statusCode: extensions.statusCode ?? status, userError: true, ...(extensions.userPresentableMessage ? { userPresentableMessage: extensions.userPresentableMessage } : {}) } }],
    },
  };
}

/** Relay paging over a list: `first` (50 when absent, at most 250) nodes after the `after` cursor (a node id). */
function connection<T extends { id: string }>(items: T[], args: Record<string, unknown>, typename: string) {
  const first = args.first === undefined || args.first === null ? 50 : Number(args.first);
  if (!Number.isInteger(first) || first < 0 || first > 250) throw new GraphQLFailure('Argument "first" must be between 0 and 250.', 'INPUT_ERROR', 'invalid input');
  let start = 0;
  if (typeof args.after === 'string') {
    const index = items.findIndex((item) => item.id === args.after);
    if (index === -1) throw new GraphQLFailure('Invalid cursor', 'INPUT_ERROR', 'invalid input');
    start = index + 1;
  }
  const nodes = items.slice(start, start + first);
  return {
    __typename: typename,
    nodes,
    pageInfo: {
      __typename: 'PageInfo',
      hasNextPage: start + first < items.length,
      hasPreviousPage: start > 0,
      startCursor: nodes[0]?.id ?? null,
      endCursor: nodes.at(-1)?.id ?? null,
    },
  };
}

/** Linear's GraphQL API (`POST /graphql`) over the demo products' teams and issues. */
export function linearService(now: number): SandboxService {
  const issues = buildIssues(now);
  const teams = demoProducts.map((product) => ({ __typename: 'Team', ...product.linearTeam }));

  function issueList(args: Record<string, unknown>) {
    const orderBy = args.orderBy ?? 'createdAt';
    if (orderBy !== 'createdAt' && orderBy !== 'updatedAt') {
      throw new GraphQLFailure(`Value "${asText(orderBy)}" does not exist in "PaginationOrderBy" enum.`, 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
    }
    const matching = issues
      .filter((issue) => matchesFilter(issue, args.filter, 'Issue'))
      .sort((a: LinearIssue, b: LinearIssue) => b[orderBy].localeCompare(a[orderBy]) || b.id.localeCompare(a.id));
    return connection(matching, args, 'IssueConnection');
  }

  const queryFields: Record<string, (field: Field) => unknown> = {
    viewer: () => demoViewer,
    organization: () => demoOrganization,
    teams: (field) => connection(teams, field.args, 'TeamConnection'),
    team: (field) => {
      const team = teams.find((t) => t.id === field.args.id || t.key === field.args.id);
      if (!team) throw new GraphQLFailure('Entity not found: Team', 'INPUT_ERROR', 'invalid input');
      return team;
    },
    issues: (field) => issueList(field.args),
    issue: (field) => {
      const issue = issues.find((i) => i.id === field.args.id || i.identifier === field.args.id);
      if (!issue) throw new GraphQLFailure('Entity not found: Issue', 'INPUT_ERROR', 'invalid input');
      return issue;
    },
  };

  function execute(body: unknown): SandboxReply {
    const request = typeof body === 'object' && body !== null ? (body as { query?: unknown; variables?: unknown }) : {};
    if (typeof request.query !== 'string') {
      return graphqlErrors(400, 'Must provide query string.', { type: 'graphql error', code: 'GRAPHQL_PARSE_FAILED' });
    }
    const variables = typeof request.variables === 'object' && request.variables !== null ? (request.variables as Record<string, unknown>) : {};
    try {
      const operation = parseOperation(request.query, variables);
      // The demo key is read-only, as the dashboard needs: Linear refuses any mutation with it.
      if (operation.type === 'mutation') return graphqlErrors(400, 'Invalid scope: `write` required', { type: 'forbidden', code: 'FORBIDDEN', statusCode: 403 });
      const data: Record<string, unknown> = {};
      for (const field of operation.selections) {
        const resolve = queryFields[field.name];
        if (!resolve) throw new GraphQLFailure(`Cannot query field "${field.name}" on type "Query".`, 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
        data[field.key] = project(resolve(field), field.selections, field.name);
      }
      return { body: { data } };
    } catch (error) {
      if (!(error instanceof GraphQLFailure)) throw error;
      return graphqlErrors(error.statusCode, error.message, { type: error.type, code: error.code });
    }
  }

  return {
    name: 'linear',
    basePath: '',
    // A personal API key goes in bare; `Bearer` is for OAuth tokens, and Linear refuses a key sent that way.
    authorize: (request) => request.headers.authorization === sandboxTokens.linear,
    unauthorized: () => ({
      status: 401,
      body: {
        errors: [
          {
            message: 'Authentication required, not authenticated',
            extensions: {
              type: 'authentication error',
              code: 'AUTHENTICATION_ERROR',
              statusCode: 401,
              userError: true,
              userPresentableMessage: 'You need to authenticate to access this operation.',
              meta: {},
              http: { status: 401 },
            },
          },
        ],
      },
    }),
    rateLimit: {
      limit: REQUESTS_PER_HOUR,
      windowMs: HOUR,
      // Linear's reset is an epoch in milliseconds.
      headers: ({ limit, used, resetAt }) => ({
        'X-RateLimit-Requests-Limit': String(limit),
        'X-RateLimit-Requests-Remaining': String(Math.max(0, limit - used)),
        'X-RateLimit-Requests-Reset': String(resetAt),
      }),
      // Over the limit Linear answers 400 with a RATELIMITED GraphQL error, not 429.
      tooMany: () =>
        graphqlErrors(400, `Rate limit exceeded. Only ${REQUESTS_PER_HOUR} requests are allowed per 1 hour.`, {
          type: 'ratelimited',
          code: 'RATELIMITED',
          statusCode: 429,
          userPresentableMessage: 'Too many requests. Please try again later.',
        }),
    },
    routes: [{ method: 'POST', path: '/graphql', handle: (request) => execute(request.body) }],
  };
}
