import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ConnectorContext } from './context.ts';
import { ConnectorError } from './errors.ts';
import { defineClient, parseWith } from './http.ts';

/** The providers whose accounts connect with OAuth's authorization-code flow (SPEC: /api/auth/{provider}/…). */
export const oauthProviders = ['google', 'github'] as const;
export type OAuthProvider = (typeof oauthProviders)[number];

/** A token this close to its expiry is refreshed rather than used: a request must not outlive it. */
const REFRESH_EARLY_MS = 60_000;

interface ProviderSpec {
  label: string;
  /** The provider's own endpoints for its own API, else (the sandbox, a proxy, GitHub Enterprise) under the base URL. */
  endpoints(baseUrl: string): { authorize: string; token: string };
  defaultScopes: readonly string[];
  /** Added to every authorization request. */
  authorizeParams: Readonly<Record<string, string>>;
  /** Where the access token sits in the credential: the connectors read it from there. */
  accessField: string;
}

const googleApi = /^https:\/\/[a-z0-9.-]+\.googleapis\.com$/i;

const providers: Record<OAuthProvider, ProviderSpec> = {
  google: {
    label: 'Google',
    endpoints: (baseUrl) =>
      googleApi.test(baseUrl)
        ? { authorize: 'https://accounts.google.com/o/oauth2/v2/auth', token: 'https://oauth2.googleapis.com/token' }
        : { authorize: `${baseUrl}/o/oauth2/v2/auth`, token: `${baseUrl}/token` },
    // Search Console read-only; openid + email name the account in settings (the id token says which).
    defaultScopes: ['https://www.googleapis.com/auth/webmasters.readonly', 'openid', 'email'],
    // A refresh token comes back only with offline access, and again only when consent is asked for again.
    authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
    accessField: 'accessToken',
  },
  github: {
    label: 'GitHub',
    // GitHub's API is api.github.com, its OAuth endpoints github.com; an Enterprise server serves both, the API under /api/v3.
    endpoints(baseUrl) {
      const root = baseUrl === 'https://api.github.com' ? 'https://github.com' : baseUrl.replace(/\/api\/v3$/, '');
      return { authorize: `${root}/login/oauth/authorize`, token: `${root}/login/oauth/access_token` };
    },
    // Private repositories' pull requests, releases and deployments need `repo` on an OAuth app (a GitHub App ignores scopes).
    defaultScopes: ['repo'],
    authorizeParams: { allow_signup: 'false' },
    accessField: 'token',
  },
};

export const oauthLabel = (provider: OAuthProvider) => providers[provider].label;

/** Whether granted scopes let the dashboard read Search Console (`webmasters.readonly`, or the wider `webmasters`). */
export const reachesSearchConsole = (scopes: readonly string[]) =>
  scopes.some((scope) => scope === 'https://www.googleapis.com/auth/webmasters.readonly' || scope === 'https://www.googleapis.com/auth/webmasters');
export const defaultScopes = (provider: OAuthProvider): readonly string[] => providers[provider].defaultScopes;
export const oauthEndpoints = (provider: OAuthProvider, baseUrl: string) => providers[provider].endpoints(baseUrl.replace(/\/+$/, ''));

/** Where Google refreshes against this base URL (the Search Console connector's tests name it). */
export const tokenUrlOf = (baseUrl: string) => oauthEndpoints('google', baseUrl).token;

/** The token endpoint's answer (RFC 6749 §5.1); GitHub's expiring user tokens add the refresh token's own expiry. */
const tokenAnswer = z
  .object({
    access_token: z.string().min(1),
    token_type: z.string().optional(),
    expires_in: z.coerce.number().positive().optional(),
    refresh_token: z.string().min(1).optional(),
    refresh_token_expires_in: z.coerce.number().positive().optional(),
    // Google: space-separated; GitHub: comma-separated.
    scope: z.string().optional(),
    id_token: z.string().optional(),
  })
  .loose();

/** OAuth 2.0 errors (RFC 6749 §5.2): `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`. */
const oauthError = z.object({ error: z.string().min(1), error_description: z.string().optional() }).loose();

