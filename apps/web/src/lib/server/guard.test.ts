import { describe, expect, it } from 'vitest';
import { MAX_DUMP_BYTES } from '@dash/contracts';
import { RECEIVE_LIMITS } from '@dash/webhooks';
import { bodyLimit, BODY_LIMITS, guard, normalisedPath, proxiedRefusal, proxyHeaderOf, securityHeaders, staticFilePolicy, tooLargeVerdict, type GuardConfig } from './guard.ts';

const local: GuardConfig = { mode: 'local', origin: 'http://127.0.0.1:3000', allowedHosts: [] };
const remote: GuardConfig = { mode: 'remote', origin: 'https://dash.example.com', allowedHosts: ['dash.internal', '.corp.example'] };

function request(method: string, url: string, headers: Record<string, string>) {
  return { method, url, header: (name: string) => headers[name] };
}

describe('the Host guard', () => {
  it('refuses a foreign Host on pages, the API and assets, naming the variable to set', () => {
    for (const host of ['evil.test', 'localhost.evil.test', '127.0.0.1.nip.io', 'rebind.evil.example:3000']) {
      const page = guard(request('GET', '/', { host }), local);
      expect(page).toMatchObject({ status: 403, headers: { 'content-type': 'text/plain; charset=utf-8' } });
      expect(page?.body).toContain('add it to DASHBOARD_ALLOWED_HOSTS');
      expect(guard(request('GET', '/_app/immutable/entry/start.js', { host }), local)?.status).toBe(403);
      const api = guard(request('POST', '/api/trpc/settings.update', { host, authorization: 'Bearer x' }), local);
      expect([api?.status, JSON.parse(api?.body ?? '{}')]).toEqual([403, { error: { code: 'FORBIDDEN', message: expect.stringContaining('DASHBOARD_ALLOWED_HOSTS') } }]);
    }
    expect(guard(request('GET', '/', {}), local)?.status).toBe(403);
    // The liveness probe, by address, is the one exception: it says only "ok".
    expect(guard(request('GET', '/healthz', { host: '10.0.0.5:3000' }), remote)).toBeUndefined();
    expect(guard(request('POST', '/healthz', { host: '10.0.0.5:3000' }), remote)?.status).toBe(403);
    expect(guard(request('GET', '/', { host: 'a b' }), local)?.status).toBe(403);
  });

  it('serves a local dashboard under its loopback names, sending page visits to the canonical one', () => {
    expect(guard(request('GET', '/', { host: '127.0.0.1:3000' }), local)).toBeUndefined();
    expect(guard(request('GET', '/settings?x=1', { host: 'LOCALHOST.:3000' }), local)).toEqual({ status: 308, headers: { location: 'http://127.0.0.1:3000/settings?x=1' }, body: '' });
    expect(guard(request('GET', '/', { host: '[::1]:3000' }), local)?.status).toBe(308);
    expect(guard(request('GET', '/api/settings', { host: 'localhost:3000' }), local)).toBeUndefined();
    expect(guard(request('POST', '/api/settings', { host: 'localhost:3000', origin: 'http://localhost:3000' }), local)).toBeUndefined();
  });

  it('admits only ORIGIN and the allowed hosts remotely, never loopback names', () => {
    expect(guard(request('GET', '/', { host: 'dash.example.com' }), remote)).toBeUndefined();
    expect(guard(request('GET', '/', { host: 'dash.internal:3000' }), remote)).toBeUndefined();
    expect(guard(request('GET', '/', { host: 'corp.example' }), remote)).toBeUndefined();
    expect(guard(request('GET', '/', { host: 'a.b.corp.example' }), remote)).toBeUndefined();
    expect(guard(request('GET', '/', { host: 'evilcorp.example' }), remote)?.status).toBe(403);
    expect(guard(request('GET', '/', { host: 'localhost:3000' }), remote)?.status).toBe(403);
    expect(guard(request('GET', '/', { host: '127.0.0.1:3000' }), remote)?.status).toBe(403);
  });
});

