import type { z } from 'zod';
import type { FundingConnector } from '../connector.ts';
import type { ConnectorContext } from '../context.ts';
import { ConnectorError } from '../errors.ts';
import { defineClient, parseWith, type ClientSpec } from '../http.ts';
import { isoDay } from '../dates.ts';
import { dayStart, nextDay, readableWindow } from '../series.ts';
import { majorUnits, toFunding } from './map.ts';
import { balanceHistoryData, envelope, fundingData, graphqlErrorBody, meData, restErrorBody, type OcGraphQLError } from './schemas.ts';

const SERVICE = 'Open Collective';
const PATH = '/graphql/v2';
const TRANSACTIONS_LIMIT = 20;
const MEMBERS_LIMIT = 50;

/**
 * Open Collective repeats an unknown token in its 401 ("Invalid Personal Token (Api Key): <token>"):
 * the reason is kept, the token is not.
 */
export function withoutToken(message: string): string {
  return message.replace(/((?:invalid|expired) personal token(?: \(api key\))?|invalid personal token for collective)\s*:.*$/is, '$1');
}

const reasonOf = (errors: readonly OcGraphQLError[]) => withoutToken(errors[0]?.message ?? 'unknown error');

const NOT_FOUND = /^No \w+ found with slug|Not Found$/i;

/** A GraphQL error list as a ConnectorError, by Open Collective's `extensions.code` (and its wording for a missing slug). */
export function opencollectiveError(status: number, errors: readonly OcGraphQLError[], slug?: string): ConnectorError {
  const first = errors[0];
  const code = first?.extensions?.code?.toLowerCase();
  const said = `(${status}): ${reasonOf(errors)}`;
  if (code === 'unauthorized' || code === 'invalidtoken') return new ConnectorError('auth', `${SERVICE} rejected the credentials ${said}`);
  if (code === 'forbidden') return new ConnectorError('auth', `${SERVICE} refused access ${said}`);
  if (code === 'ratelimitexceeded') return new ConnectorError('rate_limited', `${SERVICE} is rate limiting us ${said}`);
  if (code === 'notfound' || NOT_FOUND.test(first?.message ?? '')) {
    const what = slug === undefined ? 'such account' : `collective with the slug "${slug}"`;
    return new ConnectorError('not_found', `${SERVICE} has no ${what} ${said}`);
  }
  // Anything else means Open Collective could not run the query we sent.
  return new ConnectorError('bad_response', `${SERVICE} could not answer our query ${said}`);
}

const spec: ClientSpec = {
  service: SERVICE,
  // A personal token goes in its own header; without one Open Collective serves public data anonymously.
  headers: (credentials): Record<string, string> => {
    const token = credentials.personalToken ?? '';
    return token === '' ? {} : { 'personal-token': token };
  },
  errorMessage(body) {
    const rest = restErrorBody.safeParse(body);
    if (rest.success) return withoutToken(rest.data.error.message);
    const graphql = graphqlErrorBody.safeParse(body);
    return graphql.success ? reasonOf(graphql.data.errors) : undefined;
  },
  // A 400 with GraphQL errors is a query Open Collective refused to run; its code says why.
  classify(status, _headers, body) {
    if (status >= 500 || status === 401 || status === 429) return undefined;
    const parsed = graphqlErrorBody.safeParse(body);
    return parsed.success ? opencollectiveError(status, parsed.data.errors) : undefined;
  },
};
const client = defineClient(spec);

/** One GraphQL operation: errors are read even on a 200, then `data` is parsed against its schema. */
async function graphql<T>(ctx: ConnectorContext, query: string, variables: Record<string, unknown>, schema: z.ZodType<T>, slug?: string): Promise<T> {
  const secret = ctx.credentials.personalToken ?? '';
  try {
    const { data: reply } = await client.request(ctx, { method: 'POST', path: PATH, body: { query, variables }, schema: envelope });
    if (reply.errors && reply.errors.length > 0) throw opencollectiveError(200, reply.errors, slug);
    return parseWith(SERVICE, schema, reply.data);
  } catch (error) {
    // Whatever Open Collective chose to echo, the token never leaves in a message.
    if (error instanceof ConnectorError && secret.length >= 4 && error.message.includes(secret)) {
      throw new ConnectorError(error.kind, error.message.replaceAll(secret, '[redacted]'), {
        retryable: error.retryable,
        ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
      });
    }
    throw error;
  }
}

