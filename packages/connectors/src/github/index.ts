import type { ShippingConnector } from '../connector.ts';
import type { ConnectorContext } from '../context.ts';
import { ConnectorError } from '../errors.ts';
import { RejectedTokenError, withAccessToken } from '../oauth.ts';
import { collectPages, defineClient, nextLink, parseRetryAfter, type ClientSpec } from '../http.ts';
import { hasNewestMerged, isMerged, toShipped, type MergedPull } from './map.ts';
import { errorBody, pullList, user, type GitHubPull } from './schemas.ts';

const SERVICE = 'GitHub';

/**
 * The hook this connector needs from `defineClient` (see the report to the lead): it decides a failed
 * answer's error before the status rules, because GitHub says "rate limited" with a 403 as often as a
 * 429. Until http.ts calls it, a 403 with x-ratelimit-remaining: 0 falls back to an auth error.
 */
type Classify = (status: number, headers: Headers, body: unknown, now: number) => ConnectorError | undefined;

const reasonOf = (body: unknown) => {
  const parsed = errorBody.safeParse(body);
  return parsed.success ? parsed.data.message : undefined;
};

/**
 * GitHub's rate limits, as its docs tell clients to read them: a used-up primary limit is a 403 or
 * 429 with `x-ratelimit-remaining: 0`, to wait until `x-ratelimit-reset` (epoch seconds); a secondary
 * limit sends `retry-after`, or nothing, and then asks for at least a minute.
 */
export function githubRateLimit(status: number, headers: Headers, body: unknown, now: number): ConnectorError | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const reason = reasonOf(body);
  const retryAfter = parseRetryAfter(headers.get('retry-after'), now);
  const primary = headers.get('x-ratelimit-remaining') === '0';
  const secondary = retryAfter !== undefined || /secondary rate limit/i.test(reason ?? '');
  if (!primary && !secondary) return undefined;
  const reset = Number(headers.get('x-ratelimit-reset') ?? Number.NaN);
  const untilReset = Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - now) : undefined;
  const retryAfterMs = retryAfter ?? (primary ? untilReset : 60_000);
  return new ConnectorError('rate_limited', `${SERVICE} is rate limiting us (${status})${reason ? `: ${reason}` : ''}`, retryAfterMs === undefined ? {} : { retryAfterMs });
}

const spec: ClientSpec & { classify: Classify } = {
  service: SERVICE,
  headers: (credentials) => ({
    authorization: `Bearer ${credentials.token ?? ''}`,
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
    'user-agent': 'founder-dashboard',
  }),
  errorMessage: reasonOf,
  // A 401 is the token's: an expiring OAuth token gets one more try with a new one (withAccessToken).
  classify: (status, headers, body, now) => (status === 401 ? new RejectedTokenError(SERVICE, reasonOf(body)) : githubRateLimit(status, headers, body, now)),
};
const client = defineClient(spec);

/**
 * A repository's merged pull requests, newest merged first, reading pages of recently updated closed
 * pulls only until no later page can hold one of the newest `limit`.
 */
async function mergedPulls(ctx: ConnectorContext, repo: string, limit: number): Promise<MergedPull[]> {
  const [owner = '', name = ''] = repo.split('/');
  const merged: MergedPull[] = [];
  try {
    await collectPages<GitHubPull, string>(
      undefined,
      async (next) => {
        const { data, headers } = await client.request(
          ctx,
          next
            ? { path: next, schema: pullList }
            : {
                path: `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/pulls`,
                query: { state: 'closed', sort: 'updated', direction: 'desc', per_page: Math.min(100, Math.max(10, limit)) },
                schema: pullList,
              },
        );
        merged.push(...data.filter(isMerged));
        const link = nextLink(headers.get('link'));
        return { items: data, next: link && !hasNewestMerged(merged, data.at(-1)?.updated_at, limit) ? link : undefined };
      },
      { maxPages: 10 },
    );
  } catch (error) {
    if (error instanceof ConnectorError && error.kind === 'not_found') {
      throw new ConnectorError('not_found', `${SERVICE} has no repository ${repo} that this token can read (404)`, { cause: error });
    }
    throw error;
  }
  return merged.sort((a, b) => b.merged_at.localeCompare(a.merged_at)).slice(0, limit);
}

/**
 * Runs `call` on a context carrying the token to send: a personal access token or an OAuth app's token as stored, an
 * expiring GitHub App user token refreshed first when it is due (the shared OAuth path stores the new pair), and on a
 * 401 once more with a new one; without any token, "not connected yet" before a request is made.
 */
function authorized<T>(ctx: ConnectorContext, call: (ctx: ConnectorContext) => Promise<T>): Promise<T> {
  return withAccessToken(ctx, 'github', (token) => call({ ...ctx, credentials: { ...ctx.credentials, token } }));
}

/** The login of the account the token belongs to: who settings says GitHub is connected as. */
export function githubLogin(ctx: ConnectorContext): Promise<string> {
  return authorized(ctx, async (authed) => (await client.get(authed, '/user', {}, user)).login);
}

/** GitHub: merged pull requests of the project's repositories as shipped work. */
export const github: ShippingConnector<'code_host'> = {
  service: 'github',
  defaultBaseUrl: 'https://api.github.com',
  // The primary limit of a personal access token.
  rateLimit: { limit: 5000, windowMs: 3_600_000 },

  async test(ctx) {
    await githubLogin(ctx);
  },

  shipped: (unauthorized, { config, limit }) =>
    authorized(unauthorized, async (ctx) => {
      // Settled, not raced: a failing repository must not leave the others' paging running after we return.
      const settled = await Promise.allSettled(config.repos.map((repo) => mergedPulls(ctx, repo, limit)));
      const failed = settled.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      return settled
        .flatMap((result) => (result.status === 'fulfilled' ? result.value : []))
        .map(toShipped)
        .sort((a, b) => b.shippedAt.localeCompare(a.shippedAt))
        .slice(0, limit);
    }),
};
