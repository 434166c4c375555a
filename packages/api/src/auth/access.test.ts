import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pushDeviceRow } from '@dash/db/testing';
import { hash } from '@node-rs/argon2';
import { afterEach, describe, expect, it } from 'vitest';
import { createCaller } from '../root.ts';
import { createTestApi } from '../testing.ts';
import { endpointRef } from '../push/adapter.ts';
import type { AccessOptions, Identity } from './access.ts';
import { ThrottledError } from './throttle.ts';

const PASSWORD = 'correct horse battery staple';
const DAY = 86_400_000;

const apis: Awaited<ReturnType<typeof createTestApi>>[] = [];
afterEach(async () => {
  await Promise.all(apis.splice(0).map((api) => api.dispose()));
});

/** A test api whose clock the test moves. */
async function open(access: Partial<AccessOptions> = {}) {
  const clock = { now: Date.parse('2026-11-23T10:00:00Z') };
  const api = await createTestApi({ access: { mode: 'local', now: () => clock.now, ...access } });
  apis.push(api);
  const as = (identity: Identity | undefined, ip = '203.0.113.7') => createCaller({ ...api.ctx, request: { identity, ip, userAgent: 'test' } });
  return { ...api, clock, access: api.ctx.access, as };
}

const open_: Identity = { via: 'open', scope: 'write' };
const sessionOf = async (api: Awaited<ReturnType<typeof open>>, token: string): Promise<Identity> => {
  const session = await api.access.session(token);
  if (!session) throw new Error('no session');
  return { via: 'session', scope: 'write', sessionId: session.sessionId };
};