/** Codes saying the grant itself is gone (revoked, expired, replaced): only a new consent helps. */
const REFUSED_GRANTS = new Set(['invalid_grant', 'bad_refresh_token']);
const CLIENT_ERRORS = new Set(['invalid_client', 'unauthorized_client', 'incorrect_client_credentials']);

/** The token endpoint refused: `code` is the provider's own error code (`invalid_grant`, `bad_verification_code`…). */
export class OAuthError extends ConnectorError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super('auth', message);
    this.name = 'OAuthError';
  }

  /** The grant is gone for good: the connection needs a reconnect. */
  get grantRefused(): boolean {
    return REFUSED_GRANTS.has(this.code);
  }
}

function refusal(provider: OAuthProvider, body: unknown, grant: string): OAuthError | undefined {
  const parsed = oauthError.safeParse(body);
  if (!parsed.success) return undefined;
  const { error: code, error_description: description } = parsed.data;
  const { label } = providers[provider];
  const reason = description ? `${code}: ${description}` : code;
  if (REFUSED_GRANTS.has(code) && grant === 'refresh_token') {
    return new OAuthError(code, `${label} revoked the dashboard's access (${reason}): reconnect ${label} in settings`);
  }
  if (CLIENT_ERRORS.has(code)) return new OAuthError(code, `${label} does not accept the OAuth client (${reason}): check the client ID and client secret in settings`);
  if (code === 'redirect_uri_mismatch') return new OAuthError(code, `${label} does not know the redirect URI (${reason}): register the one settings shows`);
  return new OAuthError(code, `${label} refused the token request (${reason})`);
}

const tokenClients = new Map<string, ReturnType<typeof defineClient>>();

/** The token endpoint's client for one provider and grant: a refusal means something else for a code than for a refresh token. */
function tokenClient(provider: OAuthProvider, grant: string) {
  const name = `${provider}:${grant}`;
  let client = tokenClients.get(name);
  if (!client) {
    client = defineClient({
      service: providers[provider].label,
      // The client's id and secret go in the form body, as both providers' own libraries send them.
      headers: () => ({}),
      errorMessage: (body) => {
        const parsed = oauthError.safeParse(body);
        return parsed.success ? (parsed.data.error_description ?? parsed.data.error) : undefined;
      },
      classify: (status, _headers, body) => (status >= 500 ? undefined : refusal(provider, body, grant)),
    });
    tokenClients.set(name, client);
  }
  return client;
}

/** What a token endpoint handed out, with times made absolute (counted from before the request). */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string | undefined;
  /** Epoch ms; undefined for a token that does not expire (a GitHub OAuth app's). */
  expiresAt?: number | undefined;
  refreshTokenExpiresAt?: number | undefined;
  scopes: string[];
  /** Google's OpenID id token, when `openid` was granted: it names the account. */
  idToken?: string | undefined;
}

async function tokenRequest(ctx: ConnectorContext, provider: OAuthProvider, form: Record<string, string>): Promise<TokenSet> {
  const askedAt = ctx.clock.now();
  const grant = form.grant_type ?? '';
  const { data } = await tokenClient(provider, grant).request(ctx, { method: 'POST', path: oauthEndpoints(provider, ctx.baseUrl).token, form, schema: z.unknown() });
  // GitHub answers a refusal with 200 and the error in the body.
  const refused = refusal(provider, data, grant);
  if (refused) throw refused;
  const token = parseWith(providers[provider].label, tokenAnswer, data, 'token response');
  const at = (seconds: number | undefined) => (seconds === undefined ? undefined : askedAt + seconds * 1000);
  return {
    accessToken: token.access_token,
    refreshToken: token.refresh_token,
    expiresAt: at(token.expires_in),
    refreshTokenExpiresAt: at(token.refresh_token_expires_in),
    scopes: (token.scope ?? '').split(/[\s,]+/).filter(Boolean),
    idToken: token.id_token,
  };
}

interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

function clientOf(ctx: ConnectorContext, provider: OAuthProvider): OAuthClient {
  const { clientId, clientSecret } = ctx.credentials;
  if (!clientId || !clientSecret) throw new ConnectorError('auth', `${providers[provider].label}'s OAuth client ID and client secret are both needed: save them in settings`);
  return { clientId, clientSecret };
}

