import { error, json, type Handle, type HandleServerError, type RequestEvent, type ServerInit } from '@sveltejs/kit';
import { ThrottledError, type Identity } from '@dash/api';
import { getContext, serverEnv } from '$lib/server/app';
import { guard, isBackupTrigger, isSignedWebhook, proxiedRefusal, proxyHeaderOf } from '$lib/server/guard';
import { tokensMatch } from '@dash/webhooks';
import { sessionCookie } from '$lib/server/session';
import { clientAddressOf } from '$lib/server/client-address';

/** Opens and migrates the store before the first request, so a bad DATABASE_URL fails at start. */
export const init: ServerInit = async () => {
  await getContext();
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Paths anyone may open: signing in, first-run setup, and the liveness check. */
const PUBLIC_PATHS = new Set(['/login', '/setup', '/healthz']);

const isApi = (path: string) => path === '/api' || path.startsWith('/api/');

const errorJson = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  json({ error: { code, message } }, { status, headers: { 'cache-control': 'no-store', ...headers } });

function unauthorized(event: RequestEvent, message: string): Response {
  if (isApi(event.url.pathname)) return errorJson(401, 'UNAUTHORIZED', message, { 'www-authenticate': 'Bearer realm="dashboard"' });
  const next = event.url.pathname + event.url.search;
  return seeOther(next === '/' ? '/login' : `/login?next=${encodeURIComponent(next)}`);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
const bearerOf = (authorization: string | null) => (authorization === null ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1]);

const seeOther = (location: string) => new Response(null, { status: 303, headers: { location } });

/** The socket's address, or with TRUST_PROXY the right-most X-Forwarded-For hop (client-address.ts). */
function clientAddress(event: RequestEvent): string | undefined {
  let socket: string | undefined;
  try {
    socket = event.getClientAddress();
  } catch {
    socket = undefined;
  }
  return clientAddressOf(socket, event.request.headers.get('x-forwarded-for'), serverEnv().TRUST_PROXY);
}

/**
 * POST /api/backup is a cron's: it signs in with BACKUP_SECRET (any of a `new,old` list, compared in constant
 * time) and nothing else; without that variable the route is off, never open. GET /api/backup (its progress)
 * and the settings page's button go the usual way.
 */
async function backupAuth(event: RequestEvent, authorization: string | null, resolve: Parameters<Handle>[0]['resolve']): Promise<Response> {
  const secrets = serverEnv().BACKUP_SECRET;
  if (secrets.length === 0) {
    return errorJson(503, 'SERVICE_UNAVAILABLE', 'Backups over HTTP are off: set BACKUP_SECRET and send it as Authorization: Bearer <BACKUP_SECRET>.');
  }
  const bearer = bearerOf(authorization);
  if (bearer === undefined || !tokensMatch(bearer, secrets)) {
    const error = bearer === undefined ? '' : ', error="invalid_token"';
    return errorJson(401, 'UNAUTHORIZED', 'POST /api/backup needs Authorization: Bearer <BACKUP_SECRET>.', { 'www-authenticate': `Bearer realm="backup"${error}` });
  }
  event.locals.request = { ...event.locals.request, identity: { via: 'backup', scope: 'write' } };
  return resolve(event);
}

/**
 * The form action a POST to a page names, as SvelteKit reads it: the first query key starting with `/` (`?/password`),
 * else undefined (the page's `default` action).
 */
function actionNameOf(url: URL): string | undefined {
  for (const key of url.searchParams.keys()) if (key.startsWith('/')) return key.slice(1);
  return undefined;
}

/**
 * Step 3 of every request (the Host and cross-site guards and the headers run before it, in
 * server.ts): who is asking. A bearer token, else the session cookie, else nobody; nobody is let in
 * only on a local dashboard without a password, and on the public paths.
 */
const authenticate: Handle = async ({ event, resolve }) => {
  // server.ts's guards again: `vite dev` has no server.ts in front, and any other server around the handler gets them too.
  const guarded = guard(
    { method: event.request.method, url: event.url.pathname + event.url.search, header: (name) => event.request.headers.get(name) ?? undefined },
    { mode: serverEnv().mode, origin: serverEnv().ORIGIN, allowedHosts: serverEnv().DASHBOARD_ALLOWED_HOSTS },
  );
  if (guarded) return new Response(guarded.body, guarded);

  const path = event.url.pathname;
  // `?/default` names no action: SvelteKit reserves the name and throws a plain Error (a 500 and an unhandled error in
  // the log) where any other unknown name is its 404. Answered as that 404 (HTML or JSON as asked), on every page.
  if (event.request.method === 'POST' && !isApi(path) && actionNameOf(event.url) === 'default') error(404, "No action with name 'default' found");
  const { access } = await getContext();
  const client = { ip: clientAddress(event), userAgent: event.request.headers.get('user-agent') ?? undefined };
  event.locals.request = { ...client, identity: undefined };
  if (path === '/healthz') return resolve(event);
  // A local dashboard without a password trusts whoever reaches the socket; a proxy or tunnel in front would open it
  // to anyone. A provider's webhook through a tunnel still reaches its route: it proves itself with its signature.
  const via = proxyHeaderOf((name) => event.request.headers.get(name) ?? undefined);
  if (via !== undefined && !isSignedWebhook(event.request.method, path) && !(await access.required())) {
    const verdict = proxiedRefusal(path, via);
    return new Response(verdict.body, { status: verdict.status, headers: { ...verdict.headers, 'cache-control': 'no-store' } });
  }

  if (await access.setupRequired()) {
    if (path === '/setup') return resolve(event);
    if (isApi(path)) return errorJson(503, 'SETUP_REQUIRED', 'No password is set yet: open the setup link the server printed in its log.');
    return seeOther('/setup');
  }

  const authorization = event.request.headers.get('authorization');
  if (isBackupTrigger(event.request.method, path)) return backupAuth(event, authorization, resolve);
  // The providers' webhooks sign in with their own signature or token, which the route checks: Better Stack's
  // may come as `Authorization: Bearer <WEBHOOK_SECRET_UPTIME_MONITOR>`, which is no API token and no failed sign-in.
  if (isSignedWebhook(event.request.method, path)) return resolve(event);

  let identity: Identity | undefined;
  const cookie = sessionCookie(serverEnv().ORIGIN ?? event.url.origin);
  if (authorization !== null) {
    // A request that names a token is judged by it alone, never by a cookie it also carries.
    const bearer = bearerOf(authorization);
    let token;
    try {
      token = bearer === undefined ? undefined : await access.token(bearer, client.ip);
    } catch (error) {
      if (!(error instanceof ThrottledError)) throw error;
      return errorJson(429, 'TOO_MANY_REQUESTS', error.message, { 'retry-after': String(error.retryAfterSeconds) });
    }
    if (!token) return errorJson(401, 'UNAUTHORIZED', 'The API token is not valid: revoked, expired or mistyped.', { 'www-authenticate': 'Bearer realm="dashboard", error="invalid_token"' });
    identity = { via: 'token', scope: token.scope, tokenId: token.id };
  } else {
    const value = event.cookies.get(cookie.name);
    const session = value === undefined ? undefined : await access.session(value);
    if (session) {
      identity = { via: 'session', scope: 'write', sessionId: session.sessionId };
      if (session.renew) event.cookies.set(cookie.name, session.renew.token, cookie.options(session.renew.maxAgeSeconds));
    } else if (value !== undefined) {
      event.cookies.delete(cookie.name, cookie.options(0));
    }
  }
  if (!identity && !(await access.required())) identity = { via: 'open', scope: 'write' };
  event.locals.request = { ...client, identity };

  if (!identity && !PUBLIC_PATHS.has(path)) return unauthorized(event, 'Sign in, or send an API token as Authorization: Bearer <token>.');
  if (identity?.scope === 'read' && !SAFE_METHODS.has(event.request.method)) {
    return errorJson(403, 'FORBIDDEN', 'This API token is read-only; create a write token to change anything.');
  }
  return resolve(event);
};

export const handle = authenticate;

export const handleError: HandleServerError = ({ error, event, status, message }) => {
  // A request whose connection went before its body was in (the client left, or server.ts cut it short and logged
  // why) fails where the body is read: nothing is wrong with the server, and no one is left to answer.
  if (event.request.signal.aborted) return { message };
  if (status >= 500) console.error('[dashboard] unhandled error:', error instanceof Error ? error.message : error);
  return { message: status >= 500 ? 'Something went wrong on the server; its log has the details.' : message };
};