describe('a local dashboard', () => {
  it('is open until a password is set, then asks for it, and the setter stays signed in', async () => {
    const api = await open();
    expect(await api.access.required()).toBe(false);
    const { session } = await api.as(open_).auth.changePassword({ newPassword: PASSWORD });
    expect(session).not.toBeNull();
    expect(await api.access.required()).toBe(true);
    expect(await api.access.session(session?.token ?? '')).toMatchObject({ sessionId: expect.any(String) });
    expect(await api.as(await sessionOf(api, session?.token ?? '')).auth.status()).toMatchObject({ mode: 'local', passwordSet: true, via: 'session' });
  });

  it('stores only an argon2id hash of the password, and only SHA-256 of a session secret', async () => {
    const api = await open();
    const { session } = await api.as(open_).auth.changePassword({ newPassword: PASSWORD });
    const owner = await api.store.auth.owner();
    expect(owner?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const file = readFileSync(api.dbFile).toString('latin1');
    expect(file).not.toContain(PASSWORD);
    expect(file).not.toContain(session?.token.split('.')[1]);
  });

  it('refuses a password shorter than 12 characters', async () => {
    const api = await open();
    await expect(api.as(open_).auth.changePassword({ newPassword: 'short' })).rejects.toThrow(/at least 12 characters/);
    expect(await api.access.required()).toBe(false);
  });
});

describe('signing in', () => {
  async function withPassword() {
    const api = await open();
    await api.as(open_).auth.changePassword({ newPassword: PASSWORD });
    return api;
  }

  it('gives a session for the right password and one generic refusal for a wrong one', async () => {
    const api = await withPassword();
    await expect(api.as(undefined).auth.login({ password: 'not the password' })).rejects.toThrow('That password is not right.');
    const { token, maxAgeSeconds } = await api.as(undefined).auth.login({ password: PASSWORD });
    expect(maxAgeSeconds).toBe(7 * 86_400);
    expect(await api.access.session(token)).toBeDefined();
    expect(await api.access.session(`${token.slice(0, -1)}x`)).toBeUndefined();
  });

  it('throttles an address after 5 failures in 5 minutes, even for the right password, and not the next address', async () => {
    const api = await withPassword();
    for (let i = 0; i < 5; i++) await expect(api.as(undefined, '198.51.100.1').auth.login({ password: `wrong ${i}` })).rejects.toThrow(/not right/);
    const refused = api.as(undefined, '198.51.100.1').auth.login({ password: PASSWORD });
    await expect(refused).rejects.toBeInstanceOf(ThrottledError);
    await expect(refused).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS', retryAfterSeconds: expect.any(Number) });
    await expect(api.as(undefined, '198.51.100.2').auth.login({ password: PASSWORD })).resolves.toMatchObject({ token: expect.any(String) });
  });

  it('never throttles an address for the failures of others, however many addresses fail', async () => {
    const api = await withPassword();
    for (let i = 0; i < 60; i++) await expect(api.as(undefined, `198.51.100.${i}`).auth.login({ password: 'wrong' })).rejects.toThrow(/not right/);
    // The same client over its budget is throttled; the owner from anywhere else signs in at once.
    for (let i = 0; i < 5; i++) await expect(api.as(undefined, '203.0.113.66').auth.login({ password: 'wrong' })).rejects.toThrow(/not right/);
    await expect(api.as(undefined, '203.0.113.66').auth.login({ password: PASSWORD })).rejects.toBeInstanceOf(ThrottledError);
    await expect(api.as(undefined, '192.0.2.99').auth.login({ password: PASSWORD })).resolves.toMatchObject({ token: expect.any(String) });
  });

  it('counts an IPv6 client by its /64, so fresh addresses from one network buy no more guesses', async () => {
    const api = await withPassword();
    for (let i = 1; i <= 5; i++) await expect(api.as(undefined, `2001:db8:7:1::${i}`).auth.login({ password: 'wrong' })).rejects.toThrow(/not right/);
    await expect(api.as(undefined, '2001:db8:7:1:ffff::9').auth.login({ password: PASSWORD })).rejects.toBeInstanceOf(ThrottledError);
    await expect(api.as(undefined, '2001:db8:7:2::1').auth.login({ password: PASSWORD })).resolves.toMatchObject({ token: expect.any(String) });
  });

  it('runs at most two password hashes at once, however many sign-ins arrive together', async () => {
    const api = await withPassword();
    api.access.hasher.peak = 0;
    const attempts = Array.from({ length: 50 }, (_, i) => api.as(undefined, i < 25 ? `10.0.0.${i}` : '10.9.9.9').auth.login({ password: i === 0 ? PASSWORD : 'wrong' }));
    const results = await Promise.allSettled(attempts);
    expect(api.access.hasher.peak).toBe(2);
    // Each attempt takes its point before hashing: 25 parallel guesses from one address got 5 checked, the rest
    // were throttled; the 25 other addresses were each checked, the right password among them signed in.
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof ThrottledError).length).toBe(20);
    expect(results[0]).toMatchObject({ status: 'fulfilled' });
  });

  it('ends a session after 7 idle days and after 30 days in any case, and renews one in use', async () => {
    const api = await withPassword();
    const { token } = await api.as(undefined).auth.login({ password: PASSWORD });
    api.clock.now += 6 * DAY;
    expect(await api.access.session(token)).toMatchObject({ renew: { token, maxAgeSeconds: 7 * 86_400 } });
    for (let day = 0; day < 4; day++) {
      api.clock.now += 6 * DAY;
      expect(await api.access.session(token)).toBeDefined();
    }
    api.clock.now += 6 * DAY; // 30 days since sign-in, used every 6 days
    expect(await api.access.session(token)).toBeUndefined();

    const idle = await api.as(undefined, '192.0.2.1').auth.login({ password: PASSWORD });
    api.clock.now += 7 * DAY + 1;
    expect(await api.access.session(idle.token)).toBeUndefined();
    // An ended session is removed, not just refused.
    const left = (await api.store.auth.sessions.list()).map((s) => s.id);
    expect(left).not.toContain(token.split('.')[0]);
    expect(left).not.toContain(idle.token.split('.')[0]);
  });

  it('logs one session out, and a password change ends every other one', async () => {
    const api = await withPassword();
    const [a, b, c] = await Promise.all(['192.0.2.1', '192.0.2.2', '192.0.2.3'].map((ip) => api.as(undefined, ip).auth.login({ password: PASSWORD })));
    await api.as(await sessionOf(api, c?.token ?? '')).auth.logout();
    expect(await api.access.session(c?.token ?? '')).toBeUndefined();

    const me = await sessionOf(api, a?.token ?? '');
    await expect(api.as(me).auth.changePassword({ currentPassword: 'wrong', newPassword: 'another long password' })).rejects.toThrow('The current password is not right.');
    expect(await api.as(me).auth.changePassword({ currentPassword: PASSWORD, newPassword: 'another long password' })).toEqual({ ok: true, session: null, devicesRemoved: true });
    expect(await api.access.session(a?.token ?? '')).toBeDefined();
    expect(await api.access.session(b?.token ?? '')).toBeUndefined();
    await expect(api.as(undefined).auth.login({ password: PASSWORD })).rejects.toThrow(/not right/);
  });

  it('signs out everywhere, or everywhere else', async () => {
    const api = await withPassword();
    const [a, b] = await Promise.all(['192.0.2.1', '192.0.2.2'].map((ip) => api.as(undefined, ip).auth.login({ password: PASSWORD })));
    const me = await sessionOf(api, a?.token ?? '');
    const before = (await api.as(me).sessions.list()).sessions;
    expect(before.filter((s) => s.current)).toHaveLength(1);
    expect(await api.as(me).sessions.removeOthers()).toEqual({ ok: true, ended: 2, devicesRemoved: false });
    expect(await api.access.session(b?.token ?? '')).toBeUndefined();
    expect(await api.as(me).sessions.removeAll()).toEqual({ ok: true, ended: 1, devicesRemoved: true });
    expect(await api.access.session(a?.token ?? '')).toBeUndefined();
  });
});

