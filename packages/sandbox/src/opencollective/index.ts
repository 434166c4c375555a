import { DAY_MS, sandboxTokens } from '../demo.ts';
import { GraphQLFailure, parseOperation, type Field } from '../graphql.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';
import { amount, buildCollective, type OcCollective, type OcMember, type OcTransaction } from './collective.ts';

const MINUTE = 60_000;
/** Open Collective's limit for a request made with a personal token: 100 a minute. */
const REQUESTS_PER_MINUTE = 100;

/** An error raised while resolving a field: GraphQL answers 200 with `data` and this in `errors`. */
class ResolverError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** A field's value: plain data, or a resolver given the field's arguments. */
type Resolvable = unknown;

/** Where a field is written in the document, as Apollo reports it in `locations`. */
function locationOf(source: string, field: string): { line: number; column: number }[] {
  const at = new RegExp(`\\b${field}\\b`).exec(source)?.index;
  if (at === undefined) return [];
  const before = source.slice(0, at).split('\n');
  return [{ line: before.length, column: (before.at(-1)?.length ?? 0) + 1 }];
}

const token = (request: SandboxRequest): string | undefined => {
  const header = request.headers['personal-token'];
  const value = Array.isArray(header) ? header[0] : header;
  return value || request.query.get('personalToken') || undefined;
};