const AMOUNT = '{ valueInCents currency }';
// Account and Transaction are interfaces: `__typename` names each one's type, as Apollo's own client asks.
const FUNDING_QUERY = `query Funding($slug: String!, $transactionsLimit: Int!, $membersLimit: Int!) {
  account(slug: $slug) {
    __typename id slug name currency
    stats {
      balance ${AMOUNT}
      totalAmountReceived ${AMOUNT}
      yearlyBudget ${AMOUNT}
    }
    transactions(limit: $transactionsLimit, offset: 0, orderBy: { field: CREATED_AT, direction: DESC }) {
      totalCount
      nodes { __typename id type kind createdAt description amount ${AMOUNT} }
    }
    members(role: [BACKER], limit: $membersLimit, offset: 0) {
      totalCount
      nodes {
        role
        tier { name }
        totalDonations ${AMOUNT}
        account { __typename name imageUrl }
      }
    }
  }
}`;

/**
 * The collective's balance per UTC day. `balanceTimeSeries` counts transactions created from `dateFrom` up to (not
 * including) `dateTo`, bucketed by `timeUnit`; the schema's description says only "Balance time series", so what a
 * node's amount is comes from Open Collective's resolver (opencollective-api `server/lib/budget.js`,
 * `getBalanceTimeSeries`): the balance before `dateFrom`, plus each bucket's net transactions in turn, i.e. a running
 * balance at the END of the node's day, not that day's change. Every day from `dateFrom` to `dateTo` (or now) gets a
 * node, but only when the range holds at least one transaction: a quiet range answers no nodes at all.
 */
const BALANCE_HISTORY_QUERY = `query BalanceHistory($slug: String!, $dateFrom: DateTime!, $dateTo: DateTime!) {
  account(slug: $slug) {
    __typename currency
    stats {
      balanceTimeSeries(dateFrom: $dateFrom, dateTo: $dateTo, timeUnit: DAY) {
        timeUnit
        nodes { date amount ${AMOUNT} }
      }
    }
  }
}`;

/** Open Collective: a collective's balance, budget, latest transactions and backers. */
export const opencollective: FundingConnector = {
  service: 'opencollective',
  defaultBaseUrl: 'https://api.opencollective.com',
  // Open Collective's limit for requests made with a personal token.
  rateLimit: { limit: 100, windowMs: 60_000 },

  async test(ctx) {
    const { me } = await graphql(ctx, 'query Me { me { id } }', {}, meData);
    // A request without a (known) token is served anonymously: `me` is then null.
    if (!me) throw new ConnectorError('auth', `${SERVICE} did not recognise a signed-in account: add a personal token`);
  },

  async funding(ctx, { slug }) {
    const { account } = await graphql(ctx, FUNDING_QUERY, { slug, transactionsLimit: TRANSACTIONS_LIMIT, membersLimit: MEMBERS_LIMIT }, fundingData, slug);
    if (!account) throw new ConnectorError('not_found', `${SERVICE} has no collective with the slug "${slug}"`);
    return toFunding(account);
  },

  history: {
    seriesDays: 365,
    /**
     * `funding.balance` at the end of each UTC day of the window, in the collective's currency (see
     * BALANCE_HISTORY_QUERY for what a node holds). One request for the whole window; a node without cents is left
     * out, and so is every day of a window in which the collective had no transaction (Open Collective answers none).
     */
    async series(ctx, { slug, ...window }) {
      const span = readableWindow(window);
      if (!span) return [];
      const variables = { slug, dateFrom: new Date(dayStart(span.from)).toISOString(), dateTo: new Date(dayStart(nextDay(span.to))).toISOString() };
      const { account } = await graphql(ctx, BALANCE_HISTORY_QUERY, variables, balanceHistoryData, slug);
      if (!account) throw new ConnectorError('not_found', `${SERVICE} has no collective with the slug "${slug}"`);
      const series = account.stats?.balanceTimeSeries;
      if (series && series.timeUnit !== 'DAY') throw new ConnectorError('bad_response', `${SERVICE} answered a daily balance by ${series.timeUnit}`);
      return (series?.nodes ?? []).flatMap(({ date, amount }) => {
        const at = Date.parse(date);
        const day = Number.isNaN(at) ? undefined : isoDay(at);
        const value = majorUnits(amount);
        if (value === null || day === undefined || day < span.from || day > span.to) return [];
        return [{ metric: 'funding.balance' as const, date: day, value, currency: amount.currency ?? account.currency ?? 'USD' }];
      });
    },
  },
};