describe('the cross-site guard', () => {
  const refused = (method: string, url: string, headers: Record<string, string>, config = local) => {
    const host = config === local ? '127.0.0.1:3000' : 'dash.example.com';
    const verdict = guard(request(method, url, { host, ...headers }), config);
    return verdict?.status === 403 && (JSON.parse(verdict.body) as { error: { code: string } }).error.code === 'CROSS_SITE';
  };

  it('refuses unsafe requests from another site, another port, or nowhere said', () => {
    expect(refused('POST', '/api/settings', { origin: 'https://evil.example' })).toBe(true);
    expect(refused('POST', '/api/settings', { origin: 'http://127.0.0.1:4000' })).toBe(true);
    expect(refused('POST', '/api/settings', { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:3000' })).toBe(true);
    expect(refused('POST', '/api/settings', { 'sec-fetch-site': 'cross-site' })).toBe(true);
    expect(refused('DELETE', '/api/projects/x', {})).toBe(true);
    expect(refused('POST', '/login', { origin: 'null' })).toBe(true);
    expect(refused('PATCH', '/api/projects/x', { origin: 'https://dash.example.com.evil.test' }, remote)).toBe(true);
  });

  it("lets through the dashboard's own pages, bearer requests, and anything safe", () => {
    expect(refused('POST', '/api/settings', { 'sec-fetch-site': 'same-origin' })).toBe(false);
    expect(refused('POST', '/api/settings', { origin: 'http://127.0.0.1:3000' })).toBe(false);
    expect(refused('POST', '/api/settings', { authorization: 'Bearer fdb_x' })).toBe(false);
    expect(refused('GET', '/api/settings', { origin: 'https://evil.example' })).toBe(false);
    expect(refused('POST', '/api/settings', { origin: 'https://dash.example.com' }, remote)).toBe(false);
  });

  it('leaves POST /api/backup to its BACKUP_SECRET check (it takes no cookie), but not its other methods', () => {
    expect(refused('POST', '/api/backup', {})).toBe(false);
    expect(refused('POST', '/api/backup', { origin: 'https://evil.example' }, remote)).toBe(false);
    expect(refused('DELETE', '/api/backup', { origin: 'https://evil.example' })).toBe(true);
    expect(guard(request('POST', '/api/backup', { host: 'evil.example' }), local)?.status).toBe(403);
  });
});

describe('the security headers', () => {
  it('forbid framing and sniffing, keep answers out of caches, and add HSTS only for https', () => {
    const plain = securityHeaders('http://127.0.0.1:3000');
    expect(plain).toMatchObject({
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'cache-control': 'no-store',
    });
    expect(plain).not.toHaveProperty('strict-transport-security');
    expect(securityHeaders('https://dash.example.com')['strict-transport-security']).toBe('max-age=15552000');
  });

  it('let the service worker fetch only from the dashboard, and the offline page load only its own files', () => {
    expect(staticFilePolicy('/service-worker.js')).toBe("default-src 'none'; connect-src 'self'; img-src 'self'");
    expect(staticFilePolicy('/x/../offline.html?retry')).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';/);
    for (const url of ['/', '/favicon.svg', '/manifest.webmanifest', '/offline.js', '/_app/immutable/entry/app.js', '/api/service-worker.js']) {
      expect(staticFilePolicy(url)).toBeUndefined();
    }
  });
});

describe('a request through a proxy', () => {
  it('is told by any of the headers a proxy adds, and by none a browser sends on its own', () => {
    const headers = (extra: Record<string, string>) => (name: string) => ({ host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000', ...extra })[name];
    expect(proxyHeaderOf(headers({}))).toBeUndefined();
    expect(proxyHeaderOf(headers({ 'sec-fetch-site': 'same-origin', referer: 'http://127.0.0.1:3000/' }))).toBeUndefined();
    expect(proxyHeaderOf(headers({ forwarded: 'for=203.0.113.7;proto=https' }))).toBe('forwarded');
    expect(proxyHeaderOf(headers({ 'x-forwarded-for': '203.0.113.7' }))).toBe('x-forwarded-for');
    expect(proxyHeaderOf(headers({ 'x-forwarded-host': 'dash.example.com' }))).toBe('x-forwarded-host');
    expect(proxyHeaderOf(headers({ 'x-real-ip': '203.0.113.7' }))).toBe('x-real-ip');
    expect(proxyHeaderOf(headers({ via: '1.1 caddy' }))).toBe('via');
    // Present but empty still says a proxy passed it on.
    expect(proxyHeaderOf(headers({ 'x-forwarded-for': '' }))).toBe('x-forwarded-for');
  });

  it('is refused with what to set: JSON on the API, text on pages', () => {
    const api = proxiedRefusal('/api/projects', 'x-forwarded-for');
    expect(api.status).toBe(403);
    expect(JSON.parse(api.body)).toEqual({ error: { code: 'PROXIED_WITHOUT_PASSWORD', message: expect.stringMatching(/set ORIGIN .*password/) } });
    const page = proxiedRefusal('/', 'via');
    expect(page).toMatchObject({ status: 403, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    expect(page.body).toMatch(/through a proxy \(via header\).*set ORIGIN to the address people open.*password/);
  });
});

describe('body limits', () => {
  it('keep sign-in and setup to a few KB, the import to a whole export, a history CSV to 16 MB, webhooks to the relay\'s, the rest to 1 MB', () => {
    expect(BODY_LIMITS).toEqual({ signIn: 16 * 1024, webhook: RECEIVE_LIMITS.bodyBytes, import: MAX_DUMP_BYTES, historyImport: 16 * 1024 * 1024, other: 1024 * 1024 });
    for (const url of ['/login', '/login?/default', '/setup?token=x', '/logout', '/api/tokens', '/api/tokens/abc', '/api/auth/cli-import']) {
      expect(bodyLimit('POST', url)).toBe(BODY_LIMITS.signIn);
    }
    for (const url of ['/api/trpc/auth.login', '/api/trpc/auth.setup?batch=1', '/api/trpc/settings.get,auth.login?batch=1', '/api/trpc/settings.get%2Cauth.login?batch=1', '/api/trpc/tokens.create', '/api/trpc/sessions.removeAll', '/api/trpc/%E0%A4%A']) {
      expect(bodyLimit('POST', url)).toBe(BODY_LIMITS.signIn);
    }
    expect(bodyLimit('POST', '/api/webhooks/code_host')).toBe(BODY_LIMITS.webhook);
    expect(bodyLimit('POST', '/api/database/import?dryRun=1')).toBe(BODY_LIMITS.import);
    expect(bodyLimit('POST', '/api/history/import')).toBe(BODY_LIMITS.historyImport);
    for (const [method, url] of [['POST', '/api/trpc/settings.update?batch=1'], ['POST', '/api/trpc/database.import'], ['POST', '/api/projects'], ['PUT', '/api/database/import'], ['PUT', '/api/history/import'], ['POST', '/settings/security?/password'], ['GET', '/']]) {
      expect(bodyLimit(method as string, url as string)).toBe(BODY_LIMITS.other);
    }
  });

  it('are chosen by the path SvelteKit will route, never the raw one: dot segments, backslashes and encoded letters get no more', () => {
    // adapter-node parses the target with the URL parser (dot segments, `%2e`, backslashes) and SvelteKit decodes the
    // path to route it (`%6c` is `l`): each of these reaches the sign-in form or auth.* and its 16 KB.
    for (const url of ['/x/../login', '/%2e%2e/login', '/x/%2E%2E/login', '/./login', '/x\\..\\login', '/%6cogin', '/login/', '/login#x', '/setup/./', '/api/x/../tokens']) {
      expect([url, bodyLimit('POST', url)]).toEqual([url, BODY_LIMITS.signIn]);
    }
    for (const url of ['/api/trpc/x/../auth.login', '/api/trpc/x/%2e%2e/auth.login?batch=1', '/api/trpc/settings.get/../auth.login', '/api/%74rpc/auth.login', '/api/trpc/%61uth.login']) {
      expect([url, bodyLimit('POST', url)]).toEqual([url, BODY_LIMITS.signIn]);
    }
    // A webhook or the import is only what its normalised path is; a path that does not decode routes nowhere: the smallest.
    expect(bodyLimit('POST', '/api/webhooks/code_host/../../settings')).toBe(BODY_LIMITS.other);
    expect(bodyLimit('POST', '/x/../api/database/import')).toBe(BODY_LIMITS.import);
    expect(bodyLimit('POST', '/api/%E0%A4%A')).toBe(BODY_LIMITS.signIn);
    // What the guard looks at is the same normalised path: a foreign Host is refused on /healthz reached by dot segments.
    expect(normalisedPath('/x/../login?next=/a/../b')).toBe('/login');
    expect(normalisedPath('//evil.example/login')).toBe('//evil.example/login');
    expect(guard(request('POST', '/x/../api/webhooks/code_host', { host: '127.0.0.1:3000', 'content-type': 'text/plain' }), local)?.status).toBe(415);
  });

  it('answer 413 JSON that closes the connection', () => {
    const verdict = tooLargeVerdict(BODY_LIMITS.signIn);
    expect(verdict).toMatchObject({ status: 413, headers: { 'content-type': 'application/json; charset=utf-8', connection: 'close' } });
    expect(JSON.parse(verdict.body)).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 16 KB, the most this route takes' } });
    expect(tooLargeVerdict(MAX_DUMP_BYTES).body).toContain('larger than 50 MB');
  });
});