const intArg = (args: Record<string, unknown>, name: string, fallback: number): number => {
  const value = args[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new GraphQLFailure(`Int cannot represent non-integer value: ${JSON.stringify(value)}`, 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
  return value;
};

const listArg = (value: unknown): unknown[] | undefined => (value === undefined || value === null ? undefined : Array.isArray(value) ? value : [value]);

/** Where Postgres' DATE_TRUNC starts a bucket of each time unit (UTC; weeks on Monday), and where the next one starts. */
const timeUnits = {
  DAY: { start: (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS, next: (ms: number) => ms + DAY_MS },
  WEEK: {
    start: (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS - ((new Date(ms).getUTCDay() + 6) % 7) * DAY_MS,
    next: (ms: number) => ms + 7 * DAY_MS,
  },
  MONTH: {
    start: (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), 1),
    next: (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth() + 1, new Date(ms).getUTCDate()),
  },
  YEAR: {
    start: (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), 0, 1),
    next: (ms: number) => Date.UTC(new Date(ms).getUTCFullYear() + 1, new Date(ms).getUTCMonth(), new Date(ms).getUTCDate()),
  },
} as const;

/** Open Collective's GraphQL API v2 (`POST /graphql/v2`) over Tideline's open-data collective. */
export function opencollectiveService(now: number): SandboxService {
  const collective: OcCollective = buildCollective(now);
  const me = { __typename: 'Individual', id: 'k9x2m4pq-0d7e3b8a-lw5n1c6r-zt8y2f4h', slug: 'maya-lindqvist', name: 'Maya Lindqvist', type: 'INDIVIDUAL' };

  function members(args: Record<string, unknown>) {
    let limit = intArg(args, 'limit', 100);
    let offset = intArg(args, 'offset', 0);
    if (limit < 0) limit = 100;
    if (offset < 0) offset = 0;
    if (limit > 1000) throw new ResolverError('Cannot fetch more than 1,000 members at the same time, please adjust the limit', 'INTERNAL_SERVER_ERROR');
    const roles = listArg(args.role);
    const order = (args.orderBy as { direction?: string } | undefined)?.direction === 'DESC' ? -1 : 1;
    const matching = collective.members
      .filter((member: OcMember) => !roles || roles.length === 0 || roles.includes(member.role))
      .sort((a, b) => order * a.createdAt.localeCompare(b.createdAt));
    return { __typename: 'MemberCollection', offset, limit, totalCount: matching.length, nodes: matching.slice(offset, offset + limit) };
  }

  function transactions(args: Record<string, unknown>) {
    let limit = intArg(args, 'limit', 100);
    let offset = intArg(args, 'offset', 0);
    if (limit <= 0) limit = 100;
    if (offset <= 0) offset = 0;
    if (limit > 10_000) throw new ResolverError('Cannot fetch more than 10,000 transactions at the same time, please adjust the limit', 'INTERNAL_SERVER_ERROR');
    const kinds = listArg(args.kind);
    const ascending = (args.orderBy as { direction?: string } | undefined)?.direction === 'ASC';
    const matching = collective.transactions
      .filter((t: OcTransaction) => (args.type === undefined || args.type === null || t.type === args.type) && (!kinds || kinds.includes(t.kind)))
      .sort((a, b) => (ascending ? 1 : -1) * (a.createdAt.localeCompare(b.createdAt) || a.legacyId - b.legacyId));
    return { __typename: 'TransactionCollection', offset, limit, totalCount: matching.length, nodes: matching.slice(offset, offset + limit) };
  }

  /**
   * `stats.balanceTimeSeries` as Open Collective's resolver makes it (opencollective-api `getBalanceTimeSeries`): the
   * balance before `dateFrom`, then a node per `timeUnit` bucket from `dateFrom` until `dateTo` (or now, whichever
   * comes first) holding the running balance once that bucket's transactions are in; no nodes at all when no
   * transaction falls from `dateFrom` to before `dateTo`. Buckets start where Postgres' DATE_TRUNC puts them; a
   * `dateFrom` off such a start is refused as Open Collective's fill refuses it ("Time series data not aligned").
   */
  function balanceTimeSeries(args: Record<string, unknown>) {
    const unit = typeof args.timeUnit === 'string' ? args.timeUnit : 'DAY';
    const bucket = timeUnits[unit as keyof typeof timeUnits] as (typeof timeUnits)[keyof typeof timeUnits] | undefined;
    if (!bucket) throw new ResolverError(`This sandbox draws balances by ${Object.keys(timeUnits).join(', ')}, not ${unit}`, 'INTERNAL_SERVER_ERROR');
    const date = (name: 'dateFrom' | 'dateTo', fallback: number) => {
      const value = args[name];
      if (value === undefined || value === null) return fallback;
      const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
      if (Number.isNaN(ms)) throw new GraphQLFailure(`DateTime cannot represent an invalid date-time-string ${JSON.stringify(value)}.`, 'BAD_USER_INPUT', 'graphql error');
      return ms;
    };
    const from = date('dateFrom', collective.flows[0]?.at ?? now);
    const to = date('dateTo', now);
    const inRange = collective.flows.filter((flow) => flow.at >= from && flow.at < to);
    let running = collective.flows.filter((flow) => flow.at < from).reduce((sum, flow) => sum + flow.cents, 0);
    const nodes: { __typename: string; date: string; amount: ReturnType<typeof amount>; count: null; label: null }[] = [];
    if (inRange.length > 0) {
      const byBucket = new Map<number, number>();
      for (const flow of inRange) byBucket.set(bucket.start(flow.at), (byBucket.get(bucket.start(flow.at)) ?? 0) + flow.cents);
      const buckets: number[] = [];
      for (let at = from; at < Math.min(to, now); at = bucket.next(at)) buckets.push(at);
      if ([...byBucket.keys()].some((at) => !buckets.includes(at))) throw new ResolverError('Time series data not aligned', 'INTERNAL_SERVER_ERROR');
      for (const at of buckets) {
        running += byBucket.get(at) ?? 0;
        nodes.push({ __typename: 'TimeSeriesAmountNode', date: new Date(at).toISOString(), amount: amount(running, collective.account.currency), count: null, label: null });
      }
    }
    const iso = (value: unknown) => (typeof value === 'string' ? new Date(Date.parse(value)).toISOString() : null);
    return { __typename: 'TimeSeriesAmount', dateFrom: iso(args.dateFrom), dateTo: iso(args.dateTo), timeUnit: unit, nodes };
  }

  const stats = { __typename: 'AccountStats', id: collective.account.id, ...collective.stats, balanceTimeSeries };
  const account = { ...collective.account, stats, members, transactions };

  function findAccount(args: Record<string, unknown>, typeName: string) {
    const slug = typeof args.slug === 'string' ? args.slug.toLowerCase() : undefined;
    if (slug === undefined && args.id === undefined) throw new ResolverError('Please provide a slug or an id', 'INTERNAL_SERVER_ERROR');
    if (slug === account.slug || args.id === account.id) return account;
    if (args.throwIfMissing === false) return null;
    // The model's lookup by slug throws before the resolver's own "Not Found": this is what comes back.
    if (slug !== undefined) throw new ResolverError(`No collective found with slug ${String(args.slug)}`, 'INTERNAL_SERVER_ERROR');
    throw new ResolverError(`${typeName} Not Found`, 'NotFound');
  }

  const queryFields: Record<string, (field: Field, request: SandboxRequest) => Resolvable> = {
    account: (field) => findAccount(field.args, 'Account'),
    collective: (field) => findAccount(field.args, 'Collective'),
    // Null for an anonymous request: public data needs no token.
    me: (_field, request) => (token(request) ? me : null),
    loggedInAccount: (_field, request) => (token(request) ? me : null),
  };

  /** Picks the selected fields, calling resolvers with their arguments; GraphQL's own errors for a field the type lacks. */
  function select(value: Resolvable, field: Field, typeName: string): unknown {
    const resolved = typeof value === 'function' ? (value as (args: Record<string, unknown>) => unknown)(field.args) : value;
    if (resolved === null || resolved === undefined) return null;
    if (Array.isArray(resolved)) return resolved.map((item: unknown) => select(item, { ...field, args: {} }, typeName));
    if (typeof resolved !== 'object') {
      if (field.selections) throw new GraphQLFailure(`Field "${field.name}" must not have a selection since type "${typeName}" has no subfields.`, 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
      return resolved;
    }
    const record = resolved as Record<string, unknown>;
    const ownType = typeof record.__typename === 'string' ? record.__typename : typeName;
    if (!field.selections) throw new GraphQLFailure(`Field "${field.name}" of type "${ownType}" must have a selection of subfields. Did you mean "${field.name} { ... }"?`, 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
    const out: Record<string, unknown> = {};
    for (const child of field.selections) {
      if (child.name === '__typename') out[child.key] = ownType;
      else if (!Object.hasOwn(record, child.name)) throw new GraphQLFailure(`Cannot query field "${child.name}" on type "${ownType}".`, 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
      else out[child.key] = select(record[child.name], child, child.name);
    }
    return out;
  }

  function execute(request: SandboxRequest): SandboxReply {
    const body = typeof request.body === 'object' && request.body !== null ? (request.body as { query?: unknown; variables?: unknown }) : {};
    if (typeof body.query !== 'string' || body.query.trim() === '') {
      return { status: 400, body: { errors: [{ message: 'GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.', extensions: { code: 'BAD_REQUEST' } }] } };
    }
    const source = body.query;
    const variables = typeof body.variables === 'object' && body.variables !== null ? (body.variables as Record<string, unknown>) : {};
    try {
      const operation = parseOperation(source, variables);
      if (operation.type !== 'query') throw new GraphQLFailure('This sandbox answers queries only.', 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
      const data: Record<string, unknown> = {};
      const errors: unknown[] = [];
      for (const field of operation.selections) {
        const resolve = queryFields[field.name];
        if (!resolve) throw new GraphQLFailure(`Cannot query field "${field.name}" on type "Query".`, 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
        try {
          data[field.key] = select(resolve(field, request), field, field.name);
        } catch (error) {
          if (!(error instanceof ResolverError)) throw error;
          // A resolver's failure nulls its field and is reported alongside the rest of the data.
          data[field.key] = null;
          errors.push({ message: error.message, locations: locationOf(source, field.key), path: [field.key], extensions: { code: error.code } });
        }
      }
      return { body: errors.length > 0 ? { errors, data } : { data } };
    } catch (error) {
      if (!(error instanceof GraphQLFailure)) throw error;
      // Apollo refuses a document it cannot parse or validate with a 400 and no data.
      return { status: 400, body: { errors: [{ message: error.message, extensions: { code: error.code } }] } };
    }
  }

  return {
    name: 'opencollective',
    basePath: '',
    // A wrong token is refused; no token at all is an anonymous (public data) request.
    authorize: (request) => {
      const sent = token(request);
      return sent === undefined || sent === sandboxTokens.opencollective;
    },
    // Open Collective's REST error body, which repeats the token it did not recognise.
    unauthorized: (request) => ({
      status: 401,
      headers: { 'Cache-Control': 'no-cache' },
      body: { error: { code: 401, type: 'unauthorized', message: `Invalid Personal Token (Api Key): ${token(request) ?? ''}` } },
    }),
    rateLimit: {
      limit: REQUESTS_PER_MINUTE,
      windowMs: MINUTE,
      // express-limiter's headers: the reset is an epoch in seconds.
      headers: ({ limit, used, resetAt }) => ({
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': String(Math.max(0, limit - used)),
        'X-RateLimit-Reset': String(Math.ceil(resetAt / 1000)),
      }),
      tooMany: (retryAfterMs) => ({
        status: 429,
        headers: { 'Retry-After': String(retryAfterMs / 1000) },
        body: { error: { message: 'Rate limit exceeded. Contact-us to get higher limits.' } },
      }),
    },
    routes: [
      { method: 'POST', path: '/graphql/v2', handle: execute },
      // `/graphql` is v2 too.
      { method: 'POST', path: '/graphql', handle: execute },
    ],
  };
}
