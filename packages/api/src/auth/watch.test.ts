// Live streams end with their sign-in: Access.stillValid, the in-process signal, watchSignIn, and the
// notifications.stream subscription through a server-side caller.
import { afterEach, describe, expect, it } from 'vitest';
import { createCaller } from '../root.ts';
import { createTestApi } from '../testing.ts';
import type { AccessOptions, Identity } from './access.ts';
import { watchSignIn } from './watch.ts';

const PASSWORD = 'correct horse battery staple';
const DAY = 86_400_000;
const open_: Identity = { via: 'open', scope: 'write' };
const client = { ip: '203.0.113.7', userAgent: 'test' };

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const done of cleanup.splice(0).reverse()) await done();
});

async function open(access: Partial<AccessOptions> = {}) {
  const clock = { now: Date.parse('2026-11-23T10:00:00Z') };
  const api = await createTestApi({ access: { mode: 'local', now: () => clock.now, ...access } });
  cleanup.push(() => api.dispose());
  const as = (identity: Identity | undefined, signal?: AbortSignal) => createCaller({ ...api.ctx, request: { identity, ...client } }, signal);
  /** Counts the signal Access gives. */
  let signals = 0;
  cleanup.push(api.ctx.access.onSignInsEnded(() => signals++));
  return { ...api, clock, access: api.ctx.access, as, signals: () => signals };
}

type Api = Awaited<ReturnType<typeof open>>;

async function withPassword() {
  const api = await open();
  await api.as(open_).auth.changePassword({ newPassword: PASSWORD });
  return api;
}

async function signIn(api: Api): Promise<Identity> {
  const { token } = await api.as(undefined).auth.login({ password: PASSWORD });
  const session = await api.access.session(token);
  if (!session) throw new Error('no session');
  return { via: 'session', scope: 'write', sessionId: session.sessionId };
}

async function newToken(api: Api, session: Identity, expiresInDays?: number): Promise<Identity> {
  const created = await api.as(session).tokens.create({ name: 'script', scope: 'read', password: PASSWORD, ...(expiresInDays ? { expiresInDays } : {}) });
  return { via: 'token', scope: 'read', tokenId: created.id };
}

const waitFor = async (condition: () => boolean, ms: number) => {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return condition();
};

describe('Access.stillValid', () => {
  it('holds for a stored session until it is signed out, and moves no last-seen time', async () => {
    const api = await withPassword();
    const session = await signIn(api);
    if (session.via !== 'session') throw new Error('unreachable');
    const seen = (await api.store.auth.sessions.get(session.sessionId))?.lastSeenAt;
    api.clock.now += 2 * 3_600_000;
    expect(await api.access.stillValid(session)).toBe(true);
    expect((await api.store.auth.sessions.get(session.sessionId))?.lastSeenAt).toBe(seen);
    await api.as(session).auth.logout();
    expect(await api.access.stillValid(session)).toBe(false);
  });

  it('ends a session past its idle or absolute lifetime', async () => {
    const api = await withPassword();
    const session = await signIn(api);
    api.clock.now += 7 * DAY + 1;
    expect(await api.access.stillValid(session)).toBe(false);
  });

  it('holds for a token until it is revoked or expires', async () => {
    const api = await withPassword();
    const session = await signIn(api);
    const revoked = await newToken(api, session);
    const expiring = await newToken(api, session, 1);
    const kept = await newToken(api, session);
    expect(await Promise.all([revoked, expiring, kept].map((t) => api.access.stillValid(t)))).toEqual([true, true, true]);
    if (revoked.via !== 'token') throw new Error('unreachable');
    await api.as(session).tokens.remove({ id: revoked.tokenId });
    api.clock.now += DAY + 1;
    expect(await Promise.all([revoked, expiring, kept].map((t) => api.access.stillValid(t)))).toEqual([false, false, true]);
  });

  it('holds for the open local dashboard until a password is set; never on a remote one', async () => {
    const api = await open();
    expect(await api.access.stillValid(open_)).toBe(true);
    await api.as(open_).auth.changePassword({ newPassword: PASSWORD });
    expect(await api.access.stillValid(open_)).toBe(false);
    const remote = await open({ mode: 'remote', origin: 'https://dash.example.com' });
    expect(await remote.access.stillValid(open_)).toBe(false);
  });
});

