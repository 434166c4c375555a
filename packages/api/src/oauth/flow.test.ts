import { createHash } from 'node:crypto';
import { testClock } from '@dash/connectors/testing';
import { sandboxGitHubOAuth, sandboxGoogle, sandboxGoogleAccount, startSandbox, type Sandbox } from '@dash/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Identity } from '../auth/access.ts';
import { createCaller } from '../root.ts';
import { createTestApi, restClient } from '../testing.ts';
import { STATE_LIFETIME_MS } from './flow.ts';

type Api = Awaited<ReturnType<typeof createTestApi>>;
const ORIGIN = 'http://127.0.0.1:3999';

let sandbox: Sandbox;
const apis: Api[] = [];
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());
afterEach(async () => {
  for (const api of apis.splice(0)) await api.dispose();
});

const session = (sessionId = 'session-1'): Identity => ({ via: 'session', scope: 'write', sessionId });

/** A local dashboard at ORIGIN on a moveable clock, with projects reading Search Console and GitHub. */
async function dashboard() {
  const clock = testClock();
  const api = await createTestApi({ clock, access: { mode: 'local', origin: ORIGIN } });
  apis.push(api);
  await api.caller.projects.create({ slug: 'formfox', name: 'Formfox', integrations: { seo: { siteUrl: 'sc-domain:formfox.io' }, code_host: { repos: ['formfox/web'] } } });
  const as = (identity: Identity = session()) => createCaller({ ...api.ctx, request: { ip: '127.0.0.1', userAgent: 'test', identity } });
  const stored = async (key: string) => {
    const sealed = await api.store.credentials.getSealed(key);
    return sealed === undefined ? undefined : api.ctx.vault.open(key, sealed);
  };
  const save = (key: string, values: Record<string, string>) => api.store.credentials.putSealed(key, api.ctx.vault.seal(key, values));
  return { api, clock, as, stored, save, rest: restClient(() => as()) };
}
type Dashboard = Awaited<ReturnType<typeof dashboard>>;

const googleClient = () => ({ clientId: sandboxGoogle.clientId, clientSecret: sandboxGoogle.clientSecret, baseUrl: sandbox.services.google.baseUrl });
const githubClient = (app: keyof typeof sandboxGitHubOAuth = 'oauthApp') => ({ ...sandboxGitHubOAuth[app], baseUrl: sandbox.services.github.baseUrl });

/** The user on the provider's consent page: its Allow or Cancel link, as the browser would follow it. */
async function consent(location: string, choice = 'Allow'): Promise<Record<string, string>> {
  const page = await (await fetch(location)).text();
  const href = new RegExp(`<a href="([^"]+)">${choice.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}</a>`).exec(page)?.[1];
  if (!href) throw new Error(`No ${choice} link on the consent page: ${page}`);
  const back = new URL(href.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))));
  expect(back.origin + back.pathname).toMatch(/^http:\/\/127\.0\.0\.1:3999\/api\/auth\/(google|github)\/callback$/);
  return Object.fromEntries(back.searchParams);
}

/** "Connect": the flow's start, then the consent page's choice; the callback's query and the browser's cookie. */
async function connect(d: Dashboard, provider: 'google' | 'github', credKey: string = provider, choice = 'Allow') {
  const started = await d.as().oauth.start({ provider, credKey });
  return { started, query: await consent(started.location, choice), cookie: started.cookie };
}