/** The authorization page's URL (RFC 6749 §4.1.1 with PKCE, RFC 7636): where "Connect" sends the browser. */
export function authorizationUrl(
  provider: OAuthProvider,
  baseUrl: string,
  request: { clientId: string; redirectUri: string; scopes: readonly string[]; state: string; codeChallenge: string },
): string {
  const url = new URL(oauthEndpoints(provider, baseUrl).authorize);
  const params = {
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scopes.join(' '),
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
    ...providers[provider].authorizeParams,
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.href;
}

/** Trades an authorization code for tokens (RFC 6749 §4.1.3), proving the flow's start with its PKCE verifier. */
export function exchangeCode(ctx: ConnectorContext, provider: OAuthProvider, grant: { code: string; redirectUri: string; codeVerifier: string }): Promise<TokenSet> {
  const { clientId, clientSecret } = clientOf(ctx, provider);
  return tokenRequest(ctx, provider, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.codeVerifier,
    client_id: clientId,
    client_secret: clientSecret,
  });
}

/** A token set as credential values: what the connectors read and the next refresh starts from. */
export function tokenValues(provider: OAuthProvider, tokens: TokenSet): Record<string, string> {
  const values: Record<string, string> = { [providers[provider].accessField]: tokens.accessToken };
  if (tokens.refreshToken) values.refreshToken = tokens.refreshToken;
  if (tokens.expiresAt !== undefined) values.expiresAt = new Date(tokens.expiresAt).toISOString();
  if (tokens.refreshTokenExpiresAt !== undefined) values.refreshTokenExpiresAt = new Date(tokens.refreshTokenExpiresAt).toISOString();
  if (tokens.scopes.length > 0) values.scopes = tokens.scopes.join(' ');
  return values;
}

interface CachedToken {
  value: string;
  expiresAt: number;
}

/**
 * Access tokens by SHA-256 of the token URL, client id and refresh token: never the secrets themselves in memory
 * keys. Module-level so every call on the same account reuses one token; a refresh under way is shared too, so
 * parallel requests make one token request (GitHub rotates its refresh tokens: a second refresh would fail).
 */
const cache = new Map<string, CachedToken>();
const refreshing = new Map<string, Promise<TokenSet>>();

/** Forgets every access token (tests start each case from "never refreshed"). */
export function forgetAccessTokens(): void {
  cache.clear();
  refreshing.clear();
}

const keyOf = (ctx: ConnectorContext, provider: OAuthProvider, clientId: string, refreshToken: string) =>
  createHash('sha256').update(`${oauthEndpoints(provider, ctx.baseUrl).token}\n${clientId}\n${refreshToken}`).digest('hex');

async function refresh(ctx: ConnectorContext, provider: OAuthProvider, key: string, client: OAuthClient, refreshToken: string): Promise<TokenSet> {
  let tokens: TokenSet;
  try {
    tokens = await tokenRequest(ctx, provider, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId, client_secret: client.clientSecret });
  } catch (error) {
    if (error instanceof OAuthError && error.grantRefused) await ctx.tokens?.refused(error.message, refreshToken);
    throw error;
  }
  const now = ctx.clock.now();
  for (const [other, cached] of cache) if (cached.expiresAt <= now) cache.delete(other);
  // A token without an expiry (GitHub's, after a refresh it never is) is kept an hour in memory.
  cache.set(key, { value: tokens.accessToken, expiresAt: tokens.expiresAt ?? now + 3_600_000 });
  // Stored at once: GitHub's old refresh token stops working the moment the new one is issued.
  await ctx.tokens?.save(tokenValues(provider, { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken }));
  return tokens;
}

/**
 * A usable access token, and whether it was already held (only then is a 401 worth one more try with a new one).
 * One path for every provider: a stored token until a minute before its expiry, then one refresh (shared by
 * parallel callers) whose tokens go back into the credential; a token without an expiry and without a refresh
 * token (a GitHub OAuth app's, a personal access token) is used as it is.
 */
