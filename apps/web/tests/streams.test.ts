// Live streams end with their sign-in, over real HTTP against the production build: the REST SSE stream
// (GET /api/notifications/stream) with a token or a session cookie, and the tRPC subscription over its SSE
// transport as the dashboard's bell opens it. What ends the sign-in: sign-out, "sign out everywhere" (and
// "others", and one session), a password change, a revoked token, a password set on the open local dashboard.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

const PASSWORD = 'correct horse battery staple';
/** What the issue owes: a stream of an identity that ended is closed within this. */
const OWED_MS = 5_000;

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual' as const,
});

/** Signs in through the login form; answers the session cookie (`name=value`). */
async function signIn(dashboard: RunningDashboard, password = PASSWORD): Promise<string> {
  const answer = await dashboard.fetch('/login', form({ password }));
  expect(answer.status).toBe(303);
  const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('dash_session='));
  expect(cookie).toBeDefined();
  return cookie!.split(';')[0]!;
}

/** The settings page's password form, as the owner sends it; answers the new session cookie when it set one. */
async function setPassword(dashboard: RunningDashboard, fields: Record<string, string>, cookie?: string): Promise<string | undefined> {
  const request = form(fields);
  const answer = await dashboard.fetch('/settings/security?/password', { ...request, headers: { ...request.headers, ...(cookie ? { cookie } : {}) } });
  expect(answer.status, await answer.clone().text()).toBe(200);
  return answer.headers.getSetCookie().find((c) => c.startsWith('dash_session='))?.split(';')[0];
}

/** A tRPC call as the dashboard's client sends it (a one-call batch: a query as GET, a mutation as POST), with `cookie`. */
async function trpc(dashboard: RunningDashboard, path: string, cookie: string, input?: unknown) {
  const batch = JSON.stringify(input === undefined ? {} : { 0: input });
  const answer = path.endsWith('.list')
    ? await dashboard.fetch(`/api/trpc/${path}?batch=1&input=${encodeURIComponent(batch)}`, { headers: { cookie } })
    : await dashboard.fetch(`/api/trpc/${path}?batch=1`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: batch });
  expect(answer.status, await answer.clone().text()).toBe(200);
  return ((await answer.json()) as [{ result: { data: unknown } }])[0].result.data;
}

/** A stream read as an EventSource reads it: its events as they come, and when (if) the server ended it. */
interface OpenStream {
  events: Record<string, string>[];
  /** Milliseconds after `since()` at which the response ended; waits at most `ms`, else undefined. */
  endedWithin(ms: number): Promise<number | undefined>;
  /** Marks now as the moment the sign-in was ended. */
  since(): void;
  close(): void;
}

async function openStream(url: string, headers: Record<string, string>): Promise<OpenStream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  expect(response.status, await (response.status === 200 ? Promise.resolve('') : response.text())).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: Record<string, string>[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let endedAt: number | undefined;
  let mark = performance.now();
  const pump = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const fields: Record<string, string> = {};
          for (const line of buffer.slice(0, end).split('\n')) {
            if (line.startsWith(':') || line === '') continue;
            const colon = line.indexOf(':');
            fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
          }
          buffer = buffer.slice(end + 2);
          if (Object.keys(fields).length > 0) events.push(fields);
        }
      }
      endedAt = performance.now();
    } catch {
      // Aborted by close(): the test went away, the server did not end it.
    }
  })();
  return {
    events,
    since: () => (mark = performance.now()),
    async endedWithin(ms) {
      await Promise.race([pump, new Promise((resolve) => setTimeout(resolve, ms))]);
      return endedAt === undefined ? undefined : endedAt - mark;
    },
    close: () => abort.abort(),
  };
}

