// The owner's actions over real sockets against the built server: an export never carries sign-in material, an API
// token (even a write one) cannot move or import the database nor mint tokens, a signed-in browser confirms those with
// the password, a switch keeps the password, and a database given over HTTP must be in DATA_DIR or at a host that is
// not link-local or cloud metadata.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated, launchChromium } from './browser.ts';
import { cookieOf, errorOf, raw } from './http.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

const PASSWORD = 'correct horse battery staple';

const form = { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' };
const jsonType = { 'content-type': 'application/json' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}`, ...jsonType });

let dashboard: RunningDashboard;
let readToken: string;
let writeToken: string;
/** The signed-in browser's cookie and Origin, as its pages send a change. */
let browser: Record<string, string>;

async function newToken(scope: 'read' | 'write'): Promise<string> {
  const created = await dashboard.fetch('/api/tokens', { method: 'POST', headers: jsonType, body: JSON.stringify({ name: scope, scope }) });
  expect(created.status).toBe(201);
  return ((await created.json()) as { token: string }).token;
}

const post = (path: string, headers: Record<string, string>, body: unknown, from?: string) =>
  raw(`${dashboard.url}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body), ...(from ? { from } : {}) });

beforeAll(async () => {
  // The database is chosen in Settings (no DATABASE_URL), so a switch is possible at all.
  dashboard = await startDashboard({ env: (port) => ({ DATABASE_URL: undefined, ORIGIN: `http://127.0.0.1:${port}` }) });
  expect((await dashboard.fetch('/api/projects', { method: 'POST', headers: jsonType, body: JSON.stringify({ slug: 'formfox', name: 'FormFox' }) })).status).toBe(201);
  readToken = await newToken('read');
  writeToken = await newToken('write');
  const set = await dashboard.fetch('/settings/security?/password', { method: 'POST', headers: form, body: new URLSearchParams({ newPassword: PASSWORD, confirm: PASSWORD }) });
  expect(set.status).toBe(200);
  const signedIn = await raw(`${dashboard.url}/login`, { method: 'POST', headers: { origin: dashboard.url, ...form }, body: new URLSearchParams({ password: PASSWORD }).toString() });
  const cookie = cookieOf(signedIn);
  expect(cookie).toMatch(/^dash_session=/);
  browser = { cookie, origin: dashboard.url, ...jsonType };
});
afterAll(async () => {
  await dashboard?.stop();
});

describe('the export', () => {
  it('a read token downloads the data and no password hash, session, token or auth setting', async () => {
    const res = await raw(`${dashboard.url}/api/database/export`, { headers: bearer(readToken) });
    expect(res.status).toBe(200);
    const dump = JSON.parse(res.body) as { tables: Record<string, { key?: string }[]> };
    expect(dump.tables.projects).toHaveLength(1);
    for (const table of ['auth_owner', 'auth_session', 'api_token']) expect(dump.tables).not.toHaveProperty(table);
    expect((dump.tables.user_settings ?? []).filter((row) => row.key?.startsWith('meta:auth'))).toEqual([]);
    expect(res.body).not.toContain('$argon2id$');
    expect(res.body).not.toContain(readToken.split('_')[1] ?? '?');
  });
});

