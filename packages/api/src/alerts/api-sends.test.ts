import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testClock } from '@dash/connectors/testing';
import { sandboxEmail, sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import type { Identity } from '../auth/access.ts';
import { createCaller } from '../root.ts';
import { createTestApi, restClient, testDatabases } from '../testing.ts';
import { API_SEND_WINDOW_MS, API_SENDS_PER_CALLER, API_SENDS_PER_INSTALLATION } from './api-sends.ts';

type Clock = ReturnType<typeof testClock>;

const MINUTE = 60_000;
const open: Identity = { via: 'open', scope: 'write' };
const session: Identity = { via: 'session', scope: 'write', sessionId: 'sess1' };

let sandbox: Sandbox;
const databases = testDatabases();
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
  await databases.drop();
});
beforeEach(() => sandbox.reset());
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A dashboard whose alerts go to the fake SendGrid (or nowhere: `email: 'none'`), on `clock`. */
async function dashboard(clock: Clock, options: { databaseUrl?: string | undefined; email?: 'none' } = {}) {
  const api = await createTestApi({
    clock,
    scheduler: false,
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
    email:
      options.email === 'none'
        ? {}
        : { SENDGRID_API_KEY: sandboxTokens.sendgrid, ALERT_EMAIL_FROM: sandboxEmail.from, ALERT_EMAIL_TO: 'founder@example.com', SENDGRID_API_URL: sandbox.services.sendgrid.url },
  });
  cleanup.push(() => api.dispose());
  const as = (identity: Identity) => restClient(() => createCaller({ ...api.ctx, request: { ip: '203.0.113.9', userAgent: 'curl/8.5.0', identity } }));
  /** A write token made by the owner, as Settings makes it: its identity and its REST client. */
  const token = async (name: string) => {
    const created = await createCaller({ ...api.ctx, request: { ip: '203.0.113.9', userAgent: 'test', identity: open } }).tokens.create({ name, scope: 'write' });
    const identity: Identity = { via: 'token', scope: 'write', tokenId: created.id };
    return { identity, rest: as(identity) };
  };
  return { api, as, token };
}

const health = { type: 'health', monitors: [{ name: 'API', status: 'down', url: 'https://api.example.com' }] };
const custom = (n: number) => ({ type: 'custom', subject: `Report ${n}`, html: `<p>Report ${n}</p>` });
type Rest = ReturnType<typeof restClient>;
const send = (rest: Rest, n: number) => rest('POST', '/api/alerts/send', n % 2 ? health : custom(n));

