import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  credentialKeySchema,
  oauthProviderSchema,
  serviceOf,
  type OAuthConnection,
  type OAuthConnections,
  type OAuthFinish,
  type OAuthOutcome,
  type OAuthStart,
  type OAuthStarted,
} from '@dash/contracts';
import {
  authorizationUrl,
  ConnectorError,
  defaultScopes,
  exchangeCode,
  githubLogin,
  idTokenEmail,
  OAuthError,
  oauthLabel,
  reachesSearchConsole,
  tokenValues,
  type ConnectorContext,
  type OAuthProvider,
  type TokenSet,
} from '@dash/connectors';
import type { Store } from '@dash/db';
import { z } from 'zod';
import type { AccessOptions, RequestInfo } from '../auth/access.ts';
import { assertKeyMatches, type CredentialVault } from '../credentials/vault.ts';
import type { Connections } from '../data/connections.ts';
import { fail } from '../errors.ts';
import type { Logger } from '../logger.ts';

/** A flow must come back within ten minutes of "Connect". */
export const STATE_LIFETIME_MS = 10 * 60_000;

/** The cookie that binds a flow to the browser that started it: httpOnly, SameSite=Lax, only under /api/auth/. */
export const OAUTH_COOKIE = { name: 'dash_oauth', path: '/api/auth/' } as const;

/** What the cookie carries, sealed with the credentials key (AES-GCM): nothing in it is readable or forgeable outside. */
const flowSchema = z.object({
  provider: oauthProviderSchema,
  credKey: z.string(),
  state: z.string(),
  codeVerifier: z.string(),
  redirectUri: z.string(),
  /** Who started it: the callback must be the same session (or the same open local dashboard). */
  who: z.string(),
  expiresAt: z.string(),
  scopes: z.string(),
});
type Flow = z.infer<typeof flowSchema>;

const SEAL_NAME = 'oauth-flow';

/** What a credential keeps of itself when a connection is made: the OAuth client and where to reach the provider. */
const CLIENT_FIELDS = ['clientId', 'clientSecret', 'baseUrl'];


const randomToken = (bytes: number) => randomBytes(bytes).toString('base64url');
const sha256 = (value: string) => createHash('sha256').update(value).digest();

/**
 * What a connection by OAuth uses: the credentials (stored clients, the saved tokens) and their connections to the
 * providers, the vault (the flow's cookie), a lease per state (used once), the public origin, who asks, the log.
 */
export interface OAuthSources {
  store: Pick<Store, 'leases' | 'credentials'>;
  vault: Pick<CredentialVault, 'seal' | 'open'>;
  credentialsKeyMatches: boolean;
  data: { connections: Pick<Connections, 'stored' | 'context' | 'save' | 'clock'> };
  access: { options: Pick<AccessOptions, 'origin'> };
  request?: RequestInfo | undefined;
  log: Logger;
}

/** The public address's callback for a provider: the redirect URI to register with it. */
export function redirectUriOf(ctx: OAuthSources, provider: OAuthProvider): string | undefined {
  const origin = ctx.access.options.origin;
  return origin === undefined ? undefined : `${origin.replace(/\/$/, '')}/api/auth/${provider}/callback`;
}

/** The requester as the flow binds it: a session's id, an API token's id, or the open local dashboard. */
function whoOf(ctx: OAuthSources): string {
  const identity = ctx.request?.identity;
  if (!identity || identity.scope !== 'write' || identity.via === 'backup') {
    throw fail('FORBIDDEN', 'Connecting an account changes the stored credentials: sign in (or use a write token).');
  }
  return identity.via === 'session' ? `session:${identity.sessionId}` : identity.via === 'token' ? `token:${identity.tokenId}` : 'open';
}

/** The credential under `credKey` when it holds an OAuth client (its id and secret). */
async function storedClient(ctx: OAuthSources, credKey: string): Promise<Record<string, string> | undefined> {
  const values = await ctx.data.connections.stored(credKey);
  return values?.clientId && values.clientSecret ? values : undefined;
}