describe('OAuth: GET /api/auth/{provider}/redirect', () => {
  it('sends Google the client, the registered redirect URI, offline access with consent, and a PKCE S256 challenge; the state is 256 random bits', async () => {
    const d = await dashboard();
    await d.save('google', googleClient());
    const first = await d.as().oauth.start({ provider: 'google', credKey: 'google' });
    const second = await d.as().oauth.start({ provider: 'google', credKey: 'google' });
    const url = new URL(first.location);
    expect(url.origin + url.pathname).toBe(`${sandbox.services.google.url}/o/oauth2/v2/auth`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: sandboxGoogle.clientId,
      redirect_uri: `${ORIGIN}/api/auth/google/callback`,
      scope: 'https://www.googleapis.com/auth/webmasters.readonly openid email',
      access_type: 'offline',
      prompt: 'consent',
      code_challenge_method: 'S256',
    });
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).not.toBe(new URL(second.location).searchParams.get('state'));
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The cookie is sealed: neither the state nor the verifier can be read from it.
    expect(first.cookie).not.toContain(url.searchParams.get('state'));
    expect(first.maxAgeSeconds).toBe(600);
    // `scopes` replaces the defaults; GitHub's authorize endpoint sits on github.com's path under the base URL.
    await d.save('github', githubClient());
    const github = new URL((await d.as().oauth.start({ provider: 'github', credKey: 'github', scopes: 'repo read:org' })).location);
    expect(github.origin + github.pathname).toBe(`${sandbox.services.github.url}/login/oauth/authorize`);
    expect(github.searchParams.get('scope')).toBe('repo read:org');
  });

  it('refuses clearly without a saved client, for a credKey of another service, and for a read-only token', async () => {
    const d = await dashboard();
    const missing = await d.rest('GET', '/api/credentials');
    expect(missing.json).toEqual({ connectedKeys: [] });
    await expect(d.as().oauth.start({ provider: 'google', credKey: 'google' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'Save Google\'s OAuth client ID and client secret under "google" first (Settings → Connections → Google), then connect.',
    });
    await d.save('github', { token: 'github_pat_x' });
    await expect(d.as().oauth.start({ provider: 'github', credKey: 'github' })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining("Save GitHub's OAuth client ID") });
    await expect(d.as().oauth.start({ provider: 'google', credKey: 'github' })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: 'credKey "github" is not a Google credential: use "google" or "google:<label>"' });
    await d.save('google', googleClient());
    await expect(d.as({ via: 'token', scope: 'read', tokenId: 't1' }).oauth.start({ provider: 'google', credKey: 'google' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('OAuth: GET /api/auth/{provider}/callback', () => {
  it('Google: stores the tokens with the client, names the account, and Search Console answers with the stored token', async () => {
    const d = await dashboard();
    await d.save('google', googleClient());
    const { query, cookie } = await connect(d, 'google');
    expect(await d.as().oauth.finish({ provider: 'google', query, cookie })).toEqual({ outcome: 'success', account: sandboxGoogleAccount });
    const values = await d.stored('google');
    expect(values).toMatchObject({ ...googleClient(), account: sandboxGoogleAccount, scopes: 'https://www.googleapis.com/auth/webmasters.readonly openid email' });
    expect(values?.refreshToken).toMatch(/^1\/\/0/);
    expect(values?.accessToken).toMatch(/^ya29\./);
    expect(Date.parse(values?.expiresAt ?? '')).toBeGreaterThan(d.clock.now() + 3_500_000);
    // Tokens appear in no log line.
    for (const line of d.api.log.lines) for (const secret of [values?.refreshToken, values?.accessToken, sandboxGoogle.clientSecret]) expect(line).not.toContain(secret);

    const seo = await d.rest('GET', '/api/seo?project=formfox');
    expect(seo.status).toBe(200);
    // The stored access token is used: no refresh at the token endpoint.
    expect(sandbox.requestsTo('google', '/token').map((r) => r.status)).toEqual([200]);

    const state = await d.as().oauth.connections();
    expect(state).toEqual({
      redirectUris: { google: `${ORIGIN}/api/auth/google/callback`, github: `${ORIGIN}/api/auth/github/callback` },
      connections: [
        {
          key: 'google',
          provider: 'google',
          clientSaved: true,
          via: 'oauth',
          account: sandboxGoogleAccount,
          scopes: ['https://www.googleapis.com/auth/webmasters.readonly', 'openid', 'email'],
          expiresAt: values?.expiresAt,
          refreshable: true,
          needsReconnect: null,
          connectedAt: new Date(d.clock.now()).toISOString(),
        },
      ],
    });
  });

  it('ends in state for a replayed callback, a forged state, no cookie, another session and an expired flow, with nothing stored', async () => {
    const d = await dashboard();
    await d.save('google', googleClient());
    const before = await d.stored('google');
    const finish = (input: { query: Record<string, string>; cookie?: string }, identity?: Identity) =>
      d.as(identity).oauth.finish({ provider: 'google', query: input.query, ...(input.cookie === undefined ? {} : { cookie: input.cookie }) });

    const forged = await connect(d, 'google');
    expect(await finish({ query: { ...forged.query, state: 'A'.repeat(43) }, cookie: forged.cookie })).toEqual({ outcome: 'error', reason: 'state' });
    expect(await finish({ query: forged.query })).toEqual({ outcome: 'error', reason: 'state' });
    expect(await finish(forged, session('someone-else'))).toEqual({ outcome: 'error', reason: 'state' });
    // A GitHub callback does not take a Google flow.
    expect(await d.as().oauth.finish({ provider: 'github', query: forged.query, cookie: forged.cookie })).toEqual({ outcome: 'error', reason: 'state' });

    const late = await connect(d, 'google');
    d.clock.advance(STATE_LIFETIME_MS + 1);
    expect(await finish(late)).toEqual({ outcome: 'error', reason: 'state' });
    expect(await d.stored('google')).toEqual(before);

    // The first callback of a flow is the only one: a replay, even with the cookie, finds it used.
    const once = await connect(d, 'google');
    expect(await finish(once)).toMatchObject({ outcome: 'success' });
    const connected = await d.stored('google');
    expect(await finish(once)).toEqual({ outcome: 'error', reason: 'state' });
    expect(await d.stored('google')).toEqual(connected);
    // No code was exchanged for the refused ones: one code grant in all.
    expect(sandbox.requestsTo('google', '/token')).toHaveLength(1);
  });

  it('says access_denied when the user declines, missing_code without a code, insufficient_scope without Search Console, and the token endpoint’s own reason', async () => {
    const d = await dashboard();
    await d.save('google', googleClient());
    const declined = await connect(d, 'google', 'google', 'Cancel');
    expect(declined.query.error).toBe('access_denied');
    expect(await d.as().oauth.finish({ provider: 'google', query: declined.query, cookie: declined.cookie })).toEqual({ outcome: 'error', reason: 'access_denied' });

    const codeless = await connect(d, 'google');
    const { code: _code, ...noCode } = codeless.query;
    expect(await d.as().oauth.finish({ provider: 'google', query: noCode, cookie: codeless.cookie })).toEqual({ outcome: 'error', reason: 'missing_code' });

    // Search Console unticked on Google's consent screen: a token that cannot read it is not stored.
    const unticked = await connect(d, 'google', 'google', 'Allow without https://www.googleapis.com/auth/webmasters.readonly');
    expect(unticked.query.scope).toBe('openid email');
    expect(await d.as().oauth.finish({ provider: 'google', query: unticked.query, cookie: unticked.cookie })).toEqual({ outcome: 'error', reason: 'insufficient_scope' });
    expect(await d.stored('google')).toEqual(googleClient());

    // The secret changed between Connect and the callback: Google refuses the client.
    const refused = await connect(d, 'google');
    await d.save('google', { ...googleClient(), clientSecret: 'GOCSPX-typo' });
    expect(await d.as().oauth.finish({ provider: 'google', query: refused.query, cookie: refused.cookie })).toEqual({ outcome: 'error', reason: 'invalid_client' });
    expect(await d.stored('google')).toEqual({ ...googleClient(), clientSecret: 'GOCSPX-typo' });
    expect(d.api.log.lines.join('\n')).not.toContain('GOCSPX-typo');
  });

  it('GitHub OAuth app: a token that does not expire, used as it is, and the login it belongs to', async () => {
    const d = await dashboard();
    await d.save('github', githubClient());
    const { query, cookie } = await connect(d, 'github');
    expect(await d.as().oauth.finish({ provider: 'github', query, cookie })).toEqual({ outcome: 'success', account: 'demo-founder' });
    const values = await d.stored('github');
    expect(values?.token).toMatch(/^gho_/);
    expect(values).not.toHaveProperty('refreshToken');
    expect(values).not.toHaveProperty('expiresAt');
    expect(values).toMatchObject({ clientId: sandboxGitHubOAuth.oauthApp.clientId, scopes: 'repo', account: 'demo-founder' });
    d.clock.advance(400 * 24 * 3_600_000);
    expect((await d.rest('GET', '/api/shipping?project=formfox&refresh=1')).status).toBe(200);
    expect(sandbox.requestsTo('github', '/login/oauth/access_token')).toHaveLength(1);
  });

  it('GitHub App: an expiring user token is refreshed when due, and the rotated refresh token is stored at once', async () => {
    const d = await dashboard();
    await d.save('github', githubClient('githubApp'));
    const { query, cookie } = await connect(d, 'github');
    expect(await d.as().oauth.finish({ provider: 'github', query, cookie })).toMatchObject({ outcome: 'success' });
    const first = await d.stored('github');
    expect(first?.token).toMatch(/^ghu_/);
    expect(first?.refreshToken).toMatch(/^ghr_/);
    expect(Date.parse(first?.expiresAt ?? '') - d.clock.now()).toBeGreaterThan(7 * 3_600_000);
    expect(first?.refreshTokenExpiresAt).toBeDefined();

    expect((await d.rest('GET', '/api/shipping?project=formfox')).status).toBe(200);
    expect(sandbox.requestsTo('github', '/login/oauth/access_token')).toHaveLength(1);
    d.clock.advance(8 * 3_600_000);
    expect((await d.rest('GET', '/api/shipping?project=formfox&refresh=1')).status).toBe(200);
    const second = await d.stored('github');
    expect(sandbox.requestsTo('github', '/login/oauth/access_token')).toHaveLength(2);
    expect(second?.refreshToken).toMatch(/^ghr_/);
    expect(second?.refreshToken).not.toBe(first?.refreshToken);
    expect(second?.token).not.toBe(first?.token);
    // The new pair serves the next calls (the old refresh token is dead at GitHub).
    d.clock.advance(8 * 3_600_000);
    expect((await d.rest('GET', '/api/shipping?project=formfox&refresh=1')).status).toBe(200);
    expect((await d.as().oauth.connections()).connections[0]).toMatchObject({ key: 'github', via: 'oauth', refreshable: true, needsReconnect: null, account: 'demo-founder' });

    // Taken back on GitHub: the next call's 401 tries one refresh, which GitHub refuses, and settings says so now.
    sandbox.revokeOAuth('github');
    const refused = await d.rest('GET', '/api/shipping?project=formfox&refresh=1');
    expect(refused.headers.get('x-cache')).toBe('STALE');
    expect((await d.as().oauth.connections()).connections[0]?.needsReconnect).toBe(
      "GitHub revoked the dashboard's access (bad_refresh_token: The refresh token passed is incorrect or expired.): reconnect GitHub in settings",
    );
  });

  it('marks the connection "needs reconnect" when the provider refuses the refresh token (invalid_grant), and a new connection clears it', async () => {
    const d = await dashboard();
    await d.save('google', googleClient());
    const { query, cookie } = await connect(d, 'google');
    await d.as().oauth.finish({ provider: 'google', query, cookie });
    sandbox.revokeOAuth('google');
    d.clock.advance(3_600_000);
    const seo = await d.rest('GET', '/api/seo?project=formfox&refresh=1');
    expect(seo.status).toBe(502);
    expect(JSON.stringify(seo.json)).toContain('reconnect Google in settings');
    const [connection] = (await d.as().oauth.connections()).connections;
    expect(connection?.needsReconnect).toBe("Google revoked the dashboard's access (invalid_grant: Token has been expired or revoked.): reconnect Google in settings");

    const again = await connect(d, 'google');
    expect(await d.as().oauth.finish({ provider: 'google', query: again.query, cookie: again.cookie })).toMatchObject({ outcome: 'success' });
    expect((await d.as().oauth.connections()).connections[0]?.needsReconnect).toBeNull();
    expect((await d.rest('GET', '/api/seo?project=formfox&refresh=1')).status).toBe(200);
  });
});

describe('OAuth: the fake providers check what the real ones do', () => {
  it('refuses a code with a wrong PKCE verifier or redirect URI, and a code used twice', async () => {
    const d = await dashboard();
    await d.save('google', googleClient());
    const token = (form: Record<string, string>) =>
      fetch(`${sandbox.services.google.url}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
    const base = { grant_type: 'authorization_code', client_id: sandboxGoogle.clientId, client_secret: sandboxGoogle.clientSecret, redirect_uri: `${ORIGIN}/api/auth/google/callback` };
    const { query } = await connect(d, 'google');
    expect(await token({ ...base, code: query.code ?? '', code_verifier: createHash('sha256').update('wrong').digest('base64url') })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const { query: second } = await connect(d, 'google');
    expect(await token({ ...base, code: second.code ?? '', redirect_uri: 'http://evil.example/cb', code_verifier: 'x' })).toMatchObject({ status: 400, body: { error: 'redirect_uri_mismatch' } });
    expect(await token({ ...base, code: second.code ?? '', code_verifier: 'x' })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});
