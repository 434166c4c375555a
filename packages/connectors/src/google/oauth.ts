import { createHash } from 'node:crypto';
import type { ConnectorContext } from '../context.ts';
import { ConnectorError } from '../errors.ts';
import { defineClient } from '../http.ts';
import { oauthError, tokenResponse } from './schemas.ts';

const REAL_TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** A token this close to its expiry is refreshed rather than used: a request must not outlive it. */
const REFRESH_EARLY_MS = 60_000;

/**
 * Where to refresh. Against Google itself (a base URL on googleapis.com, the connector's default
 * `https://www.googleapis.com` or searchconsole.googleapis.com) it is Google's token endpoint; against
 * anything else (the sandbox, a proxy) the API and the token endpoint share the one base URL, and the
 * token endpoint is `${baseUrl}/token`.
 */
export function tokenUrlOf(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return /^https:\/\/[a-z0-9.-]+\.googleapis\.com$/i.test(base) ? REAL_TOKEN_URL : `${base}/token`;
}

const reasonOf = (body: unknown): string | undefined => {
  const parsed = oauthError.safeParse(body);
  if (!parsed.success) return undefined;
  const { error, error_description: description } = parsed.data;
  return description ? `${error}: ${description}` : error;
};

const tokenClient = defineClient({
  service: 'Google',
  // The client's id and secret go in the form body, as Google's own libraries send them.
  headers: () => ({}),
  errorMessage: reasonOf,
  classify(status, _headers, body) {
    if (status >= 500) return undefined;
    const parsed = oauthError.safeParse(body);
    if (!parsed.success) return undefined;
    const { error } = parsed.data;
    // Revoked by the user, expired (7 days for apps still "in testing"), or replaced by newer ones.
    if (error === 'invalid_grant') return new ConnectorError('auth', 'Google revoked the Search Console access (invalid_grant): reconnect Google in settings');
    if (error === 'invalid_client') {
      return new ConnectorError('auth', `Google does not accept the OAuth client (${reasonOf(body) ?? error}): check the client ID and client secret in settings`);
    }
    if (error === 'unauthorized_client') {
      return new ConnectorError('auth', `Google does not let this OAuth client refresh tokens (${reasonOf(body) ?? error}): check the client ID in settings`);
    }
    return undefined;
  },
});

/**
 * `defineClient` sends bodies as JSON; the token endpoint is specified (RFC 6749 §4.1.3) with a form
 * body. The fetch below re-encodes our own flat body as `application/x-www-form-urlencoded`, so the
 * token request keeps the shared limiter, timeout, retries and error rules.
 */
function formFetch(inner: typeof fetch): typeof fetch {
  return (input, init) => {
    const fields: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : {};
    const form = new URLSearchParams();
    if (fields && typeof fields === 'object') for (const [name, value] of Object.entries(fields)) form.set(name, String(value));
    const headers = new Headers(init?.headers);
    headers.set('content-type', 'application/x-www-form-urlencoded');
    return inner(input, { ...init, headers, body: form.toString() });
  };
}

interface CachedToken {
  value: string;
  expiresAt: number;
}

/**
 * Access tokens by SHA-256 of the token URL, client id and refresh token: never the secrets
 * themselves in memory keys. Module-level so every call on the same account reuses one token; a
 * refresh under way is shared too, so parallel requests make one token request.
 */
const cache = new Map<string, CachedToken>();
const refreshing = new Map<string, Promise<CachedToken>>();

/** Forgets every access token (tests start each case from "never refreshed"). */
export function forgetAccessTokens(): void {
  cache.clear();
  refreshing.clear();
}

interface GoogleCredentials {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}

function credentialsOf(ctx: ConnectorContext): GoogleCredentials {
  const { clientId, clientSecret, refreshToken } = ctx.credentials;
  if (!clientId || !clientSecret || !refreshToken) {
    throw new ConnectorError('auth', 'Google credentials are incomplete: the client ID, client secret and refresh token are all needed');
  }
  return { clientId, clientSecret, refreshToken };
}

const keyOf = (ctx: ConnectorContext, { clientId, refreshToken }: GoogleCredentials) =>
  createHash('sha256').update(`${tokenUrlOf(ctx.baseUrl)}\n${clientId}\n${refreshToken}`).digest('hex');

async function refresh(ctx: ConnectorContext, key: string, credentials: GoogleCredentials): Promise<CachedToken & { scopes: string[] }> {
  const askedAt = ctx.clock.now();
  const { data } = await tokenClient.request(
    { ...ctx, fetch: formFetch(ctx.fetch) },
    {
      method: 'POST',
      path: tokenUrlOf(ctx.baseUrl),
      body: {
        grant_type: 'refresh_token',
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
        refresh_token: credentials.refreshToken,
      },
      schema: tokenResponse,
    },
  );
  // Counted from before the request: the token is never kept past its `expires_in`.
  const token = { value: data.access_token, expiresAt: askedAt + data.expires_in * 1000 };
  for (const [other, cached] of cache) if (cached.expiresAt <= askedAt) cache.delete(other);
  cache.set(key, token);
  return { ...token, scopes: (data.scope ?? '').split(' ').filter(Boolean) };
}

/**
 * Refreshes once, now (no cached token), and answers the scopes Google granted the refresh token: proves a
 * refresh token found on this machine works, and says whether it reaches Search Console.
 */
export async function grantedScopes(ctx: ConnectorContext): Promise<string[]> {
  const credentials = credentialsOf(ctx);
  return (await refresh(ctx, keyOf(ctx, credentials), credentials)).scopes;
}

/** A usable access token, and whether it came from the cache (only then is a 401 worth one more try). */
export async function accessToken(ctx: ConnectorContext): Promise<{ value: string; cached: boolean }> {
  const credentials = credentialsOf(ctx);
  const key = keyOf(ctx, credentials);
  const cached = cache.get(key);
  if (cached && cached.expiresAt - ctx.clock.now() > REFRESH_EARLY_MS) return { value: cached.value, cached: true };
  let pending = refreshing.get(key);
  if (!pending) {
    pending = refresh(ctx, key, credentials).finally(() => refreshing.delete(key));
    refreshing.set(key, pending);
  }
  return { value: (await pending).value, cached: false };
}

/** The API refused this token: forget it (unless a newer one already replaced it). */
export function dropAccessToken(ctx: ConnectorContext, value: string): void {
  const key = keyOf(ctx, credentialsOf(ctx));
  if (cache.get(key)?.value === value) cache.delete(key);
}
