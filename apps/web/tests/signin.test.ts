// Signing in over real sockets against the built server: the failure throttle counts each client address on its
// own (the socket's, or with TRUST_PROXY the right-most X-Forwarded-For hop), Better Stack's bearer-token webhooks
// reach their route, and `next` never leads off the dashboard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incident } from '../../../packages/webhooks/src/betterstack/fixtures.ts';
import { cookieOf, raw } from './http.ts';
import { runUntilExit, startDashboard, type RunningDashboard } from './server.ts';

const PASSWORD = 'correct horse battery staple';
const BETTERSTACK_TOKEN = 'betterstack-outgoing-webhook-token-5c1f0e9a';

const form = { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' };

/** The login form posted as a browser without JavaScript posts it. */
function signIn(dashboard: RunningDashboard, password: string, options: { from?: string; headers?: Record<string, string>; query?: string; next?: string } = {}) {
  const fields: Record<string, string> = { password, ...(options.next === undefined ? {} : { next: options.next }) };
  return raw(`${dashboard.url}/login${options.query ?? ''}`, {
    method: 'POST',
    headers: { origin: dashboard.url, ...form, ...options.headers },
    body: new URLSearchParams(fields).toString(),
    from: options.from,
  });
}

/** A token made while the local dashboard is open, then the password set from the settings page; answers the token. */
async function tokenThenPassword(dashboard: RunningDashboard): Promise<string> {
  const created = await dashboard.fetch('/api/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'script', scope: 'read' }) });
  expect(created.status).toBe(201);
  const { token } = (await created.json()) as { token: string };
  const set = await dashboard.fetch('/settings/security?/password', { method: 'POST', headers: form, body: new URLSearchParams({ newPassword: PASSWORD, confirm: PASSWORD }) });
  expect(set.status).toBe(200);
  expect((await raw(`${dashboard.url}/api/settings`)).status).toBe(401);
  return token;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const FORGED = `fdb_${'0'.repeat(10)}_${'x'.repeat(43)}`;

describe('failed sign-ins, counted by the socket address (no TRUST_PROXY)', () => {
  let dashboard: RunningDashboard;
  let token: string;
  beforeAll(async () => {
    dashboard = await startDashboard();
    token = await tokenThenPassword(dashboard);
  });
  afterAll(() => dashboard?.stop());

  it('lets a good token from another address in at once after 100 bad bearers, whatever X-Forwarded-For the attacker sends', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      // A fresh X-Forwarded-For each time: without TRUST_PROXY it is ignored, so it evades nothing.
      const answer = await raw(`${dashboard.url}/api/settings`, { from: '127.0.0.2', headers: { ...bearer(FORGED), 'x-forwarded-for': `198.51.100.${i}` } });
      statuses.push(answer.status);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));

    const started = performance.now();
    const good = await raw(`${dashboard.url}/api/settings`, { from: '127.0.0.3', headers: bearer(token) });
    expect(good.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1_000);
    // The attacker's own address still gets a bad token refused, and a good one in (a 256-bit token cannot be guessed).
    expect((await raw(`${dashboard.url}/api/settings`, { from: '127.0.0.2', headers: bearer(FORGED) })).status).toBe(429);
    expect((await raw(`${dashboard.url}/api/settings`, { from: '127.0.0.2', headers: bearer(token) })).status).toBe(200);

    // The login: the attacker's address is throttled even with the right password; the owner's is not.
    const throttled = await signIn(dashboard, PASSWORD, { from: '127.0.0.2' });
    expect([throttled.status, cookieOf(throttled)]).toEqual([429, '']);
    const owner = await signIn(dashboard, PASSWORD, { from: '127.0.0.3' });
    expect(owner.status).toBe(303);
    expect(cookieOf(owner)).toMatch(/^dash_session=/);
  });

  it('lets the owner sign in from another address after 100 wrong passwords from one, and a session is never throttled', async () => {
    const session = cookieOf(await signIn(dashboard, PASSWORD, { from: '127.0.0.5' }));
    expect(session).toMatch(/^dash_session=/);
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await signIn(dashboard, `wrong password ${i}`, { from: '127.0.0.4', headers: { 'x-forwarded-for': `203.0.113.${i}` } })).status);
    expect(statuses.slice(0, 5)).toEqual([400, 400, 400, 400, 400]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));

    const started = performance.now();
    const owner = await signIn(dashboard, PASSWORD, { from: '127.0.0.6' });
    expect([owner.status, owner.headers.location]).toEqual([303, '/']);
    expect(performance.now() - started).toBeLessThan(2_000);
    // A session cookie is never throttled, not even from the throttled address.
    expect((await raw(`${dashboard.url}/api/settings`, { from: '127.0.0.4', headers: { cookie: session } })).status).toBe(200);
  });
});