/** The scopes asked for: the `scopes` parameter (space-separated) or the provider's defaults. */
function scopesOf(provider: OAuthProvider, requested: string | undefined): string[] {
  const scopes = (requested ?? '').split(' ').filter(Boolean);
  return scopes.length > 0 ? scopes : [...defaultScopes(provider)];
}

/**
 * GET /api/auth/{provider}/redirect: a new flow (state of 256 random bits, PKCE S256 verifier) sealed into the cookie
 * the route sets, and the provider's authorization URL to send the browser to.
 */
export async function startOAuth(ctx: OAuthSources, input: OAuthStart): Promise<OAuthStarted> {
  const { provider, credKey } = input;
  const label = oauthLabel(provider);
  if (!credentialKeySchema.safeParse(credKey).success || serviceOf(credKey) !== provider) {
    throw fail('BAD_REQUEST', `credKey "${credKey}" is not a ${label} credential: use "${provider}" or "${provider}:<label>"`);
  }
  const who = whoOf(ctx);
  assertKeyMatches(ctx);
  const client = await storedClient(ctx, credKey);
  if (!client) {
    throw fail('BAD_REQUEST', `Save ${label}'s OAuth client ID and client secret under "${credKey}" first (Settings → Connections → ${label}), then connect.`);
  }
  const redirectUri = redirectUriOf(ctx, provider);
  if (!redirectUri) throw fail('PRECONDITION_FAILED', 'The dashboard does not know its public address: set ORIGIN.');
  const state = randomToken(32);
  const codeVerifier = randomToken(32);
  const scopes = scopesOf(provider, input.scopes);
  const upstream = await ctx.data.connections.context(provider, credKey, { values: client });
  const location = authorizationUrl(provider, upstream.baseUrl, {
    clientId: client.clientId ?? '',
    redirectUri,
    scopes,
    state,
    codeChallenge: sha256(codeVerifier).toString('base64url'),
  });
  const now = ctx.data.connections.clock.now();
  const flow: Flow = { provider, credKey, state, codeVerifier, redirectUri, who, expiresAt: new Date(now + STATE_LIFETIME_MS).toISOString(), scopes: scopes.join(' ') };
  ctx.log.info(`oauth: ${label} connection started for "${credKey}"`);
  return { location, cookie: ctx.vault.seal(SEAL_NAME, flow), maxAgeSeconds: STATE_LIFETIME_MS / 1000 };
}

/** A provider's error code as a reason: short, lower-case, nothing else. */
const reasonCode = (code: string) => (/^[a-z_]{1,64}$/.test(code) ? code : 'provider_error');

function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

/** The flow the cookie holds, when it is this provider's, this state's, unexpired and this requester's. */
function flowOf(ctx: OAuthSources, input: OAuthFinish, now: number): Flow | undefined {
  if (!input.cookie || !input.query.state) return undefined;
  let flow: Flow;
  try {
    flow = flowSchema.parse(ctx.vault.open(SEAL_NAME, input.cookie));
  } catch {
    return undefined;
  }
  let who: string;
  try {
    who = whoOf(ctx);
  } catch {
    return undefined;
  }
  const valid = flow.provider === input.provider && sameSecret(flow.state, input.query.state) && Date.parse(flow.expiresAt) > now && flow.who === who;
  return valid ? flow : undefined;
}

/** Who the tokens belong to, when the provider says: Google's id token email, GitHub's login. */
async function accountOf(provider: OAuthProvider, upstream: ConnectorContext, tokens: TokenSet): Promise<string | undefined> {
  if (provider === 'google') return idTokenEmail(tokens.idToken);
  try {
    // The new token alone: a previous connection's refresh token or expiry must not stand in for it.
    return await githubLogin({ ...upstream, credentials: { token: tokens.accessToken } });
  } catch {
    return undefined;
  }
}

/**
 * GET /api/auth/{provider}/callback: checks the flow (cookie, state, expiry, requester), uses it up (a lease named
 * after the state, so a replay finds it taken), trades the code with the PKCE verifier, and stores the tokens in the
 * credential under the flow's credKey. Nothing is stored on any failure; no token reaches a log or the answer.
 */