describe('the signal Access gives when sign-ins end', () => {
  it('fires for sign-out, ended sessions, a password set or changed, a revoked token; not for what ends nothing', async () => {
    const api = await open();
    await api.as(open_).auth.changePassword({ newPassword: PASSWORD }); // the setter gets a session
    expect(api.signals()).toBe(1);
    const [a, b, c] = [await signIn(api), await signIn(api), await signIn(api)];
    expect(api.signals()).toBe(1);
    await api.as(c).auth.logout();
    expect(api.signals()).toBe(2);
    await api.as(c).auth.logout(); // already gone: nothing ended
    expect(api.signals()).toBe(2);
    if (b.via !== 'session') throw new Error('unreachable');
    await api.as(a).sessions.remove({ id: b.sessionId });
    expect(api.signals()).toBe(3);
    await api.as(a).sessions.remove({ id: b.sessionId });
    expect(api.signals()).toBe(3);
    await api.as(a).sessions.removeOthers(); // the setter's
    expect(api.signals()).toBe(4);
    await api.as(a).sessions.removeOthers(); // a is the only one left
    expect(api.signals()).toBe(4);
    const d = await signIn(api);
    await api.as(a).sessions.removeOthers();
    expect(api.signals()).toBe(5);
    expect(await api.access.stillValid(d)).toBe(false);
    const token = await newToken(api, a);
    expect(api.signals()).toBe(5);
    if (token.via !== 'token') throw new Error('unreachable');
    await api.as(a).tokens.remove({ id: token.tokenId });
    expect(api.signals()).toBe(6);
    await api.as(a).auth.changePassword({ currentPassword: PASSWORD, newPassword: `${PASSWORD} 2` });
    expect(api.signals()).toBe(7);
    await api.as(a).sessions.removeAll();
    expect(api.signals()).toBe(8);
    expect(await api.access.stillValid(a)).toBe(false);
  });
});

describe('watchSignIn', () => {
  it('aborts at once when this process ends the sign-in, and leaves other sign-ins alone', async () => {
    const api = await withPassword();
    const [a, b] = [await signIn(api), await signIn(api)];
    // A check every minute: only the signal can end it within the test.
    const [watchA, watchB] = [watchSignIn(api.access, a, 60_000), watchSignIn(api.access, b, 60_000)];
    cleanup.push(watchA.stop, watchB.stop);
    await api.as(a).auth.logout();
    expect(await waitFor(() => watchA.signal.aborted, 1_000)).toBe(true);
    expect(watchB.signal.aborted).toBe(false);
  });

  it('aborts within its interval when another process ends the sign-in (no signal here)', async () => {
    const api = await withPassword();
    const session = await signIn(api);
    const token = await newToken(api, session);
    const watches = [watchSignIn(api.access, session, 50), watchSignIn(api.access, token, 50)];
    cleanup.push(...watches.map((watch) => watch.stop));
    if (session.via !== 'session' || token.via !== 'token') throw new Error('unreachable');
    // What another dashboard process on the same database does: the rows go, this Access is not told.
    await api.store.auth.tokens.remove(token.tokenId);
    expect(await waitFor(() => watches[1]!.signal.aborted, 1_000)).toBe(true);
    expect(watches[0]!.signal.aborted).toBe(false);
    await api.store.auth.sessions.remove(session.sessionId);
    expect(await waitFor(() => watches[0]!.signal.aborted, 1_000)).toBe(true);
    expect(api.signals()).toBe(1); // only the first password
  });

  it('watches nothing for the server calling itself, and stops when told', async () => {
    const api = await withPassword();
    const session = await signIn(api);
    const unwatched = watchSignIn(api.access, undefined, 50);
    const stopped = watchSignIn(api.access, session, 50);
    stopped.stop();
    await api.as(session).auth.logout();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect([unwatched.signal.aborted, stopped.signal.aborted]).toEqual([false, false]);
  });
});

describe('notifications.stream', () => {
  /** Opens the live stream as `identity`; `ended` settles with how long it took to end once `since` is set. */
  async function subscribe(api: Api, identity: Identity) {
    const abort = new AbortController();
    cleanup.push(() => abort.abort());
    const stream = (await api.as(identity, abort.signal).notifications.stream()) as AsyncIterable<unknown>;
    const iterator = stream[Symbol.asyncIterator]();
    let done = false;
    const ended = (async () => {
      for (;;) if ((await iterator.next()).done) return (done = true);
    })();
    // Let the subscription start listening before the test acts.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { ended, isDone: () => done };
  }

  it('ends the stream of a session that signs out, of the sessions a password change ends, and of a revoked token; others stay', async () => {
    const api = await withPassword();
    const [a, b, c] = [await signIn(api), await signIn(api), await signIn(api)];
    const token = await newToken(api, a);
    const [streamA, streamB, streamC, streamToken] = [await subscribe(api, a), await subscribe(api, b), await subscribe(api, c), await subscribe(api, token)];

    await api.as(c).auth.logout();
    expect(await waitFor(streamC.isDone, 1_000)).toBe(true);
    expect([streamA.isDone(), streamB.isDone(), streamToken.isDone()]).toEqual([false, false, false]);

    if (token.via !== 'token') throw new Error('unreachable');
    await api.as(a).tokens.remove({ id: token.tokenId });
    expect(await waitFor(streamToken.isDone, 1_000)).toBe(true);

    await api.as(a).auth.changePassword({ currentPassword: PASSWORD, newPassword: `${PASSWORD} 2` });
    expect(await waitFor(streamB.isDone, 1_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(streamA.isDone()).toBe(false);
  });

  it('ends the open dashboard’s stream when a password is set', async () => {
    const api = await open();
    const stream = await subscribe(api, open_);
    await api.as(open_).auth.changePassword({ newPassword: PASSWORD });
    expect(await waitFor(stream.isDone, 1_000)).toBe(true);
  });
});
