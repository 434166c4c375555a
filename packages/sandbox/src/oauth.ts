import { createHash, randomBytes } from 'node:crypto';
import type { SandboxReply, SandboxRequest } from './request.ts';

/** An OAuth client the fake provider knows: a Google web client, a GitHub OAuth app, or a GitHub App (expiring tokens). */
export interface FakeOAuthClient {
  clientId: string;
  clientSecret: string;
  /** Access tokens that expire, with refresh tokens that rotate on use (GitHub Apps); else Google's or an OAuth app's rules. */
  expiring?: { accessMs: number; refreshMs: number; rotate: boolean };
}

export interface FakeOAuthOptions {
  /** What the consent page calls the provider. */
  label: string;
  clients: FakeOAuthClient[];
  /** The provider's error answer at its token endpoint: Google's 400/401 JSON, GitHub's 200 with `error`. */
  error(status: number, code: string, description: string): SandboxReply;
  accessToken(client: FakeOAuthClient): string;
  refreshToken(client: FakeOAuthClient): string;
  /** Access tokens of a client without `expiring`: Google's hour, or never for a GitHub OAuth app. */
  accessMs?: number;
  /** Whether a code grant hands out a refresh token: Google's only with `access_type=offline`. */
  refreshOnCode(client: FakeOAuthClient, authorize: URLSearchParams): boolean;
  /** What the token answer adds for a grant (Google's id token when `openid` was asked for). */
  extras?(client: FakeOAuthClient, scope: string, now: number): Record<string, unknown>;
  /** The consent page's account line. */
  account: string;
  /** The provider's error codes for a bad code and a dead refresh token (Google: invalid_grant for both), with its words for the latter. */
  refusals: { code: string; refresh: string; refreshDescription: string };
  /** Its words for an unknown client and for a wrong secret. */
  wrongClient: { unknown: string; secret: string };
  /** Refresh tokens it knows from the start (the demo's, minted elsewhere), with the scope each was granted. */
  seeded?: { clientId: string; refreshToken: string; scope: string }[];
}

/** A code lives ten minutes and is good once, as both providers' are. */
const CODE_LIFETIME_MS = 600_000;

interface PendingCode {
  client: FakeOAuthClient;
  redirectUri: string;
  challenge: string;
  scope: string;
  expiresAt: number;
  used: boolean;
  /** Whether the grant gets a refresh token (decided by the authorization request). */
  offline: boolean;
}