export async function finishOAuth(ctx: OAuthSources, input: OAuthFinish): Promise<OAuthOutcome> {
  const { provider, query } = input;
  const label = oauthLabel(provider);
  const refuse = (reason: string, detail: string): OAuthOutcome => {
    ctx.log.warn(`oauth: ${label} callback refused (${reason}): ${detail}`);
    return { outcome: 'error', reason };
  };
  const now = ctx.data.connections.clock.now();
  const flow = flowOf(ctx, input, now);
  if (!flow) return refuse('state', 'no flow of this browser matches its state (expired, used, forged, or another browser)');
  const lifeLeft = Date.parse(flow.expiresAt) - now;
  const used = await ctx.store.leases.acquire(`oauth-state:${sha256(flow.state).toString('hex')}`, randomToken(12), lifeLeft + 1000, new Date(now).toISOString());
  if (!used) return refuse('state', 'this state was used already');
  if (query.error) return refuse(reasonCode(query.error), `${label} answered ${reasonCode(query.error)}`);
  if (!query.code) return refuse('missing_code', `${label} sent neither a code nor an error`);

  assertKeyMatches(ctx);
  const client = await storedClient(ctx, flow.credKey);
  if (!client) return refuse('client', `"${flow.credKey}" no longer holds an OAuth client`);
  const upstream = await ctx.data.connections.context(provider, flow.credKey, { values: client });
  let tokens: TokenSet;
  try {
    tokens = await exchangeCode(upstream, provider, { code: query.code, redirectUri: flow.redirectUri, codeVerifier: flow.codeVerifier });
  } catch (error) {
    if (error instanceof OAuthError) return refuse(reasonCode(error.code), error.message);
    if (error instanceof ConnectorError) return refuse('token_endpoint', error.message);
    throw error;
  }
  if (provider === 'google' && reachesSearchConsole(flow.scopes.split(' ')) && !reachesSearchConsole(tokens.scopes)) {
    return refuse('insufficient_scope', `${label} did not grant Search Console access (granted: ${tokens.scopes.join(' ') || 'nothing named'})`);
  }
  const account = await accountOf(provider, upstream, tokens);
  // The client stays; everything a previous connection wrote (tokens, account, a "needs reconnect") goes.
  const kept = Object.fromEntries(Object.entries(client).filter(([name]) => CLIENT_FIELDS.includes(name)));
  // Google sends a refresh token only with consent asked again; without one, the stored one still works.
  const refreshToken = tokens.refreshToken ?? (provider === 'google' ? client.refreshToken : undefined);
  const values = {
    ...kept,
    ...tokenValues(provider, { ...tokens, refreshToken }),
    ...(account ? { account } : {}),
    connectedAt: new Date(now).toISOString(),
  };
  await ctx.data.connections.save(flow.credKey, values);
  ctx.log.info(`oauth: ${label} connected for "${flow.credKey}"${account ? ` as ${account}` : ''}`);
  return { outcome: 'success', account: account ?? null };
}

/** Every stored Google and GitHub credential's state, and the redirect URIs to register: Settings → Connections. */
export async function oauthConnections(ctx: OAuthSources): Promise<OAuthConnections> {
  const connections: OAuthConnection[] = [];
  for (const key of await ctx.store.credentials.keys()) {
    const provider = serviceOf(key);
    if (provider !== 'google' && provider !== 'github') continue;
    const values = await ctx.data.connections.stored(key);
    if (!values) continue;
    const signedIn = provider === 'google' ? Boolean(values.refreshToken) : Boolean(values.token);
    connections.push({
      key,
      provider,
      clientSaved: Boolean(values.clientId && values.clientSecret),
      via: !signedIn ? 'none' : values.connectedAt ? 'oauth' : provider === 'google' ? 'refresh_token' : 'token',
      account: values.account ?? null,
      scopes: (values.scopes ?? '').split(' ').filter(Boolean),
      expiresAt: values.expiresAt ?? null,
      refreshable: Boolean(values.refreshToken),
      needsReconnect: values.reconnect ?? null,
      connectedAt: values.connectedAt ?? null,
    });
  }
  return { connections, redirectUris: { google: redirectUriOf(ctx, 'google') ?? null, github: redirectUriOf(ctx, 'github') ?? null } };
}
