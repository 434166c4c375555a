// Access control over real HTTP, against the production build (SvelteKit's own CSRF check is off in dev).
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '@dash/api';
import { restRoutes } from '@dash/api/rest';
import { cookieOf, raw, type Answer } from './http.ts';
import { runUntilExit, startDashboard, type RunningDashboard } from './server.ts';

const PASSWORD = 'correct horse battery staple';

/** Signs in through the login form, as a browser without JavaScript does; answers the session cookie. */
async function signIn(dashboard: RunningDashboard, password = PASSWORD, headers: Record<string, string> = {}): Promise<Answer & { cookie: string }> {
  const answer = await raw(`${dashboard.url}/login`, {
    method: 'POST',
    headers: { origin: dashboard.url, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ password }).toString(),
  });
  return { ...answer, cookie: cookieOf(answer) };
}

/** The first password of a local dashboard, set from its settings page as its owner does. */
async function setPassword(dashboard: RunningDashboard, password = PASSWORD) {
  const answer = await dashboard.fetch('/settings/security?/password', {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ newPassword: password, confirm: password }),
  });
  expect(answer.status).toBe(200);
  return answer;
}

const procedurePaths = () =>
  Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>).map(([path, p]) => ({ path, type: p._def.type }));

describe('a local dashboard with a password', () => {
  let dashboard: RunningDashboard;
  let cookie: string;
  beforeAll(async () => {
    dashboard = await startDashboard();
    await setPassword(dashboard);
    cookie = (await signIn(dashboard)).cookie;
  });
  afterAll(() => dashboard?.stop());

  it('answers every REST route and tRPC procedure without credentials with 401, and pages with a 303 to sign in', async () => {
    for (const route of restRoutes) {
      const path = route.path.replace(/:(\w+)/g, 'x');
      const answer = await raw(dashboard.url + path, { method: route.method, headers: route.method === 'GET' ? {} : { origin: dashboard.url, 'content-type': 'application/json' }, body: route.method === 'GET' ? undefined : '{}' });
      if (route.procedure === 'backup.run') {
        // A cron's route: BACKUP_SECRET or nothing, and without that variable it is off (backup.test.ts has its 401s).
        expect([answer.status, JSON.parse(answer.body)]).toMatchObject([503, { error: { message: expect.stringContaining('BACKUP_SECRET') as string } }]);
        continue;
      }
      expect([route.method, path, answer.status], answer.body).toEqual([route.method, path, 401]);
      expect(answer.headers['www-authenticate']).toBe('Bearer realm="dashboard"');
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    }
    // The OAuth routes are SvelteKit routes (they redirect and set a cookie) behind the same sign-in.
    for (const path of ['/api/auth/google/redirect?credKey=google', '/api/auth/github/callback?code=x&state=y']) {
      const answer = await raw(dashboard.url + path);
      expect([path, answer.status, answer.headers.location]).toEqual([path, 401, undefined]);
    }
    for (const { path, type } of procedurePaths()) {
      const answer =
        type === 'query'
          ? await raw(`${dashboard.url}/api/trpc/${path}`)
          : await raw(`${dashboard.url}/api/trpc/${path}`, { method: 'POST', headers: { origin: dashboard.url, 'content-type': 'application/json' }, body: '{}' });
      expect([path, answer.status]).toEqual([path, 401]);
    }
    for (const [page, next] of [['/', '/login'], ['/settings', '/login?next=%2Fsettings'], ['/settings/notifications', '/login?next=%2Fsettings%2Fnotifications'], ['/?project=a', '/login?next=%2F%3Fproject%3Da']]) {
      const answer = await raw(dashboard.url + page);
      expect([page, answer.status, answer.headers.location]).toEqual([page, 303, next]);
    }
    expect((await raw(`${dashboard.url}/healthz`)).status).toBe(200);
    expect((await raw(`${dashboard.url}/login`)).status).toBe(200);
  });

  it('sets the session cookie HttpOnly, SameSite=Lax, Path=/, not Secure over plain http, and keeps only its hash', async () => {
    const answer = await signIn(dashboard);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe('/');
    const header = [answer.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('dash_session='));
    expect(header).toMatch(/^dash_session=[\w-]{16}\.[\w-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
    expect((await raw(`${dashboard.url}/api/settings`, { headers: { cookie: answer.cookie } })).status).toBe(200);
  });

  it('sends a signed-in visitor back to where they were going, only ever on this dashboard', async () => {
    const next = (await signIn(dashboard, PASSWORD, { referer: 'x' }));
    expect(next.headers.location).toBe('/');
    const targets: [string, string][] = [['/settings', '/settings'], ['/settings/relay', '/settings/relay'], ['//evil.example', '/'], ['https://evil.example/', '/'], ['/\\evil.example', '/']];
    for (const [target, expected] of targets) {
      const answer = await raw(`${dashboard.url}/login?next=${encodeURIComponent(target)}`, {
        method: 'POST',
        headers: { origin: dashboard.url, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ password: PASSWORD }).toString(),
      });
      expect([target, answer.headers.location]).toEqual([target, expected]);
    }
  });

  it('ends a session at logout, and every other one at a password change', async () => {
    const [a, b, c] = [await signIn(dashboard), await signIn(dashboard), await signIn(dashboard)];
    const logout = await raw(`${dashboard.url}/logout`, { method: 'POST', headers: { cookie: c.cookie, origin: dashboard.url, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect([logout.status, logout.headers.location]).toEqual([303, '/login']);
    expect((await raw(`${dashboard.url}/api/settings`, { headers: { cookie: c.cookie } })).status).toBe(401);

    const change = await raw(`${dashboard.url}/settings/security?/password`, {
      method: 'POST',
      headers: { cookie: a.cookie, origin: dashboard.url, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ currentPassword: PASSWORD, newPassword: `${PASSWORD} 2`, confirm: `${PASSWORD} 2` }).toString(),
    });
    expect(change.status).toBe(200);
    expect(change.body).toContain('Every other session is signed out.');
    expect((await raw(`${dashboard.url}/api/settings`, { headers: { cookie: a.cookie } })).status).toBe(200);
    expect((await raw(`${dashboard.url}/api/settings`, { headers: { cookie: b.cookie } })).status).toBe(401);
    expect((await raw(`${dashboard.url}/api/settings`, { headers: { cookie } })).status).toBe(401);
    cookie = (await signIn(dashboard, `${PASSWORD} 2`)).cookie;
    expect((await raw(`${dashboard.url}/api/settings`, { headers: { cookie } })).status).toBe(200);
  });

  it('gives an API token once; a read token reads and may not write; a revoked one and one in the query string are refused', async () => {
    const create = (scope: string) =>
      raw(`${dashboard.url}/api/tokens`, { method: 'POST', headers: { cookie, origin: dashboard.url, 'content-type': 'application/json' }, body: JSON.stringify({ name: `${scope} script`, scope, password: `${PASSWORD} 2` }) });
    const made = await create('read');
    expect([made.status, made.headers['cache-control']]).toEqual([201, 'no-store']);
    const read = JSON.parse(made.body) as { id: string; token: string };
    const write = JSON.parse((await create('write')).body) as { id: string; token: string };
    const listed = await raw(`${dashboard.url}/api/tokens`, { headers: { cookie } });
    expect(listed.body).not.toContain(read.token.slice(15));

    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    expect((await raw(`${dashboard.url}/api/settings`, { headers: bearer(read.token) })).status).toBe(200);
    expect((await raw(`${dashboard.url}/api/trpc/settings.get`, { headers: bearer(read.token) })).status).toBe(200);
    const refused = await raw(`${dashboard.url}/api/projects`, { method: 'POST', headers: { ...bearer(read.token), 'content-type': 'application/json' }, body: '{"slug":"nope","name":"Nope"}' });
    expect([refused.status, JSON.parse(refused.body)]).toEqual([403, { error: { code: 'FORBIDDEN', message: expect.stringContaining('read-only') } }]);
    // A bearer request needs no Origin: scripts send none.
    const created = await raw(`${dashboard.url}/api/projects`, { method: 'POST', headers: { ...bearer(write.token), 'content-type': 'application/json' }, body: '{"slug":"scripted","name":"Scripted"}' });
    expect(created.status).toBe(201);
    // A form-encoded body is refused before the procedure runs (SvelteKit's own form check answers first here).
    const plain = await raw(`${dashboard.url}/api/projects`, { method: 'POST', headers: { ...bearer(write.token), 'content-type': 'text/plain' }, body: '{"slug":"plain","name":"Plain"}' });
    expect(plain.status).toBe(403);
    expect((await raw(`${dashboard.url}/api/projects/plain`, { headers: bearer(write.token) })).status).toBe(404);
    // Tokens manage nothing of access control.
    expect((await raw(`${dashboard.url}/api/tokens`, { headers: bearer(write.token) })).status).toBe(403);

    expect((await raw(`${dashboard.url}/api/settings?token=${read.token}&access_token=${read.token}`)).status).toBe(401);
    const revoke = await raw(`${dashboard.url}/api/tokens/${read.id}`, { method: 'DELETE', headers: { cookie, origin: dashboard.url } });
    expect(JSON.parse(revoke.body)).toEqual({ ok: true, removed: true });
    const revoked = await raw(`${dashboard.url}/api/settings`, { headers: bearer(read.token) });
    expect([revoked.status, revoked.headers['www-authenticate']]).toEqual([401, 'Bearer realm="dashboard", error="invalid_token"']);
  });

  it('refuses cross-site writes carried by the cookie, and changes nothing', async () => {
    const before = (await raw(`${dashboard.url}/api/settings`, { headers: { cookie } })).body;
    const body = JSON.stringify({ projectOrder: [], widgetLayout: { slots: { revenue: 'funding' } } });
    const attempts: Record<string, string>[] = [
      { origin: 'http://evil.example', 'content-type': 'application/json' },
      { origin: dashboard.url, 'sec-fetch-site': 'same-site', 'content-type': 'application/json' },
      { origin: `http://127.0.0.1:${dashboard.port + 1}` },
      { origin: 'http://evil.example', 'content-type': 'text/plain' },
      { 'content-type': 'application/json' },
    ];
    for (const headers of attempts) {
      const answer = await raw(`${dashboard.url}/api/settings`, { method: 'POST', headers: { cookie, ...headers }, body });
      expect([headers, answer.status, (JSON.parse(answer.body) as { error: { code: string } }).error.code]).toEqual([headers, 403, 'CROSS_SITE']);
    }
    const form = await raw(`${dashboard.url}/settings/security?/password`, {
      method: 'POST',
      headers: { cookie, origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ newPassword: 'taken over by evil', confirm: 'taken over by evil' }).toString(),
    });
    expect(form.status).toBe(403);
    expect((await raw(`${dashboard.url}/api/settings`, { headers: { cookie } })).body).toBe(before);
    expect((await signIn(dashboard, 'taken over by evil')).status).toBe(400);
  });
});

describe('failed sign-ins', () => {
  it('are throttled: the 6th from one address in 5 minutes is 429 with Retry-After, even with the right password', async () => {
    const dashboard = await startDashboard();
    try {
      await setPassword(dashboard);
      for (let i = 0; i < 5; i++) {
        const answer = await signIn(dashboard, `wrong password ${i}`);
        expect([i, answer.status]).toEqual([i, 400]);
        expect(answer.body).toContain('That password is not right.');
      }
      const limited = await signIn(dashboard);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(200);
      expect(limited.body).toContain('Too many failed sign-in attempts');
      expect(limited.cookie).toBe('');
    } finally {
      await dashboard.stop();
    }
  });
});

describe('the guards and headers of every response', () => {
  let dashboard: RunningDashboard;
  let asset: string;
  beforeAll(async () => {
    dashboard = await startDashboard();
    const entry = fileURLToPath(new URL('../build/client/_app/immutable/entry/', import.meta.url));
    asset = `/_app/immutable/entry/${readdirSync(entry).find((name) => name.endsWith('.js'))}`;
  });
  afterAll(() => dashboard?.stop());

  it('refuses a foreign Host on a page, the API, tRPC and an asset, naming the variable to set', async () => {
    for (const path of ['/', '/api/settings', '/api/trpc/settings.get', asset]) {
      for (const host of ['rebind.evil.example', 'localhost.evil.test', '127.0.0.1.nip.io']) {
        const answer = await raw(dashboard.url + path, { headers: { host: `${host}:${dashboard.port}` } });
        expect([path, host, answer.status]).toEqual([path, host, 403]);
        expect(answer.body).toContain('DASHBOARD_ALLOWED_HOSTS');
      }
    }
    expect((await raw(dashboard.url + asset, { headers: { host: `LOCALHOST.:${dashboard.port}` } })).status).toBe(308);
    const alias = await raw(`${dashboard.url}/settings`, { headers: { host: `[::1]:${dashboard.port}` } });
    expect([alias.status, alias.headers.location]).toEqual([308, `${dashboard.url}/settings`]);
    const aliasWrite = await raw(`${dashboard.url}/api/settings`, { method: 'POST', headers: { host: `localhost:${dashboard.port}`, origin: 'http://evil.example', 'content-type': 'application/json' }, body: '{}' });
    expect(aliasWrite.status).toBe(403);
  });

  it('carries the security headers on a page, JSON, tRPC, a 404, an error and an asset', async () => {
    const answers = {
      page: await raw(`${dashboard.url}/`),
      json: await raw(`${dashboard.url}/api/settings`),
      trpc: await raw(`${dashboard.url}/api/trpc/settings.get`),
      missingPage: await raw(`${dashboard.url}/no-such-page`),
      missingApi: await raw(`${dashboard.url}/api/no-such-route`),
      error: await raw(`${dashboard.url}/api/projects`, { method: 'POST', headers: { origin: dashboard.url, 'content-type': 'application/json' }, body: '{' }),
      asset: await raw(dashboard.url + asset),
    };
    for (const [kind, answer] of Object.entries(answers)) {
      expect([kind, answer.headers['x-content-type-options'], answer.headers['x-frame-options'], answer.headers['referrer-policy']]).toEqual([kind, 'nosniff', 'DENY', 'same-origin']);
      expect([kind, answer.headers['content-security-policy']]).toEqual([kind, expect.stringContaining("frame-ancestors 'none'")]);
      expect(answer.headers['strict-transport-security']).toBeUndefined();
    }
    const pageCsp = String(answers.page.headers['content-security-policy']);
    expect(pageCsp).toMatch(/script-src 'self' 'nonce-[\w+/=]+'/);
    expect(/script-src[^;]*unsafe-inline/.test(pageCsp)).toBe(false);
    expect(answers.page.body).toMatch(/<script nonce="[\w+/=]+">/);
    for (const kind of ['json', 'trpc', 'missingApi', 'error'] as const) {
      expect([kind, answers[kind].headers['content-security-policy'], answers[kind].headers['cache-control']]).toEqual([kind, "default-src 'none'; frame-ancestors 'none'", 'no-store']);
    }
    expect(answers.asset.headers['cache-control']).toBe('public,max-age=31536000,immutable');
    expect(answers.missingPage.status).toBe(404);
  });
});

describe('a remote dashboard', () => {
  it('refuses to start without ORIGIN, or with a password hash that is not argon2id, saying what to set', async () => {
    const noOrigin = await runUntilExit({ HOST: '0.0.0.0' });
    expect(noOrigin.code).toBe(1);
    expect(noOrigin.output).toMatch(/ORIGIN: the dashboard listens on HOST=0\.0\.0\.0, beyond this machine, so it needs the address people open: set ORIGIN/);
    const badHash = await runUntilExit({ HOST: '127.0.0.1', DASHBOARD_PASSWORD_HASH: '$2b$12$notargon' });
    expect(badHash.code).toBe(1);
    expect(badHash.output).toContain('DASHBOARD_PASSWORD_HASH must be an argon2id hash');
  });

  it('opens only with the printed setup link; of 20 setups at once, one wins; then it asks for the password', async () => {
    const dashboard = await startDashboard({ env: (port) => ({ HOST: '0.0.0.0', ORIGIN: `http://127.0.0.1:${port}` }) });
    try {
      expect((await raw(`${dashboard.url}/api/settings`)).status).toBe(503);
      expect(JSON.parse((await raw(`${dashboard.url}/api/settings`)).body)).toMatchObject({ error: { code: 'SETUP_REQUIRED' } });
      expect((await raw(`${dashboard.url}/`)).headers.location).toBe('/setup');
      expect((await raw(`${dashboard.url}/setup`)).status).toBe(403);
      expect((await raw(`${dashboard.url}/setup?token=wrong`)).status).toBe(403);

      const link = /Open (\S+\/setup\?token=[\w-]+)/.exec(dashboard.output())?.[1] ?? '';
      expect(link.startsWith(`${dashboard.url}/setup?token=`)).toBe(true);
      const opened = await raw(link);
      expect([opened.status, opened.headers.location]).toEqual([303, '/setup']);
      const setupCookie = cookieOf(opened, 'dash_setup');
      expect([opened.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('dash_setup='))).toMatch(/; Max-Age=900; Path=\/setup; HttpOnly; SameSite=Strict$/);

      const attempts = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          raw(`${dashboard.url}/setup`, {
            method: 'POST',
            headers: { cookie: setupCookie, origin: dashboard.url, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ password: `${PASSWORD} ${i}`, confirm: `${PASSWORD} ${i}` }).toString(),
          }),
        ),
      );
      const winners = attempts.flatMap((answer, i) => (answer.status === 303 ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(attempts.filter((answer) => answer.status === 409)).toHaveLength(19);
      const winner = attempts[winners[0] ?? -1];
      expect(winner?.headers.location).toBe('/');
      expect((await raw(`${dashboard.url}/api/settings`, { headers: { cookie: cookieOf(winner as Answer) } })).status).toBe(200);

      expect((await raw(link)).headers.location).toBe('/login');
      expect((await raw(`${dashboard.url}/api/settings`)).status).toBe(401);
      expect((await signIn(dashboard, `${PASSWORD} ${winners[0]}`)).status).toBe(303);
    } finally {
      await dashboard.stop();
    }
  });

  it('with an https ORIGIN: admits only its host, sends HSTS, and marks the cookie Secure with the __Host- prefix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dash-password-'));
    const passwordFile = join(dir, 'password');
    writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
    const dashboard = await startDashboard({ env: { HOST: '0.0.0.0', ORIGIN: 'https://dash.example.com', DASHBOARD_PASSWORD_FILE: passwordFile } });
    try {
      // Reached by address, as a TLS-terminating proxy in front of it would, with the public Host.
      const at = `http://127.0.0.1:${dashboard.port}`;
      const host = { host: 'dash.example.com' };
      expect((await raw(`${at}/`, { headers: { host: `127.0.0.1:${dashboard.port}` } })).status).toBe(403);
      expect((await raw(`${at}/`, { headers: { host: `localhost:${dashboard.port}` } })).status).toBe(403);
      const page = await raw(`${at}/login`, { headers: host });
      expect([page.status, page.headers['strict-transport-security']]).toEqual([200, 'max-age=15552000']);
      const answer = await raw(`${at}/login`, {
        method: 'POST',
        headers: { ...host, origin: 'https://dash.example.com', accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ password: PASSWORD }).toString(),
      });
      expect(answer.status).toBe(303);
      const header = [answer.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('__Host-dash_session='));
      expect(header).toMatch(/^__Host-dash_session=[\w.-]+; Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
      const cookie = (header ?? '').split(';')[0] ?? '';
      expect((await raw(`${at}/api/settings`, { headers: { ...host, cookie } })).status).toBe(200);
      // The password comes from the file: the settings page offers no change, and a change is refused.
      const change = await raw(`${at}/settings/security?/password`, {
        method: 'POST',
        headers: { ...host, cookie, origin: 'https://dash.example.com', accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ currentPassword: PASSWORD, newPassword: 'another long password', confirm: 'another long password' }).toString(),
      });
      expect([change.status, change.body]).toEqual([409, expect.stringContaining('managed by DASHBOARD_PASSWORD_FILE')]);
    } finally {
      await dashboard.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