describe('live streams end with their sign-in (a local dashboard with a password)', () => {
  let dashboard: RunningDashboard;
  /** The owner's own session: it makes and revokes tokens, and changes the password at the end. */
  let owner: string;
  const streams: OpenStream[] = [];
  const rest = (headers: Record<string, string>) => openStream(`${dashboard.url}/api/notifications/stream`, headers).then((s) => (streams.push(s), s));
  /** The bell's subscription: GET /api/trpc/notifications.stream, as httpSubscriptionLink's EventSource opens it. */
  const bell = (cookie: string) => openStream(`${dashboard.url}/api/trpc/notifications.stream`, { cookie }).then((s) => (streams.push(s), s));

  beforeAll(async () => {
    dashboard = await startDashboard();
    await setPassword(dashboard, { newPassword: PASSWORD, confirm: PASSWORD });
    owner = await signIn(dashboard);
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await dashboard?.stop();
  });

  async function newToken(name: string): Promise<{ id: string; token: string }> {
    const answer = await dashboard.fetch('/api/tokens', {
      method: 'POST',
      headers: { cookie: owner, 'content-type': 'application/json' },
      body: JSON.stringify({ name, scope: 'read', password: PASSWORD }),
    });
    expect(answer.status, await answer.clone().text()).toBe(201);
    return (await answer.json()) as { id: string; token: string };
  }

  it('ends a token’s REST stream when the token is revoked, and not another token’s', async () => {
    const [revoked, kept] = [await newToken('revoked'), await newToken('kept')];
    const [stream, other] = [await rest({ authorization: `Bearer ${revoked.token}` }), await rest({ authorization: `Bearer ${kept.token}` })];
    expect(stream.events[0]).toEqual({ retry: '5000' });

    stream.since();
    const answer = await dashboard.fetch(`/api/tokens/${revoked.id}`, { method: 'DELETE', headers: { cookie: owner } });
    expect(await answer.json()).toEqual({ ok: true, removed: true });
    expect(await stream.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
    expect(await other.endedWithin(500)).toBeUndefined();
    // Its EventSource reconnects, and is refused.
    const again = await fetch(`${dashboard.url}/api/notifications/stream`, { headers: { authorization: `Bearer ${revoked.token}` } });
    expect(again.status).toBe(401);
  });

  it('ends a session’s REST stream and bell at sign-out (POST /logout), and not another session’s', async () => {
    const [leaving, staying] = [await signIn(dashboard), await signIn(dashboard)];
    const [restStream, bellStream, other] = [await rest({ cookie: leaving }), await bell(leaving), await bell(staying)];
    expect(bellStream.events[0]).toMatchObject({ event: 'connected' });

    restStream.since();
    bellStream.since();
    const logout = await dashboard.fetch('/logout', { ...form({}), headers: { ...form({}).headers, cookie: leaving } });
    expect([logout.status, logout.headers.get('location')]).toEqual([303, '/login']);
    expect(await restStream.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
    expect(await bellStream.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
    // The subscription ends as tRPC ends one, so the client completes instead of reconnecting.
    expect(bellStream.events.at(-1)).toMatchObject({ event: 'return' });
    expect(await other.endedWithin(500)).toBeUndefined();
    expect((await fetch(`${dashboard.url}/api/trpc/notifications.stream`, { headers: { cookie: leaving } })).status).toBe(401);
  });

  it('ends the streams of one ended session, of "sign out others", and of "sign out everywhere"', async () => {
    const [one, two, three] = [await signIn(dashboard), await signIn(dashboard), await signIn(dashboard)];
    const [streamOne, streamTwo, streamThree] = [await bell(one), await rest({ cookie: two }), await bell(three)];
    const ownerStream = await bell(owner);

    // Settings → Security: sign out one session, from another browser.
    const sessions = (await trpc(dashboard, 'sessions.list', one)) as { sessions: { id: string; current: boolean }[] };
    const idOfOne = sessions.sessions.find((s) => s.current)!.id;
    streamOne.since();
    expect(await trpc(dashboard, 'sessions.remove', three, { id: idOfOne })).toEqual({ ok: true, removed: true });
    expect(await streamOne.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
    expect(await streamTwo.endedWithin(300)).toBeUndefined();

    // "Sign out others" from `three`: two's and the owner's end, three's stays.
    streamTwo.since();
    ownerStream.since();
    await trpc(dashboard, 'sessions.removeOthers', three);
    expect(await streamTwo.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
    expect(await ownerStream.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
    expect(await streamThree.endedWithin(300)).toBeUndefined();

    // "Sign out everywhere" from `three`: its own stream ends too.
    streamThree.since();
    await trpc(dashboard, 'sessions.removeAll', three);
    expect(await streamThree.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
    owner = await signIn(dashboard);
  });

  it('ends every other session’s streams at a password change, and keeps the changer’s', async () => {
    const other = await signIn(dashboard);
    const token = await newToken('survives a password change');
    const [otherRest, otherBell, ownerBell, tokenStream] = [await rest({ cookie: other }), await bell(other), await bell(owner), await rest({ authorization: `Bearer ${token.token}` })];
    otherRest.since();
    otherBell.since();
    await setPassword(dashboard, { currentPassword: PASSWORD, newPassword: `${PASSWORD} 2`, confirm: `${PASSWORD} 2` }, owner);
    expect(await otherRest.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
    expect(await otherBell.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
    // API tokens are not sessions: a password change leaves them (README: revoke them in settings).
    expect(await ownerBell.endedWithin(300)).toBeUndefined();
    expect(await tokenStream.endedWithin(300)).toBeUndefined();
  });
});

describe('the open local dashboard’s streams', () => {
  let dashboard: RunningDashboard;
  beforeAll(async () => (dashboard = await startDashboard()));
  afterAll(() => dashboard?.stop());

  it('end when a password is set, and the setter’s new session streams on', async () => {
    const restStream = await openStream(`${dashboard.url}/api/notifications/stream`, {});
    const bellStream = await openStream(`${dashboard.url}/api/trpc/notifications.stream`, {});
    restStream.since();
    bellStream.since();
    const cookie = await setPassword(dashboard, { newPassword: PASSWORD, confirm: PASSWORD });
    expect(cookie).toBeDefined();
    expect(await restStream.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
    expect(await bellStream.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
    expect((await fetch(`${dashboard.url}/api/notifications/stream`)).status).toBe(401);
    const setter = await openStream(`${dashboard.url}/api/trpc/notifications.stream`, { cookie: cookie! });
    expect(await setter.endedWithin(500)).toBeUndefined();
    setter.close();
  });
});

describe('a sign-in ended by another process', () => {
  it('ends its streams by the re-check every 2 s (npm run reset-password, no signal in the server)', async () => {
    const key = randomBytes(32).toString('hex');
    const dashboard = await startDashboard({ env: { CREDENTIALS_KEY: key } });
    try {
      await setPassword(dashboard, { newPassword: PASSWORD, confirm: PASSWORD });
      const cookie = await signIn(dashboard);
      const [restStream, bellStream] = [await openStream(`${dashboard.url}/api/notifications/stream`, { cookie }), await openStream(`${dashboard.url}/api/trpc/notifications.stream`, { cookie })];
      const webDir = fileURLToPath(new URL('..', import.meta.url));
      const { stdout } = await promisify(execFile)(process.execPath, [join(webDir, 'build/reset-password.js')], {
        cwd: join(webDir, '../..'),
        env: {
          PATH: process.env.PATH,
          HOST: '127.0.0.1',
          DATA_DIR: dashboard.dataDir,
          DATABASE_URL: `file:${join(dashboard.dataDir, 'dashboard.db')}`,
          MIGRATIONS_DIR: join(webDir, '../../drizzle'),
          CREDENTIALS_KEY: key,
        },
      });
      expect(stdout).toContain('every session signed out');
      // Owed from when the sessions ended (the command's end), not from its start: a process of its own that opens the
      // database takes its own while on a busy machine (6 s once on CI, with the re-check as quick as ever).
      restStream.since();
      bellStream.since();
      expect(await restStream.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
      expect(await bellStream.endedWithin(OWED_MS)).toBeLessThan(OWED_MS);
    } finally {
      await dashboard.stop();
    }
  });
});

describe('the dashboard in a browser', () => {
  it('goes to sign in once its session ends elsewhere, without reopening the stream', async () => {
    const [dashboard, browser] = await Promise.all([startDashboard(), launchChromium()]);
    try {
      await setPassword(dashboard, { newPassword: PASSWORD, confirm: PASSWORD });
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${dashboard.url}/login`);
      await page.getByLabel('Password').fill(PASSWORD);
      const streaming = page.waitForRequest((request) => request.url().includes('/api/trpc/notifications.stream'));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${dashboard.url}/`);
      await streaming;
      let reopened = 0;
      page.on('request', (request) => void (request.url().includes('/api/trpc/notifications.stream') && reopened++));

      // Another browser ends every session ("sign out everywhere" from Settings → Security).
      const other = await signIn(dashboard);
      await trpc(dashboard, 'sessions.removeAll', other);
      const started = performance.now();
      await page.waitForURL(`${dashboard.url}/login?next=%2F`, { timeout: OWED_MS });
      expect(performance.now() - started).toBeLessThan(OWED_MS);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(reopened).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
      await dashboard.stop();
    }
  });
});
