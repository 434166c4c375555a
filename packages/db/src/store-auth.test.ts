import { expect, it } from 'vitest';
import type { ApiTokenRow, SessionRow } from './index.ts';
import { pushDeviceRow } from './testing.ts';
import { session, sleep } from './testing/store-fixtures.ts';
import { describeStores } from './testing/store-suite.ts';

/** Who may sign in, on every engine: the owner and the password, sessions, API tokens. */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const token = (id: string, createdAt: string, overrides: Partial<ApiTokenRow> = {}): ApiTokenRow => ({
  id,
  name: `Token ${id}`,
  secretHash: `secret-hash-${id}`,
  scope: 'read',
  createdAt,
  lastUsedAt: null,
  expiresAt: null,
  ...overrides,
});

await describeStores('the owner, sessions and API tokens', ({ open }) => {
  it('creates the owner exactly once among 20 concurrent first-run setups from two processes', async () => {
    const [first, second] = [await open(), await open()];
    expect(await first.auth.owner()).toBeUndefined();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first : second).auth.createOwner(`hash-${i}`)),
    );
    expect(results.filter((created) => created)).toHaveLength(1);
    const owner = await second.auth.owner();
    expect(owner).toEqual({
      passwordHash: `hash-${results.indexOf(true)}`,
      createdAt: expect.stringMatching(ISO),
      updatedAt: owner?.createdAt,
    });
    expect(await first.auth.createOwner('too-late')).toBe(false);
    expect(await first.auth.owner()).toEqual(owner);
  });

  it('changes the password, keeping only the named session, then none when no session is named', async () => {
    const store = await open();
    expect(await store.auth.createOwner('old-hash')).toBe(true);
    const created = await store.auth.owner();
    for (const id of ['a', 'b', 'c']) await store.auth.sessions.create(session(id, '2026-11-23T10:00:00.000Z'));
    await sleep(5);
    expect(await store.auth.changePassword('new-hash', 'b')).toBe(true);
    const changed = await store.auth.owner();
    expect(changed).toMatchObject({ passwordHash: 'new-hash', createdAt: created?.createdAt, updatedAt: expect.stringMatching(ISO) });
    expect(Date.parse(changed?.updatedAt ?? '')).toBeGreaterThan(Date.parse(created?.updatedAt ?? ''));
    expect((await store.auth.sessions.list()).map((s) => s.id)).toEqual(['b']);
    expect(await store.auth.changePassword('newer-hash')).toBe(true);
    expect(await store.auth.sessions.list()).toEqual([]);
    expect((await store.auth.owner())?.passwordHash).toBe('newer-hash');
  });

  it('removes every push device with a password change and with "sign out everywhere", in the same step; a rehash or "everywhere else" keeps them', async () => {
    const store = await open();
    const device = (id: string) => pushDeviceRow(id);
    const devices = async () => (await store.push.list()).map((row) => row.id);
    await store.push.add(device('a'));
    // No owner: the change is refused, and nothing goes.
    expect(await store.auth.changePassword('new-hash', undefined, true)).toBe(false);
    expect(await devices()).toEqual(['a']);
    await store.auth.createOwner('old-hash');
    await store.push.add(device('b'));
    // A rehash at sign-in is no password change: the devices stay.
    expect(await store.auth.changePassword('rehashed', undefined)).toBe(true);
    expect(await devices()).toEqual(['a', 'b']);
    for (const id of ['s1', 's2']) await store.auth.sessions.create(session(id, '2026-11-23T10:00:00.000Z'));
    expect(await store.auth.changePassword('new-hash', 's1', true)).toBe(true);
    expect(await devices()).toEqual([]);
    expect((await store.auth.sessions.list()).map((s) => s.id)).toEqual(['s1']);

    await store.push.add(device('c'));
    await store.auth.sessions.create(session('s2', '2026-11-23T10:00:00.000Z'));
    expect(await store.auth.sessions.removeAll('s1')).toBe(1);
    expect(await devices()).toEqual(['c']);
    expect(await store.auth.sessions.removeAll(undefined, true)).toBe(1);
    expect(await devices()).toEqual([]);
    expect(await store.auth.sessions.list()).toEqual([]);
  });

  it('refuses to change the password when there is no owner, and ends no session', async () => {
    const store = await open();
    await store.auth.sessions.create(session('a', '2026-11-23T10:00:00.000Z'));
    await store.auth.sessions.create(session('b', '2026-11-23T10:00:00.000Z'));
    expect(await store.auth.changePassword('new-hash', 'a')).toBe(false);
    expect(await store.auth.changePassword('new-hash')).toBe(false);
    expect(await store.auth.owner()).toBeUndefined();
    expect((await store.auth.sessions.list()).map((s) => s.id).sort()).toEqual(['a', 'b']);
  });

  it('removes the owner with every session and push device, after which a first-run setup succeeds again', async () => {
    const store = await open();
    await store.auth.createOwner('old-hash');
    await store.auth.sessions.create(session('a', '2026-11-23T10:00:00.000Z'));
    await store.auth.sessions.create(session('b', '2026-11-23T11:00:00.000Z'));
    await store.push.add(pushDeviceRow('phone'));
    await store.auth.removeOwner();
    expect(await store.auth.owner()).toBeUndefined();
    expect(await store.auth.sessions.list()).toEqual([]);
    expect(await store.push.list()).toEqual([]);
    expect(await store.auth.sessions.get('a')).toBeUndefined();
    expect(await store.auth.createOwner('fresh-hash')).toBe(true);
    expect((await store.auth.owner())?.passwordHash).toBe('fresh-hash');
  });

  it('keeps sessions as given, lists them most recently seen first, and touches, removes and removes all', async () => {
    const store = await open();
    const full: SessionRow = { ...session('full', '2026-11-23T10:00:00.000Z', '2026-11-20T08:00:00.000Z'), userAgent: 'Firefox', ip: '203.0.113.9' };
    await store.auth.sessions.create(session('old', '2026-11-22T10:00:00.000Z'));
    await store.auth.sessions.create(full);
    await store.auth.sessions.create(session('new', '2026-11-23T12:00:00.000Z'));
    expect(await store.auth.sessions.get('full')).toEqual(full);
    expect(await store.auth.sessions.get('ghost')).toBeUndefined();
    expect((await store.auth.sessions.list()).map((s) => s.id)).toEqual(['new', 'full', 'old']);

    await store.auth.sessions.touch('old', '2026-11-23T13:00:00.000Z');
    expect(await store.auth.sessions.get('old')).toMatchObject({ lastSeenAt: '2026-11-23T13:00:00.000Z', createdAt: '2026-11-22T10:00:00.000Z' });
    expect((await store.auth.sessions.list()).map((s) => s.id)).toEqual(['old', 'new', 'full']);

    expect(await store.auth.sessions.remove('new')).toBe(true);
    expect(await store.auth.sessions.remove('new')).toBe(false);
    await store.auth.sessions.create(session('other', '2026-11-23T10:00:00.000Z'));
    expect(await store.auth.sessions.removeAll('full')).toBe(2);
    expect(await store.auth.sessions.list()).toEqual([full]);
    expect(await store.auth.sessions.removeAll()).toBe(1);
    expect(await store.auth.sessions.list()).toEqual([]);
  });

  it('removes idle and too-old sessions, comparing instants rather than their spelling', async () => {
    const store = await open();
    await store.auth.sessions.create(session('fresh', '2026-11-23T11:00:00.000Z', '2026-11-20T00:00:00.000Z'));
    await store.auth.sessions.create(session('idle', '2026-11-23T09:59:59.999Z', '2026-11-20T00:00:00.000Z'));
    await store.auth.sessions.create(session('seen-at-cutoff', '2026-11-23T10:00:00.000Z', '2026-11-20T00:00:00.000Z'));
    await store.auth.sessions.create(session('too-old', '2026-11-23T11:00:00.000Z', '2026-08-01T00:00:00.000Z'));
    // 11:00 at +01:00 is 10:00Z: the idle session goes, the one seen exactly at the cutoff stays.
    expect(await store.auth.sessions.removeExpired('2026-11-23T11:00:00+01:00', '2026-08-25T00:00:00.000Z')).toBe(2);
    expect((await store.auth.sessions.list()).map((s) => s.id)).toEqual(['fresh', 'seen-at-cutoff']);
    expect(await store.auth.sessions.removeExpired('2026-11-23T10:00:00.000Z', '2026-08-25T00:00:00.000Z')).toBe(0);
  });

  it('keeps API tokens: get, newest first, touch, remove; every instant read back as ISO 8601', async () => {
    const store = await open();
    const read = token('read', '2026-11-20T10:00:00.000Z', { expiresAt: '2027-11-20T10:00:00.000Z' });
    const write = token('write', '2026-11-22T10:00:00.000Z', { scope: 'write', name: 'Deploy script' });
    // Given with an offset: stored and read back as the same instant in UTC.
    await store.auth.tokens.create(token('middle', '2026-11-21T12:00:00+02:00'));
    await store.auth.tokens.create(read);
    await store.auth.tokens.create(write);
    expect(await store.auth.tokens.get('read')).toEqual(read);
    expect(await store.auth.tokens.get('write')).toEqual(write);
    expect(await store.auth.tokens.get('middle')).toMatchObject({ createdAt: '2026-11-21T10:00:00.000Z', lastUsedAt: null, expiresAt: null });
    expect(await store.auth.tokens.get('ghost')).toBeUndefined();
    expect((await store.auth.tokens.list()).map((t) => t.id)).toEqual(['write', 'middle', 'read']);

    await store.auth.tokens.touch('read', '2026-11-23T10:00:00.000Z');
    expect(await store.auth.tokens.get('read')).toEqual({ ...read, lastUsedAt: '2026-11-23T10:00:00.000Z' });
    expect((await store.auth.tokens.list()).map((t) => t.id)).toEqual(['write', 'middle', 'read']);

    expect(await store.auth.tokens.remove('write')).toBe(true);
    expect(await store.auth.tokens.remove('write')).toBe(false);
    expect((await store.auth.tokens.list()).map((t) => t.id)).toEqual(['middle', 'read']);
  });

  it('rejects a token with an unknown scope or a taken id', async () => {
    const store = await open();
    await store.auth.tokens.create(token('t', '2026-11-23T10:00:00.000Z'));
    await expect(store.auth.tokens.create(token('t', '2026-11-23T11:00:00.000Z', { name: 'Again' }))).rejects.toThrow();
    await expect(store.auth.tokens.create({ ...token('admin', '2026-11-23T10:00:00.000Z'), scope: 'admin' as 'read' })).rejects.toThrow();
    expect(await store.auth.tokens.list()).toEqual([token('t', '2026-11-23T10:00:00.000Z')]);
  });
});