describe('push devices and signing out (issue 49)', () => {
  // Stored as the dashboard stores a device: by its endpoint's reference (the endpoint itself sealed with its keys).
  const endpointOf = (id: string) => `https://updates.push.services.mozilla.com/wpush/v2/${id}`;
  const device = (id: string) => pushDeviceRow(id, { endpoint: endpointRef(endpointOf(id)) });

  it("a sign-out naming this browser's push endpoint removes that device only; without one, none", async () => {
    const api = await open();
    await api.as(open_).auth.changePassword({ newPassword: PASSWORD });
    const signIn = async () => sessionOf(api, (await api.as(undefined).auth.login({ password: PASSWORD })).token);
    await api.ctx.store.push.add(device('a'));
    await api.ctx.store.push.add(device('b'));
    expect(await api.as(await signIn()).auth.logout()).toEqual({ ok: true, deviceRemoved: false });
    expect(await api.as(await signIn()).auth.logout({ endpoint: 'https://fcm.googleapis.com/fcm/send/unknown' })).toEqual({ ok: true, deviceRemoved: false });
    expect(await api.as(await signIn()).auth.logout({ endpoint: endpointOf('a') })).toEqual({ ok: true, deviceRemoved: true });
    expect((await api.ctx.store.push.list()).map((row) => row.id)).toEqual(['b']);
  });

  it('a password change and "sign out everywhere" leave no push device; "everywhere else" keeps them', async () => {
    const api = await open();
    await api.as(open_).auth.changePassword({ newPassword: PASSWORD });
    const signIn = async () => sessionOf(api, (await api.as(undefined).auth.login({ password: PASSWORD })).token);
    const devices = async () => (await api.ctx.store.push.list()).map((row) => row.id);

    await api.ctx.store.push.add(device('a'));
    await api.ctx.store.push.add(device('b'));
    const me = await signIn();
    await signIn();
    expect(await api.as(me).auth.changePassword({ currentPassword: PASSWORD, newPassword: `${PASSWORD} 2` })).toEqual({ ok: true, session: null, devicesRemoved: true });
    expect(await devices()).toEqual([]);

    await api.ctx.store.push.add(device('c'));
    expect(await api.as(me).sessions.removeOthers()).toMatchObject({ devicesRemoved: false });
    expect(await devices()).toEqual(['c']);
    expect(await api.as(me).sessions.removeAll()).toEqual({ ok: true, ended: 1, devicesRemoved: true });
    expect(await devices()).toEqual([]);
  });
});

