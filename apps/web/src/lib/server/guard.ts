import { isLoopbackHost, MAX_DUMP_BYTES, MAX_IMPORT_BYTES } from '@dash/contracts';
import { isJsonType, RECEIVE_LIMITS } from '@dash/webhooks';

/**
 * The guards every request passes before anything else runs, pages, API and static files alike
 * (server.ts in production; hooks.server.ts under `vite dev`). Pure: headers in, verdict out.
 */
export interface GuardConfig {
  mode: 'local' | 'remote';
  /** The canonical origin (ORIGIN, or the loopback address in local mode); absent under `vite dev`. */
  origin: string | undefined;
  /** DASHBOARD_ALLOWED_HOSTS, lowercased; `.example.com` admits example.com and its subdomains. */
  allowedHosts: readonly string[];
}

export interface GuardedRequest {
  method: string;
  /** Path and query, as in the request line. */
  url: string;
  /** Request headers, names lowercased. */
  header(name: string): string | undefined;
}

export type Verdict = { status: number; headers: Record<string, string>; body: string } | undefined;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const isApi = (path: string) => path === '/api' || path.startsWith('/api/');

/** The providers' webhooks: each delivery proves itself with a signature or token, and no provider sends an Origin. */
export const isSignedWebhook = (method: string, path: string) => method === 'POST' && /^\/api\/webhooks\/[^/]+$/.test(path);

/** POST /api/backup: authenticated by BACKUP_SECRET as its bearer and by nothing a browser sends on its own. */
export const isBackupTrigger = (method: string, path: string) => method === 'POST' && path === '/api/backup';

function json(status: number, code: string, message: string): NonNullable<Verdict> {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify({ error: { code, message } }) };
}