describe('failed sign-ins behind a reverse proxy (TRUST_PROXY=true)', () => {
  let dashboard: RunningDashboard;
  let token: string;
  beforeAll(async () => {
    dashboard = await startDashboard({ env: { TRUST_PROXY: 'true' } });
    token = await tokenThenPassword(dashboard);
  });
  afterAll(() => dashboard?.stop());

  // As nginx's `$proxy_add_x_forwarded_for` sends it: whatever the client sent, then the address the proxy saw.
  const via = (client: string, sent?: string) => ({ 'x-forwarded-for': sent ? `${sent}, ${client}` : client });

  it('counts the right-most X-Forwarded-For hop, so clients behind one proxy do not lock each other out', async () => {
    const statuses: number[] = [];
    // The attacker varies the hops it sends itself: only the proxy's own (right-most) one counts.
    for (let i = 0; i < 100; i++) statuses.push((await raw(`${dashboard.url}/api/settings`, { headers: { ...bearer(FORGED), ...via('203.0.113.9', `10.0.${i}.1`) } })).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    // Another client through the same proxy (the same socket address): its token and its password pass at once.
    expect((await raw(`${dashboard.url}/api/settings`, { headers: { ...bearer(token), ...via('203.0.113.10') } })).status).toBe(200);
    expect((await signIn(dashboard, PASSWORD, { headers: via('203.0.113.10', '203.0.113.9') })).status).toBe(303);
    expect((await signIn(dashboard, PASSWORD, { headers: via('203.0.113.9', '203.0.113.10') })).status).toBe(429);
  });

  it('records the proxied client address on a session', async () => {
    const answer = await signIn(dashboard, PASSWORD, { headers: via('192.0.2.77', '10.1.1.1') });
    expect(answer.status).toBe(303);
    const listed = await raw(`${dashboard.url}/api/trpc/sessions.list`, { headers: { cookie: cookieOf(answer) } });
    expect(listed.status).toBe(200);
    const { sessions } = (JSON.parse(listed.body) as { result: { data: { sessions: { ip: string | null; current: boolean }[] } } }).result.data;
    expect(sessions.find((s) => s.current)?.ip).toBe('192.0.2.77');
  });
});

describe('TRUST_PROXY', () => {
  it('refuses to start with a value other than true or false, naming the variable', async () => {
    const { code, output } = await runUntilExit({ HOST: '127.0.0.1', TRUST_PROXY: 'yes' });
    expect(code).not.toBe(0);
    expect(output).toContain('TRUST_PROXY');
  });
});

describe('Better Stack webhooks with Authorization: Bearer', () => {
  let dashboard: RunningDashboard;
  beforeAll(async () => {
    // As the README's table documents: the token chosen in Better Stack's template is WEBHOOK_SECRET_UPTIME_MONITOR.
    dashboard = await startDashboard({ env: { WEBHOOK_SECRET_UPTIME_MONITOR: BETTERSTACK_TOKEN } });
    await tokenThenPassword(dashboard);
  });
  afterAll(() => dashboard?.stop());

  const deliver = (body: string, authorization: string, from = '127.0.0.7') =>
    raw(`${dashboard.url}/api/webhooks/uptime_monitor`, { method: 'POST', from, headers: { 'content-type': 'application/json', authorization }, body });

  it('takes a delivery whose bearer is the webhook token (200, stored), and counts none of them as a failed sign-in', async () => {
    for (let i = 0; i < 8; i++) {
      const answer = await deliver(incident('started', { id: String(900 + i) }), `Bearer ${BETTERSTACK_TOKEN}`);
      expect([i, answer.status]).toEqual([i, 200]);
    }
    // Eight deliveries from one address, and that address still signs in (over 5 failures it would be 429).
    const owner = await signIn(dashboard, PASSWORD, { from: '127.0.0.7' });
    expect(owner.status).toBe(303);
    const inbox = await raw(`${dashboard.url}/api/notifications?limit=100`, { headers: { cookie: cookieOf(owner) } });
    const { notifications } = JSON.parse(inbox.body) as { notifications: { integration: string; title: string }[] };
    // One incident of one monitor: the inbox shows it once however often it was sent.
    expect(notifications).toMatchObject([{ integration: 'uptime_monitor', title: expect.stringContaining('Tesla.com homepage') as string }]);
  });

  it('refuses a wrong bearer with the route’s own 401, and stores nothing', async () => {
    const answer = await deliver(incident('resolved', { id: '900' }), 'Bearer not-the-token', '127.0.0.8');
    expect(answer.status).toBe(401);
    expect(answer.body).not.toContain('API token');
    expect(answer.body).not.toContain(BETTERSTACK_TOKEN);
    const owner = cookieOf(await signIn(dashboard, PASSWORD, { from: '127.0.0.9' }));
    const { notifications } = JSON.parse((await raw(`${dashboard.url}/api/notifications?limit=100`, { headers: { cookie: owner } })).body) as { notifications: { resolved: boolean }[] };
    // The forged "resolved" changed nothing: the incident is still open.
    expect(notifications).toMatchObject([{ resolved: false }]);
    // The same delivery with the right token resolves it.
    expect((await deliver(incident('resolved', { id: '900' }), `Bearer ${BETTERSTACK_TOKEN}`, '127.0.0.8')).status).toBe(200);
    const after = JSON.parse((await raw(`${dashboard.url}/api/notifications?limit=100`, { headers: { cookie: owner } })).body) as { notifications: { resolved: boolean }[] };
    expect(after.notifications).toMatchObject([{ resolved: true }]);
  });
});

describe('where signing in leads next', () => {
  let dashboard: RunningDashboard;
  beforeAll(async () => {
    dashboard = await startDashboard();
    await tokenThenPassword(dashboard);
  });
  afterAll(() => dashboard?.stop());

  it('never off the dashboard: next=/%09/evil.example and its kin lead to /', async () => {
    const attacks = ['/%09/evil.example', '/%5Cevil.example', '//evil.example', '/.//evil.example', '/%0d%0a/evil.example', 'https://evil.example/', 'javascript:alert(1)'];
    for (const [i, attack] of attacks.entries()) {
      // As a link would carry it, raw in the query (curl 'http://…/login?next=/%09/evil.example').
      const answer = await signIn(dashboard, PASSWORD, { query: `?next=${attack}`, from: `127.0.1.${i + 1}` });
      expect([attack, answer.status, answer.headers.location]).toEqual([attack, 303, '/']);
    }
    // The same in the form's hidden field, decoded as the browser posts it.
    const posted = await signIn(dashboard, PASSWORD, { next: '/\t/evil.example', from: '127.0.1.20' });
    expect([posted.status, posted.headers.location]).toEqual([303, '/']);
    // The page never writes such a next into its form, and a signed-in visitor is not sent there either.
    const page = await raw(`${dashboard.url}/login?next=/%09/evil.example`);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('evil.example');
    const signedIn = await raw(`${dashboard.url}/login?next=/%09/evil.example`, { headers: { cookie: cookieOf(posted) } });
    expect([signedIn.status, signedIn.headers.location]).toEqual([303, '/']);
  });

  it('answers a form action that does not exist (?/default, ?/nope) with a 404, signs no one in and logs no error', async () => {
    for (const [i, query] of ['?/default', '?/default&next=/settings', '?/nope'].entries()) {
      const page = await signIn(dashboard, PASSWORD, { query, from: `127.0.1.${40 + i}` });
      expect([query, page.status, cookieOf(page)]).toEqual([query, 404, '']);
      // As SvelteKit's enhanced form posts it.
      const enhanced = await signIn(dashboard, PASSWORD, { query, from: `127.0.1.${50 + i}`, headers: { accept: 'application/json', 'x-sveltekit-action': 'true' } });
      expect([query, enhanced.status, cookieOf(enhanced)]).toEqual([query, 404, '']);
    }
    const page = await signIn(dashboard, PASSWORD, { query: '?/default', from: '127.0.1.60' });
    expect(page.body).toContain('No action with name');
    expect(dashboard.output()).not.toMatch(/unhandled error|reserved action name/i);
    // The form's own action still signs in.
    expect((await signIn(dashboard, PASSWORD, { from: '127.0.1.61' })).status).toBe(303);
  });

  it('still goes where a legitimate next says', async () => {
    const answer = await signIn(dashboard, PASSWORD, { query: `?next=${encodeURIComponent('/settings?x=1')}`, from: '127.0.1.30' });
    expect([answer.status, answer.headers.location]).toEqual([303, '/settings?x=1']);
    const page = await raw(`${dashboard.url}/login?next=${encodeURIComponent('/settings?x=1')}`);
    expect(page.body).toContain('value="/settings?x=1"');
  });
});