describe('API tokens', () => {
  it('shows a token once, lists only its hint, and accepts it until it is revoked', async () => {
    const api = await open();
    const created = await api.as(open_).tokens.create({ name: 'backup cron', scope: 'read', expiresInDays: 30 });
    expect(created).toMatchObject({ name: 'backup cron', scope: 'read', hint: `fdb_${created.id}_…`, expired: false });
    expect(created.token).toMatch(/^fdb_[0-9a-f]{10}_[\w-]{43}$/);
    const listed = (await api.as(open_).tokens.list()).tokens;
    expect(JSON.stringify(listed)).not.toContain(created.token.slice(15));
    expect(readFileSync(api.dbFile).toString('latin1')).not.toContain(created.token.slice(15));

    expect(await api.access.token(created.token, '192.0.2.1')).toMatchObject({ id: created.id, scope: 'read' });
    expect((await api.as(open_).tokens.list()).tokens[0]?.lastUsedAt).not.toBeNull();
    expect(await api.as(open_).tokens.remove({ id: created.id })).toEqual({ ok: true, removed: true });
    expect(await api.access.token(created.token, '192.0.2.1')).toBeUndefined();
  });

  it('stops accepting a token when it expires, and marks it expired', async () => {
    const api = await open();
    const created = await api.as(open_).tokens.create({ name: 'short', scope: 'write', expiresInDays: 1 });
    api.clock.now += DAY + 1;
    expect(await api.access.token(created.token, '192.0.2.1')).toBeUndefined();
    expect((await api.as(open_).tokens.list()).tokens[0]).toMatchObject({ expired: true });
  });

  it('cannot make, list or revoke tokens, nor manage sessions or the password', async () => {
    const api = await open();
    const created = await api.as(open_).tokens.create({ name: 'script', scope: 'write' });
    const token: Identity = { via: 'token', scope: 'write', tokenId: created.id };
    await expect(api.as(token).tokens.create({ name: 'more', scope: 'write' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(api.as(token).tokens.list()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(api.as(token).tokens.remove({ id: created.id })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(api.as(token).sessions.removeAll()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(api.as(token).auth.changePassword({ newPassword: PASSWORD })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('counts bad tokens as failed sign-ins from their address only, and never refuses a valid token', async () => {
    const api = await open();
    const created = await api.as(open_).tokens.create({ name: 'script', scope: 'read' });
    await api.as(open_).auth.changePassword({ newPassword: PASSWORD });
    const forged = `fdb_${created.id}_${'x'.repeat(43)}`;
    const outcomes = [];
    for (let i = 0; i < 100; i++) outcomes.push(await api.access.token(i % 2 ? forged : `fdb_${'0'.repeat(10)}_${'x'.repeat(43)}`, '198.51.100.9').catch((error: unknown) => error));
    expect(outcomes.slice(0, 5)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(outcomes.slice(5).every((outcome) => outcome instanceof ThrottledError)).toBe(true);
    // Another address: its token and its password pass at once.
    expect(await api.access.token(created.token, '198.51.100.10')).toMatchObject({ id: created.id });
    await expect(api.as(undefined, '198.51.100.10').auth.login({ password: PASSWORD })).resolves.toMatchObject({ token: expect.any(String) });
    // The throttled address itself: a valid token is looked up first and passes (256 random bits cannot be
    // guessed), but it does not clear the address's failures, so a token buys no password guesses there.
    expect(await api.access.token(created.token, '198.51.100.9')).toMatchObject({ id: created.id });
    await expect(api.as(undefined, '198.51.100.9').auth.login({ password: PASSWORD })).rejects.toBeInstanceOf(ThrottledError);
    await expect(api.access.token(forged, '198.51.100.9')).rejects.toBeInstanceOf(ThrottledError);
  });
});

describe('first-run setup of a remote dashboard', () => {
  it('prints a one-time link, writes its token owner-only, and lets exactly one of 20 concurrent setups win', async () => {
    const api = await open({ mode: 'remote', origin: 'https://dash.example.com' });
    const dataDir = api.dir;
    const fresh = await createTestApi({ dir: dataDir, access: { mode: 'remote', origin: 'https://dash.example.com', dataDir } });
    apis.push(fresh);
    const access = fresh.ctx.access;
    expect(await access.setupRequired()).toBe(true);
    const line = fresh.log.lines.find((l) => l.includes('/setup?token='));
    const token = /setup\?token=([\w-]+)/.exec(line ?? '')?.[1] ?? '';
    expect(line).toContain('https://dash.example.com/setup?token=');
    const file = join(dataDir, 'setup-token');
    expect(readFileSync(file, 'utf8').trim()).toBe(token);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const caller = (i: number) => createCaller({ ...fresh.ctx, request: { identity: undefined, ip: `10.1.0.${i}`, userAgent: 'test' } });
    await expect(caller(99).auth.setup({ token: 'not-the-token', password: PASSWORD })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    // Wrong setup links are failed sign-ins from their address: past 5 it is throttled, and the right link still passes there.
    for (let i = 0; i < 4; i++) expect(await caller(99).auth.checkSetupToken({ token: `wrong-${i}` })).toEqual({ valid: false });
    await expect(caller(99).auth.checkSetupToken({ token: 'wrong-again' })).rejects.toBeInstanceOf(ThrottledError);
    expect(await caller(99).auth.checkSetupToken({ token })).toEqual({ valid: true });
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => caller(i).auth.setup({ token, password: `${PASSWORD} ${i}` })));
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'CONFLICT')).toHaveLength(19);
    expect(existsSync(file)).toBe(false);
    expect(await access.setupRequired()).toBe(false);
    await expect(caller(50).auth.login({ password: `${PASSWORD} ${won[0]}` })).resolves.toMatchObject({ token: expect.any(String) });
  });
});

describe('a password from the environment', () => {
  it('wins over the stored one, cannot be changed here, and ends every session when it changes', async () => {
    const first = await open();
    await first.as(open_).auth.changePassword({ newPassword: 'the stored password' });
    const dir = first.dir;
    await first.dispose({ keepFiles: true });
    apis.splice(apis.indexOf(first), 1);

    const envHash = await hash(PASSWORD);
    const api = await createTestApi({ dir, access: { mode: 'local', envPassword: { source: 'DASHBOARD_PASSWORD_HASH', hash: envHash } } });
    apis.push(api);
    const caller = createCaller({ ...api.ctx, request: { identity: undefined, ip: '192.0.2.1', userAgent: 'test' } });
    await expect(caller.auth.login({ password: 'the stored password' })).rejects.toThrow(/not right/);
    const { token } = await caller.auth.login({ password: PASSWORD });
    const me: Identity = { via: 'session', scope: 'write', sessionId: (await api.ctx.access.session(token))?.sessionId ?? '' };
    await expect(createCaller({ ...api.ctx, request: { identity: me, ip: '192.0.2.1', userAgent: 'test' } }).auth.changePassword({ currentPassword: PASSWORD, newPassword: 'something else entirely' })).rejects.toThrow(/managed by DASHBOARD_PASSWORD_HASH/);
    await api.dispose({ keepFiles: true });
    apis.pop();

    const same = await createTestApi({ dir, access: { mode: 'local', envPassword: { source: 'DASHBOARD_PASSWORD_HASH', hash: envHash } } });
    apis.push(same);
    expect(await same.ctx.access.session(token)).toBeDefined();
    await same.dispose({ keepFiles: true });
    apis.pop();

    const rotated = await createTestApi({ dir, access: { mode: 'local', envPassword: { source: 'DASHBOARD_PASSWORD_FILE', password: 'a rotated password' } } });
    apis.push(rotated);
    expect(await rotated.ctx.access.session(token)).toBeUndefined();
    expect(rotated.log.lines.some((l) => l.includes('password from DASHBOARD_PASSWORD_FILE changed: 1 session(s) ended'))).toBe(true);
  });
});