describe('a write token is not the owner', () => {
  it('cannot switch the database, test or migrate one, import, or list or make tokens: 403, nothing changes', async () => {
    const before = await raw(`${dashboard.url}/api/database/config`, { headers: bearer(readToken) });
    const dump = (await raw(`${dashboard.url}/api/database/export`, { headers: bearer(writeToken) })).body;
    const attempts: [string, unknown][] = [
      ['/api/database/config', { provider: 'sqlite', config: { path: join(dashboard.dataDir, 'attacker.db') }, data: 'copy', replace: true }],
      ['/api/database/config', { provider: 'hosted_db_1', config: { url: 'postgresql://postgres@attacker.example:5432/postgres' }, data: 'use', password: 'guess' }],
      ['/api/database/test', { provider: 'sqlite', config: { path: join(dashboard.dataDir, 'attacker.db') } }],
      ['/api/database/migrate', undefined],
      ['/api/database/import', dump],
      ['/api/tokens', { name: 'mine', scope: 'write' }],
    ];
    for (const [path, body] of attempts) {
      const res = await post(path, bearer(writeToken), body === undefined ? '' : body);
      expect({ path, status: res.status, code: errorOf(res).code }).toEqual({ path, status: 403, code: 'FORBIDDEN' });
    }
    const listed = await raw(`${dashboard.url}/api/tokens`, { headers: bearer(writeToken) });
    expect(listed.status).toBe(403);
    const readId = readToken.split('_')[1] ?? '?';
    expect((await raw(`${dashboard.url}/api/tokens/${readId}`, { method: 'DELETE', headers: bearer(writeToken) })).status).toBe(403);
    expect((await raw(`${dashboard.url}/api/trpc/sessions.list`, { headers: bearer(writeToken) })).status).toBe(403);
    expect((await post('/api/trpc/sessions.removeAll', bearer(writeToken), '')).status).toBe(403);
    expect((await post('/api/trpc/auth.changePassword', bearer(writeToken), { currentPassword: PASSWORD, newPassword: 'taken over by a token' })).status).toBe(403);
    expect((await raw(`${dashboard.url}/api/database/config`, { headers: bearer(readToken) })).body).toBe(before.body);
    // The token itself still works for what it may do.
    expect((await post('/api/projects', bearer(writeToken), { slug: 'tally', name: 'Tally' })).status).toBe(201);
  });
});

describe('where our data is sent is the owner\'s', () => {
  it('a write token cannot connect SendGrid (its key and recipients): 403, nothing stored; the owner can, with the password', async () => {
    const sendgrid = (key: string, to: string) => ({ key, values: { apiKey: 'SG.attacker', from: 'alerts@attacker.example', to } });
    for (const key of ['sendgrid', 'sendgrid:mine']) {
      const res = await post('/api/credentials', bearer(writeToken), sendgrid(key, 'attacker@example.com'));
      expect({ key, status: res.status, code: errorOf(res).code }).toEqual({ key, status: 403, code: 'FORBIDDEN' });
      const trpc = await post('/api/trpc/credentials.save', bearer(writeToken), sendgrid(key, 'attacker@example.com'));
      expect(trpc.status).toBe(403);
    }
    const listed = async () => (JSON.parse((await raw(`${dashboard.url}/api/credentials`, { headers: bearer(readToken) })).body) as { connectedKeys: string[] }).connectedKeys;
    expect((await listed()).filter((key) => key.startsWith('sendgrid'))).toEqual([]);
    // A token still connects a service we only read from.
    expect((await post('/api/credentials', bearer(writeToken), { key: 'vercel:scripted', values: { token: 'tok' } })).status).toBe(200);

    const unconfirmed = await post('/api/credentials', browser, sendgrid('sendgrid', 'founder@example.com'));
    expect([unconfirmed.status, errorOf(unconfirmed).message]).toEqual([403, 'Confirm this with the dashboard password (the password field).']);
    const confirmed = await post('/api/credentials', browser, { ...sendgrid('sendgrid', 'founder@example.com'), password: PASSWORD });
    expect(confirmed.status).toBe(200);
    expect(await listed()).toContain('sendgrid');
  });

  it('Settings asks the signed-in owner for the password to connect SendGrid, and connects it with it', async () => {
    const chromium = await launchChromium();
    try {
      const context = await chromium.newContext({ viewport: { width: 360, height: 900 } });
      const [name = '', value = ''] = (browser.cookie ?? '').split('=');
      await context.addCookies([{ name, value, url: dashboard.url }]);
      const page = await context.newPage();
      await gotoHydrated(page, `${dashboard.url}/settings/connections`);
      const card = page.locator('details', { has: page.getByText('SendGrid (email alerts)', { exact: true }) });
      // A connected service's card starts open (the test before connected one).
      if ((await card.getAttribute('open')) === null) await card.locator('summary').click();
      const form = card.getByRole('form', { name: 'Connect SendGrid (email alerts)' });
      await form.getByLabel('API key with Mail Send').fill('SG.founder');
      await form.getByLabel('From: a verified sender').fill('alerts@founder.example');
      await form.getByLabel('To (comma-separated)').fill('founder@example.com');
      await form.getByLabel('Account label (optional)').fill('work');
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByText('Confirm this with the dashboard password (the password field).').waitFor();
      await form.getByLabel('Your dashboard password').fill(PASSWORD);
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByText('SendGrid (email alerts) is connected as “sendgrid:work”.').waitFor();
      await context.close();
    } finally {
      await chromium.close();
    }
  });
});