/** The Host header as a URL host (`name:port`, IPv6 in brackets), lowercased, without a trailing dot; undefined if it is not one. */
function parseHost(value: string | undefined): { host: string; hostname: string } | undefined {
  if (!value || /[\s/\\?#@]/.test(value)) return undefined;
  try {
    const url = new URL(`http://${value}`);
    const hostname = url.hostname.replace(/\.$/, '');
    return { hostname, host: url.port ? `${hostname}:${url.port}` : hostname };
  } catch {
    return undefined;
  }
}

/** ORIGIN parsed once per configuration, not on every request. */
const parsedOrigins = new WeakMap<GuardConfig, URL | undefined>();
function canonicalOf(config: GuardConfig): URL | undefined {
  if (!parsedOrigins.has(config)) parsedOrigins.set(config, config.origin ? new URL(config.origin) : undefined);
  return parsedOrigins.get(config);
}

/** Whether a Host name may be served: ORIGIN's, one of DASHBOARD_ALLOWED_HOSTS, or (local mode) a loopback name. */
export function hostAllowed(hostname: string, config: GuardConfig): boolean {
  if (canonicalOf(config)?.hostname === hostname) return true;
  if (config.mode === 'local' && isLoopbackHost(hostname)) return true;
  return config.allowedHosts.some((allowed) =>
    allowed.startsWith('.') ? hostname === allowed.slice(1) || hostname.endsWith(allowed) : hostname === allowed,
  );
}

/**
 * 1. Host guard: stops DNS rebinding, where a foreign page's name resolves to this server and every
 *    Origin check passes because the browser thinks it is same-origin. A page opened under another
 *    loopback name of a local dashboard is sent to the canonical one, where its cookie lives.
 * 2. Cross-site guard: an unsafe method carried by a cookie (or nothing) must come from the
 *    dashboard's own pages. SvelteKit's own check covers form bodies only, not JSON or a POST without
 *    a Content-Type. A bearer token is never sent by a browser on its own, so it skips this guard, as
 *    do the providers' signed webhooks, which carry no cookie and are judged by their signature, and
 *    POST /api/backup, which takes BACKUP_SECRET and nothing else.
 */
export function guard(request: GuardedRequest, config: GuardConfig): Verdict {
  const path = normalisedPath(request.url) ?? request.url.split('?')[0] ?? '/';
  // A load balancer's or Docker's liveness probe comes by address; the answer says only "ok".
  if (path === '/healthz' && request.method === 'GET') return undefined;
  const parsed = parseHost(request.header('host'));
  if (!parsed || !hostAllowed(parsed.hostname, config)) {
    const name = parsed?.hostname ?? request.header('host') ?? '(none)';
    const message = `Blocked request: host "${name}" is not allowed. To serve this name, add it to DASHBOARD_ALLOWED_HOSTS.`;
    return isApi(path) ? json(403, 'FORBIDDEN', message) : { status: 403, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: message };
  }

  const canonical = canonicalOf(config);
  const safe = SAFE_METHODS.has(request.method);
  if (canonical && config.mode === 'local' && parsed.host !== canonical.host && isLoopbackHost(parsed.hostname) && safe && !isApi(path)) {
    return { status: 308, headers: { location: `${canonical.origin}${request.url}` }, body: '' };
  }

  if (isSignedWebhook(request.method, path)) {
    // Answered here, as the relay answers them: a form-encoded delivery (GitHub can send one) would otherwise meet
    // SvelteKit's form check first, whose plain-text 403 tells the owner nothing about what to change.
    if (Number(request.header('content-length') ?? 0) > RECEIVE_LIMITS.bodyBytes) {
      return json(413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${RECEIVE_LIMITS.bodyBytes / 1024} KB`);
    }
    if (!isJsonType(request.header('content-type'))) return json(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send application/json');
    return undefined;
  }
  if (safe || /^bearer\s/i.test(request.header('authorization') ?? '')) return undefined;
  // A cron's backup signs in with BACKUP_SECRET alone, never a cookie: without it the answer is its 401 (or 503), not this.
  if (isBackupTrigger(request.method, path)) return undefined;
  const site = request.header('sec-fetch-site');
  const origin = request.header('origin');
  const scheme = canonical?.protocol ?? 'http:';
  const ownOrigins = [canonical?.origin, `${scheme}//${parsed.host}`];
  const sameOrigin = site !== undefined ? site === 'same-origin' : origin !== undefined && ownOrigins.includes(origin);
  if (sameOrigin) return undefined;
  return json(
    403,
    'CROSS_SITE',
    `Cross-site request refused: changes are accepted from the dashboard's own pages (${canonical?.origin ?? `${scheme}//${parsed.host}`}) or with an API token (Authorization: Bearer).`,
  );
}

/** The headers a reverse proxy adds; a request straight from this machine's browser carries none of them. */
export const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip', 'via'] as const;

/** The first proxy header a request carries, or undefined when it came straight to the socket. */
export function proxyHeaderOf(header: GuardedRequest['header']): string | undefined {
  return PROXY_HEADERS.find((name) => header(name) !== undefined);
}

/**
 * The answer to a proxied request on a local dashboard without a password (hooks.server.ts asks the store whether
 * one is set): whoever reaches the proxy would otherwise have it open, as if on this machine.
 */
export function proxiedRefusal(path: string, via: string): NonNullable<Verdict> {
  const message =
    `Refused: this dashboard is local and has no password, and this request came through a proxy (${via} header). ` +
    'Behind a reverse proxy, set ORIGIN to the address people open (e.g. ORIGIN=https://dash.example.com), which makes it ' +
    'require a password (first-run setup, or DASHBOARD_PASSWORD_FILE), then restart it.';
  return isApi(path) ? json(403, 'PROXIED_WITHOUT_PASSWORD', message) : { status: 403, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: message };
}

/** Request body limits, counted on the bytes read (server.ts), whatever Content-Length says. */
export const BODY_LIMITS = {
  /** Signing in, first-run setup, signing out, passwords, sessions and tokens: a password and a few fields. */
  signIn: 16 * 1024,
  /** The providers' webhooks, as the relay takes them. */
  webhook: RECEIVE_LIMITS.bodyBytes,
  /** POST /api/database/import: a whole export. */
  import: MAX_DUMP_BYTES,
  /** POST /api/history/import: a CSV of history (a year of 20 metrics for 10 projects is some 3 MB). */
  historyImport: MAX_IMPORT_BYTES,
  /** Everything else (JSON to /api and /api/trpc, form actions). */
  other: 1024 * 1024,
} as const;

const SIGN_IN_PATHS = new Set(['/login', '/setup', '/logout']);
const SIGN_IN_PROCEDURES = /^(auth|sessions|tokens)\./;

/**
 * The path of a request line's target as adapter-node hands it to SvelteKit: it parses `<origin><target>` with the URL
 * parser, which resolves dot segments (`/x/../login`, `/%2e%2e/login`) and backslashes, and drops a fragment; still
 * percent-encoded. Undefined when the URL parser refuses it (adapter-node then answers 400 without reading the body).
 */
export function normalisedPath(url: string): string | undefined {
  try {
    return new URL(`http://target.invalid${url}`).pathname;
  } catch {
    return undefined;
  }
}

/**
 * The path SvelteKit matches its routes against: the normalised path decoded but for `%25` (its `decode_pathname`), so
 * `/%6cogin` is `/login`, without a trailing slash (`/login/` reaches /login, after a redirect). Undefined when it does
 * not decode, which SvelteKit answers with 400 and no route.
 */
export function routedPath(url: string): string | undefined {
  const path = normalisedPath(url);
  if (path === undefined) return undefined;
  try {
    const decoded = path.split('%25').map(decodeURI).join('%25');
    return decoded.length > 1 ? decoded.replace(/\/$/, '') : decoded;
  } catch {
    return undefined;
  }
}

/**
 * The most a request's body may hold: by the path SvelteKit will route (never the raw one: `/x/../login` is /login),
 * and for /api/trpc by the procedures it names (a batch takes its smallest). A path nothing routes gets the smallest.
 */
export function bodyLimit(method: string, url: string): number {
  const path = routedPath(url);
  if (path === undefined) return BODY_LIMITS.signIn;
  if (SIGN_IN_PATHS.has(path) || path === '/api/tokens' || path.startsWith('/api/tokens/') || path.startsWith('/api/auth/')) return BODY_LIMITS.signIn;
  if (path.startsWith('/api/trpc/')) {
    let procedures: string[];
    try {
      procedures = decodeURIComponent(path.slice('/api/trpc/'.length)).split(',');
    } catch {
      return BODY_LIMITS.signIn;
    }
    return procedures.some((name) => SIGN_IN_PROCEDURES.test(name)) ? BODY_LIMITS.signIn : BODY_LIMITS.other;
  }
  if (isSignedWebhook(method, path)) return BODY_LIMITS.webhook;
  if (method === 'POST' && path === '/api/database/import') return BODY_LIMITS.import;
  if (method === 'POST' && path === '/api/history/import') return BODY_LIMITS.historyImport;
  return BODY_LIMITS.other;
}

/** A JSON error answer that closes its connection: the rest of the request is never read. */
export function closingVerdict(status: number, code: string, message: string): NonNullable<Verdict> {
  const verdict = json(status, code, message);
  return { ...verdict, headers: { ...verdict.headers, connection: 'close' } };
}

/** The 413 for a body over its route's limit; the connection closes with it, so the rest is never read. */
export function tooLargeVerdict(limit: number): NonNullable<Verdict> {
  const size = limit >= 1024 * 1024 ? `${limit / 1024 / 1024} MB` : `${limit / 1024} KB`;
  return closingVerdict(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${size}, the most this route takes`);
}

/** The 408 for a request whose body stopped coming, or did not all come in time; the connection closes with it. */
export function timeoutVerdict(message: string): NonNullable<Verdict> {
  return closingVerdict(408, 'REQUEST_TIMEOUT', message);
}

/**
 * Headers on every response, unless the response sets its own: pages get their CSP (with nonces)
 * from SvelteKit's `kit.csp`; everything else is never a document to run. `no-store` keeps revenue
 * and keys out of caches; immutable assets set their own caching.
 */
export function securityHeaders(origin: string | undefined): Record<string, string> {
  return {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    // Not no-referrer: with it a browser sends `Origin: null` on a plain form POST (sign-out without
    // JavaScript), which the cross-site guard must then refuse. Other sites still get no referrer.
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    'cache-control': 'no-store',
    ...(origin?.startsWith('https:') ? { 'strict-transport-security': 'max-age=15552000' } : {}),
  };
}

/**
 * The static files that run (a worker) or are shown (a page), each with the policy it needs in place of securityHeaders'
 * `default-src 'none'`: the service worker fetches the dashboard's pages and files, and its notifications load their icon
 * and badge from the dashboard (Chromium loads them under the worker's policy: without `img-src` a push showed none); the offline page, which the worker
 * shows from its cache with these headers, loads its own style sheet, script and icon, and asks /healthz when to reload. Nothing inline, nothing foreign.
 */
const STATIC_POLICIES: Readonly<Record<string, string>> = {
  '/service-worker.js': "default-src 'none'; connect-src 'self'; img-src 'self'",
  '/offline.html': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

/** The content security policy of the static file at `url`, when it is not securityHeaders' default. */
export function staticFilePolicy(url: string): string | undefined {
  const path = normalisedPath(url);
  return path === undefined ? undefined : STATIC_POLICIES[path];
}
