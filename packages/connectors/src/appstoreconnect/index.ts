import type { z } from 'zod';
import type { StorefrontConnector } from '../connector.ts';
import type { ConnectorContext } from '../context.ts';
import { ConnectorError } from '../errors.ts';
import { collectPages, defineClient, parseRetryAfter, type QueryValue } from '../http.ts';
import { hourRemaining, kept, newestFirst, reasonOf, toReview, toVersion } from './map.ts';
import { appDocument, appList, errorBody, reviewList, versionList, type AppStoreVersion } from './schemas.ts';
import { appStoreToken } from './token.ts';

const SERVICE = 'App Store Connect';
/** The newest written reviews the storefront lists. */
export const REVIEWS = 20;
const VERSIONS = 10;
/** Apple gives no Retry-After; with the rolling hour spent, asking again within a minute is pointless. */
const HOUR_SPENT_WAIT_MS = 60_000;

const reason = (body: unknown) => {
  const parsed = errorBody.safeParse(body);
  return parsed.success ? reasonOf(parsed.data.errors) : undefined;
};

/**
 * Apple's 429 (`RATE_LIMIT_EXCEEDED`) comes with `X-Rate-Limit` and, documented, no Retry-After. When
 * it sends one anyway, it is honoured; when the hour's budget is spent (`user-hour-rem:0`), the call
 * waits a minute rather than retrying at once; otherwise (the 429s Apple sends to bursts while budget
 * remains) the usual short back-off applies.
 */
export function appStoreRateLimit(status: number, headers: Headers, body: unknown, now: number): ConnectorError | undefined {
  if (status !== 429) return undefined;
  const said = reason(body);
  const retryAfterMs = parseRetryAfter(headers.get('retry-after'), now) ?? (hourRemaining(headers.get('x-rate-limit')) === 0 ? HOUR_SPENT_WAIT_MS : undefined);
  return new ConnectorError('rate_limited', `${SERVICE} is rate limiting us (429)${said ? `: ${said}` : ''}`, retryAfterMs === undefined ? {} : { retryAfterMs });
}

const client = defineClient({
  service: SERVICE,
  // The bearer token is signed per call with the context's clock (see `authorized`), not from credentials alone.
  headers: () => ({}),
  errorMessage: reason,
  classify: appStoreRateLimit,
});

/** A GET with the key's current JWT; `path` may be a `links.next` URL Apple handed out. */
function get<T>(ctx: ConnectorContext, token: string, path: string, query: Record<string, QueryValue>, schema: z.ZodType<T>) {
  return client.request(ctx, { path, query, headers: { authorization: `Bearer ${token}` }, schema }).then((response) => response.data);
}

/**
 * The next page of a list: `links.next` resolved against the list's URL (the description allows a
 * relative reference), followed only while it is the same list, as Apple's cursor links are; a link
 * elsewhere ends the paging rather than reading another resource as this list.
 */
export function nextPageOf(next: string | undefined, list: URL): string | undefined {
  if (next === undefined) return undefined;
  const url = URL.canParse(next, list) ? new URL(next, list) : undefined;
  return url && url.origin === list.origin && url.pathname === list.pathname ? url.toString() : undefined;
}

/** App Store Connect: an app's name and bundle id, its newest customer reviews and its versions. */
export const appstoreconnect: StorefrontConnector = {
  service: 'appstoreconnect',
  defaultBaseUrl: 'https://api.appstoreconnect.apple.com',
  rateLimit: { limit: 200, windowMs: 60_000 },

  async test(ctx) {
    const token = appStoreToken(ctx.credentials, ctx.clock.now());
    await get(ctx, token, '/v1/apps', { limit: 1, 'fields[apps]': 'name' }, appList);
  },

  async storefront(ctx, { config }) {
    const token = appStoreToken(ctx.credentials, ctx.clock.now());
    const app = `/v1/apps/${encodeURIComponent(config.appId)}`;
    const versionsUrl = new URL(`${ctx.baseUrl.replace(/\/+$/, '')}${app}/appStoreVersions`);
    const [about, reviews, versions] = await Promise.all([
      get(ctx, token, app, { 'fields[apps]': 'name,bundleId' }, appDocument),
      // One page: the newest twenty are what the widget shows, however many the app has.
      get(ctx, token, `${app}/customerReviews`, { sort: '-createdDate', limit: REVIEWS }, reviewList),
      // The endpoint has no sort: pages are read (up to fifty versions) and sorted here, newest first.
      collectPages<AppStoreVersion, string>(
        undefined,
        async (next) => {
          const page = next ? await get(ctx, token, next, {}, versionList) : await get(ctx, token, `${app}/appStoreVersions`, { limit: VERSIONS }, versionList);
          return { items: page.data, next: nextPageOf(page.links.next, versionsUrl) };
        },
        { maxPages: 5 },
      ),
    ]);
    return {
      // Apple's description promises neither; the widget shows an empty name rather than a made-up one.
      app: { name: about.data.attributes?.name ?? '', bundleId: about.data.attributes?.bundleId ?? '' },
      reviews: newestFirst(kept(reviews.data.map(toReview))).slice(0, REVIEWS),
      versions: newestFirst(kept(versions.map(toVersion))).slice(0, VERSIONS),
    };
  },
};