describe('a signed-in browser confirms with the password', () => {
  it('is refused without it or with a wrong one (403, a clear message), and goes through with it', async () => {
    const dump = JSON.parse((await raw(`${dashboard.url}/api/database/export`, { headers: bearer(readToken) })).body) as unknown;
    const none = await post('/api/database/import?dryRun=1', browser, dump);
    expect([none.status, errorOf(none).message]).toEqual([403, 'Confirm this with the dashboard password (the password field).']);
    const wrong = await post('/api/database/import', browser, { password: 'not the password', dump }, '127.0.0.31');
    expect([wrong.status, errorOf(wrong).message]).toEqual([403, 'That password is not right.']);
    const token = await post('/api/tokens', browser, { name: 'mine', scope: 'read' });
    expect(token.status).toBe(403);

    const imported = await post('/api/database/import', browser, { password: PASSWORD, dump });
    expect(imported.status).toBe(200);
    const made = await post('/api/tokens', browser, { name: 'ci', scope: 'read', password: PASSWORD });
    expect(made.status).toBe(201);
  });

  it('switches to an empty database keeping the password, the sessions and the tokens', async () => {
    const switched = await post('/api/database/config', browser, { provider: 'sqlite', config: { path: join(dashboard.dataDir, 'fresh.db') }, data: 'use', password: PASSWORD });
    expect(switched.status).toBe(200);
    expect(JSON.parse(switched.body)).toMatchObject({ switched: true, copied: null });
    // Still asks for the password; the browser's session and the read token still work.
    expect((await raw(`${dashboard.url}/api/settings`)).status).toBe(401);
    expect((await raw(`${dashboard.url}/api/projects`, { headers: { cookie: browser.cookie ?? '' } })).status).toBe(200);
    expect((await raw(`${dashboard.url}/api/projects`, { headers: bearer(readToken) })).status).toBe(200);
    const again = await raw(`${dashboard.url}/login`, { method: 'POST', headers: { origin: dashboard.url, ...form }, body: new URLSearchParams({ password: PASSWORD }).toString(), from: '127.0.0.32' });
    expect(cookieOf(again)).toMatch(/^dash_session=/);
  });
});

describe('where a database given over HTTP may be', () => {
  it('refuses a SQLite file outside DATA_DIR and a link-local or metadata host with 400; a file inside it goes', async () => {
    for (const [config, message] of [
      [{ provider: 'sqlite', config: { path: '/tmp/elsewhere.db' } }, 'must be inside the data directory'],
      [{ provider: 'sqlite', config: { path: join(dashboard.dataDir, '..', 'escape.db') } }, 'must be inside the data directory'],
      [{ provider: 'hosted_db_1', config: { url: 'postgresql://postgres:pw@169.254.169.254:5432/postgres' } }, 'is not allowed for a database'],
      [{ provider: 'hosted_db_2', config: { url: 'https://[fe80::1]', authToken: 't' } }, 'is not allowed for a database'],
      [{ provider: 'hosted_db_3', config: { host: '100.100.100.200', username: 'u', password: 'p' } }, 'is not allowed for a database'],
    ] as const) {
      for (const path of ['/api/database/test', '/api/database/config']) {
        const res = await post(path, browser, { ...config, data: 'copy', password: PASSWORD });
        expect({ path, config, status: res.status }).toEqual({ path, config, status: 400 });
        expect(errorOf(res)).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining(message) });
      }
    }
    const inside = await post('/api/database/test', browser, { provider: 'sqlite', config: { path: join(dashboard.dataDir, 'inside.db') } });
    expect(JSON.parse(inside.body)).toEqual({ success: true, tables: 'missing', rows: 0 });
  });
});