interface Grant {
  client: FakeOAuthClient;
  scope: string;
  expiresAt: number;
  revoked: boolean;
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
const page = (status: number, title: string, body: string): SandboxReply => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
  body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`,
});

/**
 * The authorization-code flow of a provider, as its real servers run it: a consent page that sends the browser back
 * to the redirect URI with a code (Allow) or `error=access_denied` (Cancel), and a token endpoint that checks the
 * code (known, unexpired, unused, this client's), the client secret, the redirect URI and the PKCE verifier against
 * the S256 challenge, then issues access tokens and refresh tokens. The fake insists on PKCE, so a flow without it
 * fails here. `revoke()` is the user taking the access back in their account.
 */
export function fakeOAuth(options: FakeOAuthOptions) {
  const codes = new Map<string, PendingCode>();
  const access = new Map<string, Grant>();
  const refresh = new Map<string, Grant>();
  const clientOf = (id: string | null | undefined) => options.clients.find((client) => client.clientId === id);
  for (const seed of options.seeded ?? []) {
    const client = clientOf(seed.clientId);
    if (client) refresh.set(seed.refreshToken, { client, scope: seed.scope, expiresAt: Number.POSITIVE_INFINITY, revoked: false });
  }

  function authorizePage(request: SandboxRequest): SandboxReply {
    const q = request.query;
    const client = clientOf(q.get('client_id'));
    if (!client) return page(401, 'Error 401: invalid_client', `<h1>Error 401: invalid_client</h1><p>The OAuth client was not found.</p>`);
    const redirect = q.get('redirect_uri') ?? '';
    if (!/^https?:\/\//.test(redirect)) return page(400, 'Error 400: invalid_request', `<h1>Error 400: invalid_request</h1><p>Missing or invalid redirect_uri.</p>`);
    if (q.get('response_type') !== 'code') return page(400, 'Error 400: unsupported_response_type', `<h1>Error 400: unsupported_response_type</h1>`);
    const challenge = q.get('code_challenge') ?? '';
    if (q.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      return page(400, 'Error 400: invalid_request', `<h1>Error 400: invalid_request</h1><p>This server requires PKCE with code_challenge_method=S256.</p>`);
    }
    const scope = (q.get('scope') ?? '').trim();
    const offline = options.refreshOnCode(client, q);
    const back = (params: Record<string, string>) => {
      const url = new URL(redirect);
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return escapeHtml(url.href);
    };
    const state = q.get('state') ?? '';
    /** A code for these granted scopes, and the link that brings it back. */
    const grant = (granted: string) => {
      const code = randomBytes(24).toString('base64url');
      codes.set(code, { client, redirectUri: redirect, challenge, scope: granted, expiresAt: request.now + CODE_LIFETIME_MS, used: false, offline });
      return back({ code, ...(state ? { state } : {}), ...(granted ? { scope: granted } : {}) });
    };
    const asked = scope.split(/[\s,]+/).filter(Boolean);
    const deny = back({ error: 'access_denied', ...(state ? { state } : {}) });
    // Google's granular consent: the user may untick a scope; here, the first one asked for.
    const partial = asked.length > 1 ? ` <a href="${grant(asked.slice(1).join(' '))}">Allow without ${escapeHtml(asked[0] ?? '')}</a>` : '';
    return page(
      200,
      `Sign in – ${options.label} (sandbox)`,
      `<h1>Allow access to your ${escapeHtml(options.label)} account?</h1><p>Signed in as ${escapeHtml(options.account)}</p><ul>${asked.map((s) => `<li>${escapeHtml(s)}</li>`).join('')}</ul>` +
        `<p><a href="${grant(scope)}">Allow</a>${partial} <a href="${deny}">Cancel</a></p>`,
    );
  }

  function issue(client: FakeOAuthClient, scope: string, now: number, withRefresh: boolean) {
    const accessMs = client.expiring?.accessMs ?? options.accessMs;
    const accessToken = options.accessToken(client);
    access.set(accessToken, { client, scope, expiresAt: accessMs === undefined ? Number.POSITIVE_INFINITY : now + accessMs, revoked: false });
    const body: Record<string, unknown> = { access_token: accessToken, token_type: 'bearer', scope, ...options.extras?.(client, scope, now) };
    if (accessMs !== undefined) body.expires_in = Math.round(accessMs / 1000) - 1;
    if (withRefresh) {
      const refreshToken = options.refreshToken(client);
      const refreshMs = client.expiring?.refreshMs;
      refresh.set(refreshToken, { client, scope, expiresAt: refreshMs === undefined ? Number.POSITIVE_INFINITY : now + refreshMs, revoked: false });
      body.refresh_token = refreshToken;
      if (refreshMs !== undefined) body.refresh_token_expires_in = Math.round(refreshMs / 1000);
    }
    return { headers: { 'cache-control': 'no-store' }, body };
  }

  /** The token endpoint: codes and refresh tokens; another grant type is an error in the provider's words. */
  function token(request: SandboxRequest): SandboxReply {
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    if (form.grant_type !== 'authorization_code' && form.grant_type !== 'refresh_token') {
      return form.grant_type ? options.error(400, 'unsupported_grant_type', `Invalid grant_type: ${form.grant_type}`) : options.error(400, 'invalid_request', 'Missing required parameter: grant_type');
    }
    const client = clientOf(form.client_id);
    if (!client) return options.error(401, 'invalid_client', options.wrongClient.unknown);
    if (form.client_secret !== client.clientSecret) return options.error(401, 'invalid_client', options.wrongClient.secret);
    if (form.grant_type === 'authorization_code') {
      const pending = codes.get(form.code ?? '');
      if (!pending || pending.used || pending.expiresAt <= request.now || pending.client !== client) {
        return options.error(400, options.refusals.code, 'The code passed is incorrect or expired.');
      }
      pending.used = true;
      if (form.redirect_uri !== pending.redirectUri) return options.error(400, 'redirect_uri_mismatch', 'The redirect_uri MUST match the one of the authorization request.');
      const verifier = form.code_verifier ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== pending.challenge) return options.error(400, options.refusals.code, 'Invalid code verifier.');
      return issue(client, pending.scope, request.now, pending.offline);
    }
    if (!form.refresh_token) return options.error(400, 'invalid_request', 'Missing required parameter: refresh_token');
    const grant = refresh.get(form.refresh_token);
    if (!grant || grant.revoked || grant.expiresAt <= request.now || grant.client !== client) {
      return options.error(400, options.refusals.refresh, options.refusals.refreshDescription);
    }
    // GitHub's refresh tokens are good once: the answer carries the next one.
    const rotate = client.expiring?.rotate ?? false;
    if (rotate) grant.revoked = true;
    return issue(client, grant.scope, request.now, rotate);
  }

  return {
    authorizePage,
    token,
    /** Whether an access token this flow issued is live now (and, when `scope` is given, was granted it). */
    accepts: (value: string, now: number, scope?: (granted: string[]) => boolean) => {
      const grant = access.get(value);
      return grant !== undefined && !grant.revoked && grant.expiresAt > now && (scope?.(grant.scope.split(/[\s,]+/)) ?? true);
    },
    /** The user took the access back: every token issued so far stops working, refresh tokens answer invalid_grant. */
    revoke() {
      for (const grant of [...access.values(), ...refresh.values()]) grant.revoked = true;
    },
  };
}

export type FakeOAuth = ReturnType<typeof fakeOAuth>;