export async function accessToken(ctx: ConnectorContext, provider: OAuthProvider): Promise<{ value: string; cached: boolean }> {
  const { label, accessField } = providers[provider];
  const stored = ctx.credentials[accessField] || undefined;
  const storedExpiry = ctx.credentials.expiresAt ? Date.parse(ctx.credentials.expiresAt) : undefined;
  const now = ctx.clock.now();
  const fresh = (expiresAt: number | undefined) => expiresAt === undefined || expiresAt - now > REFRESH_EARLY_MS;
  const refreshToken = ctx.credentials.refreshToken || undefined;
  if (!refreshToken) {
    if (stored && fresh(storedExpiry)) return { value: stored, cached: true };
    throw new ConnectorError(
      'auth',
      stored ? `${label}'s access token expired and there is no refresh token: connect ${label} again in settings` : `${label} is not connected yet: use "Connect with ${label}" in settings`,
    );
  }
  const client = clientOf(ctx, provider);
  const key = keyOf(ctx, provider, client.clientId, refreshToken);
  const cached = cache.get(key);
  if (cached && fresh(cached.expiresAt)) return { value: cached.value, cached: true };
  if (stored && storedExpiry !== undefined && fresh(storedExpiry)) return { value: stored, cached: true };
  let pending = refreshing.get(key);
  if (!pending) {
    pending = refresh(ctx, provider, key, client, refreshToken).finally(() => refreshing.delete(key));
    refreshing.set(key, pending);
  }
  return { value: (await pending).accessToken, cached: false };
}

/** The API said 401: the access token is no good (expired early, revoked); one new token is worth a try. */
export class RejectedTokenError extends ConnectorError {
  constructor(service: string, reason: string | undefined) {
    super('auth', `${service} rejected the credentials (401)${reason ? `: ${reason}` : ''}`);
  }
}

/**
 * Runs `call` with a usable access token. When the API rejects (401, a RejectedTokenError) a token that was already
 * held and a refresh token is stored, the token is dropped and `call` runs once more with a new one; a refresh the
 * provider refuses then marks the connection for a reconnect at once, instead of at the token's expiry.
 */
export async function withAccessToken<T>(ctx: ConnectorContext, provider: OAuthProvider, call: (token: string) => Promise<T>): Promise<T> {
  const first = await accessToken(ctx, provider);
  try {
    return await call(first.value);
  } catch (error) {
    if (!(error instanceof RejectedTokenError) || !first.cached || !ctx.credentials.refreshToken) throw error;
    return call((await accessToken(dropAccessToken(ctx, provider, first.value), provider)).value);
  }
}

/** The API refused this token: forget it, in memory and as the one stored (unless a newer one already replaced it). */
function dropAccessToken(ctx: ConnectorContext, provider: OAuthProvider, value: string): ConnectorContext {
  for (const [key, cached] of cache) if (cached.value === value) cache.delete(key);
  const { accessField } = providers[provider];
  if (ctx.credentials[accessField] !== value) return ctx;
  const { [accessField]: _dropped, expiresAt: _expiry, ...rest } = ctx.credentials;
  return { ...ctx, credentials: rest };
}

/**
 * Refreshes once, now (nothing cached or stored is used), and answers the scopes granted: proves a refresh token
 * found on this machine works, and says whether it reaches Search Console.
 */
export async function grantedScopes(ctx: ConnectorContext, provider: OAuthProvider = 'google'): Promise<string[]> {
  const refreshToken = ctx.credentials.refreshToken;
  if (!refreshToken) throw new ConnectorError('auth', `${providers[provider].label} has no refresh token to prove`);
  const client = clientOf(ctx, provider);
  return (await refresh(ctx, provider, keyOf(ctx, provider, client.clientId, refreshToken), client, refreshToken)).scopes;
}

/** The email an OpenID id token names: read, not verified, as OpenID Connect §3.1.3.7 allows for a token straight from the token endpoint over TLS. */
export function idTokenEmail(idToken: string | undefined): string | undefined {
  const payload = idToken?.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const email = z.object({ email: z.string().min(1) }).safeParse(claims);
    return email.success ? email.data.email : undefined;
  } catch {
    return undefined;
  }
}