describe('the limit of POST /api/alerts/send', () => {
  it('lets a write token send 10 in an hour (health and custom alike), answers the 11th 429 with Retry-After, and sends nothing', async () => {
    expect([API_SENDS_PER_CALLER, API_SENDS_PER_INSTALLATION, API_SEND_WINDOW_MS]).toEqual([10, 30, 3_600_000]);
    const clock = testClock(Date.parse('2026-12-07T09:00:00Z'));
    const { token } = await dashboard(clock);
    const { rest } = await token('uptime cron');
    for (let n = 0; n < 10; n++) {
      expect((await send(rest, n)).json, `send ${n + 1}`).toMatchObject({ sent: true });
      clock.advance(MINUTE);
    }
    // 09:10: the first send's place frees at 10:00.
    const refused = await send(rest, 10);
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '3000']);
    expect(refused.json).toEqual({
      error: {
        code: 'TOO_MANY_REQUESTS',
        message: 'At most 10 emails an hour per API token through POST /api/alerts/send: try again in 3000 s (at 2026-12-07T10:00:00Z).',
      },
    });
    expect((await send(rest, 11)).status).toBe(429);
    expect(sandbox.mails()).toHaveLength(10);
    expect(sandbox.requestsTo('sendgrid', '/v3/mail/send')).toHaveLength(10);

    // An hour after the first send, one place is free again, and only one.
    clock.advance(50 * MINUTE);
    expect((await send(rest, 12)).json).toMatchObject({ sent: true });
    const next = await send(rest, 13);
    expect([next.status, next.headers.get('retry-after')]).toEqual([429, '60']);
    expect(sandbox.mails()).toHaveLength(11);
  });

  it('gives each token and the owner their own 10, and holds the whole dashboard to 30', async () => {
    const clock = testClock(Date.parse('2026-12-07T09:00:00Z'));
    const { as, token } = await dashboard(clock);
    const [a, b, c] = await Promise.all([token('a'), token('b'), token('c')]);
    const owner = as(session);
    for (const caller of [a.rest, b.rest, owner]) {
      for (let n = 0; n < 10; n++) expect((await send(caller, n)).status).toBe(200);
    }
    // The owner's open local dashboard is the same caller as the owner's session.
    expect((await send(as(open), 0)).json).toMatchObject({ error: { message: expect.stringMatching(/^At most 10 emails an hour for the owner \(signed in, or the local dashboard\)/) as string } });
    expect((await send(a.rest, 10)).json).toMatchObject({ error: { message: expect.stringMatching(/^At most 10 emails an hour per API token/) as string } });
    // A fourth caller with its whole quota left meets the dashboard's 30.
    for (let n = 0; n < 3; n++) {
      const refused = await send(c.rest, n);
      expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '3600']);
      expect(refused.json).toMatchObject({
        error: { message: 'At most 30 emails an hour in all through POST /api/alerts/send: try again in 3600 s (at 2026-12-07T10:00:00Z).' },
      });
    }
    expect(sandbox.mails()).toHaveLength(30);
    // Refused by the dashboard's cap, it spent none of its own: after the hour it has all 10.
    clock.advance(API_SEND_WINDOW_MS);
    for (let n = 0; n < 10; n++) expect((await send(c.rest, n)).status).toBe(200);
    expect((await send(c.rest, 10)).status).toBe(429);
  });

  it('answers { configured: false } before any limit: calls while email is not set up spend nothing', async () => {
    const clock = testClock();
    const { token } = await dashboard(clock, { email: 'none' });
    const { rest } = await token('uptime cron');
    for (let n = 0; n < 12; n++) expect((await send(rest, n)).json).toEqual({ configured: false });
    expect(sandbox.mails()).toHaveLength(0);
  });

  it('holds across two processes on one database: one token gets 10 of 15 concurrent sends, the dashboard 30 in all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dash-api-sends-'));
    cleanup.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    const { databaseUrl, drop } = await databases.fresh('Postgres', dir);
    cleanup.push(drop);
    const clock = testClock(Date.parse('2026-12-07T09:00:00Z'));
    // Two dashboard processes: each its own context and its own connection to the one database.
    const first = await dashboard(clock, { databaseUrl });
    const second = await dashboard(clock, { databaseUrl });
    const script = await first.token('uptime cron');
    const there = second.as(script.identity);

    const answers = await Promise.all(Array.from({ length: 15 }, (_, n) => send(n % 2 ? there : script.rest, n)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(5);
    for (const answer of refused) expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(sandbox.mails()).toHaveLength(10);

    // Two more tokens, one in each process, and the owner in both: 30 in all, then nobody.
    const other = await second.token('deploy hook');
    for (let n = 0; n < 10; n++) expect((await send(n % 2 ? first.as(other.identity) : other.rest, n)).status).toBe(200);
    for (let n = 0; n < 10; n++) expect((await send((n % 2 ? first : second).as(session), n)).status).toBe(200);
    const fourth = await first.token('fourth');
    for (const rest of [fourth.rest, second.as(fourth.identity)]) {
      const answer = await send(rest, 0);
      expect([answer.status, answer.json]).toMatchObject([429, { error: { message: expect.stringMatching(/^At most 30 emails an hour in all/) as string } }]);
    }
    expect(sandbox.mails()).toHaveLength(30);
  });
});

describe("the footer of a custom email sent through the API", () => {
  it('names the token that sent it, escaped, in the HTML and the plain text; the owner as the owner', async () => {
    const { as, token } = await dashboard(testClock());
    const { rest } = await token('ops <b>cron</b> & "more"');
    expect((await rest('POST', '/api/alerts/send', custom(1))).status).toBe(200);
    const [mail] = sandbox.mails();
    expect(mail?.html).toContain('<p>Report 1</p>');
    expect(mail?.html).toContain('Sent through your founder dashboard&#39;s API by the token “ops &lt;b&gt;cron&lt;/b&gt; &amp; &quot;more&quot;”.');
    expect(mail?.html).not.toContain('<b>cron');
    expect(mail?.text).toMatch(/Report 1\n\nSent through your founder dashboard's API by the token “ops <b>cron<\/b> & "more"”\.$/);

    await as(session)('POST', '/api/alerts/send', custom(2));
    await as(open)('POST', '/api/alerts/send', custom(3));
    expect(sandbox.mails()[1]?.text).toMatch(/by its owner, signed in\.$/);
    expect(sandbox.mails()[2]?.text).toMatch(/from the local dashboard, which has no password\.$/);
  });
});
