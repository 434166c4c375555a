import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@libsql/client';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { defaultSettings, type Settings, type SettingsUpdate } from '@dash/contracts';
import {
  memoizeReads,
  openStore,
  ProjectExistsError,
  redactDatabaseUrl,
  UnknownProjectsError,
  type ApiTokenRow,
  type SessionRow,
} from './index.ts';

const migrationsDir = fileURLToPath(new URL('../../../drizzle', import.meta.url));
const PG_SERVER = 'postgres://postgres@127.0.0.1:5432';
const quiet = { onnotice: () => {}, connect_timeout: 5 };

/** Why Postgres cannot be used, or undefined when it answers. */
async function postgresProblem(): Promise<string | undefined> {
  const sql = postgres(`${PG_SERVER}/postgres`, { ...quiet, max: 1 });
  try {
    await sql`select 1`;
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await sql.end();
  }
}

const pgProblem = await postgresProblem();
const inCI = process.env.CI === 'true';
if (pgProblem && !inCI) {
  console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): the store suite runs on SQLite only. ***\n`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const session = (id: string, lastSeenAt: string, createdAt = lastSeenAt): SessionRow => ({
  id,
  secretHash: `secret-hash-${id}`,
  createdAt,
  lastSeenAt,
  userAgent: null,
  ip: null,
});

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

/** Runs against whatever database `freshUrl` makes; every test starts from an empty one. */
function storeSuite(dialect: 'sqlite' | 'postgres', freshUrl: () => string | Promise<string>) {
  let url = '';
  beforeEach(async () => {
    url = await freshUrl();
  });

  async function open() {
    const store = await openStore({ url, migrationsDir });
    onTestFinished(() => store.close());
    return store;
  }

  async function withProjects(...slugs: string[]) {
    const store = await open();
    for (const slug of slugs) await store.projects.create({ slug, name: slug.toUpperCase() });
    return store;
  }

  it('reports its dialect and starts with the default settings and no projects', async () => {
    const store = await open();
    expect(store.dialect).toBe(dialect);
    expect(await store.settings.get()).toEqual(defaultSettings);
    expect(await store.projects.list()).toEqual([]);
  });

  it('merges slot updates key by key, leaving the other slots and the configs alone', async () => {
    const store = await open();
    await store.settings.update({ widgetLayout: { slots: { revenue: 'funding' } } });
    await store.settings.update({ widgetLayout: { slots: { detail: 'health' } } });
    const expected: Settings['widgetLayout'] = {
      slots: { ...defaultSettings.widgetLayout.slots, revenue: 'funding', detail: 'health' },
      configs: defaultSettings.widgetLayout.configs,
    };
    expect((await store.settings.get()).widgetLayout).toEqual(expected);
  });

  it('keeps a slot cleared with null cleared after reopening, instead of bringing back its default', async () => {
    const store = await open();
    await store.settings.update({ widgetLayout: { slots: { seo: null } } });
    await store.close();
    const { slots } = (await (await open()).settings.get()).widgetLayout;
    expect(slots).not.toHaveProperty('seo');
    expect(slots.revenue).toBe('revenue');
  });

  it('replaces configs.revenue, and clears it with null', async () => {
    const store = await open();
    await store.settings.update({ widgetLayout: { configs: { revenue: { showOC: true } } } });
    expect((await store.settings.get()).widgetLayout.configs).toEqual({ revenue: { showOC: true } });
    await store.settings.update({ widgetLayout: { configs: { revenue: null } } });
    const { widgetLayout } = await store.settings.get();
    expect(widgetLayout.configs).toEqual({});
    expect(widgetLayout.slots).toEqual(defaultSettings.widgetLayout.slots);
  });

  it('keeps every one of 20 concurrent updates to different slots and configs', async () => {
    const store = await open();
    const slots = {
      revenue: 'funding',
      shipping: 'health',
      ideas: 'errortracker',
      analytics: 'storefront',
      seo: 'analytics',
      detail: 'ideas',
    } as const;
    const slotUpdates = Object.entries(slots).map(([slot, widget]): SettingsUpdate => ({ widgetLayout: { slots: { [slot]: widget } } }));
    const configUpdate: SettingsUpdate = { widgetLayout: { configs: { revenue: { showOC: true } } } };
    const updates = [...slotUpdates, ...slotUpdates].slice(0, 10).flatMap((update) => [update, configUpdate]);
    await Promise.all(updates.map((update) => store.settings.update(update)));
    expect((await store.settings.get()).widgetLayout).toEqual({ slots, configs: { revenue: { showOC: true } } });
  });

  it('creates a project with defaults and appends it to projectOrder', async () => {
    const store = await withProjects('b-app', 'a-app');
    const created = await store.projects.create({ slug: 'c-app', name: 'C' });
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(created).toEqual({
      slug: 'c-app',
      name: 'C',
      color: null,
      integrations: {},
      createdAt: created.createdAt,
      updatedAt: created.createdAt,
    });
    expect(await store.projects.get('c-app')).toEqual(created);
    expect((await store.settings.get()).projectOrder).toEqual(['b-app', 'a-app', 'c-app']);
    expect((await store.projects.list()).map((p) => p.slug)).toEqual(['b-app', 'a-app', 'c-app']);
  });

  it('rejects a duplicate slug with ProjectExistsError and leaves the original unchanged', async () => {
    const store = await open();
    const original = await store.projects.create({ slug: 'app', name: 'Original', color: '#112233' });
    const duplicate = store.projects.create({ slug: 'app', name: 'Impostor' });
    await expect(duplicate).rejects.toBeInstanceOf(ProjectExistsError);
    await expect(duplicate).rejects.toMatchObject({ slug: 'app' });
    expect(await store.projects.list()).toEqual([original]);
  });

  it('puts the projects a partial projectOrder lists first and keeps the rest in their relative order', async () => {
    const store = await withProjects('a', 'b', 'c', 'd', 'e');
    await store.settings.update({ projectOrder: ['d', 'b'] });
    expect((await store.settings.get()).projectOrder).toEqual(['d', 'b', 'a', 'c', 'e']);
    await store.settings.update({ projectOrder: ['e'], widgetLayout: { slots: { detail: 'funding' } } });
    const settings = await store.settings.get();
    expect(settings.projectOrder).toEqual(['e', 'd', 'b', 'a', 'c']);
    expect(settings.widgetLayout.slots.detail).toBe('funding');
    await store.projects.create({ slug: 'f', name: 'F' });
    expect((await store.projects.list()).map((p) => p.slug)).toEqual(['e', 'd', 'b', 'a', 'c', 'f']);
  });

  it('rejects a projectOrder naming an unknown slug with UnknownProjectsError and changes nothing', async () => {
    const store = await withProjects('a', 'b');
    const before = await store.settings.get();
    const update = store.settings.update({ projectOrder: ['b', 'ghost'], widgetLayout: { slots: { seo: null } } });
    await expect(update).rejects.toBeInstanceOf(UnknownProjectsError);
    await expect(update).rejects.toMatchObject({ slugs: ['ghost'] });
    expect(await store.settings.get()).toEqual(before);
  });

  it('removes a project from the list and from projectOrder, and answers false the second time', async () => {
    const store = await withProjects('a', 'b', 'c');
    expect(await store.projects.remove('b')).toBe(true);
    expect(await store.projects.remove('b')).toBe(false);
    expect(await store.projects.get('b')).toBeUndefined();
    expect((await store.settings.get()).projectOrder).toEqual(['a', 'c']);
  });

  it('patches name, colour and integrations: a named one is replaced, null removes one, others are kept', async () => {
    const store = await open();
    const created = await store.projects.create({
      slug: 'app',
      name: 'App',
      color: '#abcdef',
      integrations: {
        funding: { slug: 'app' },
        seo: { siteUrl: 'https://app.example' },
        code_host: { repos: ['me/app'] },
      },
    });
    await sleep(5);
    const patched = await store.projects.update('app', {
      name: 'Renamed',
      color: null,
      integrations: { funding: { slug: 'app-2' }, seo: null },
    });
    expect(patched).toMatchObject({
      slug: 'app',
      name: 'Renamed',
      color: null,
      integrations: { funding: { slug: 'app-2' }, code_host: { repos: ['me/app'] } },
      createdAt: created.createdAt,
    });
    expect(patched?.integrations).not.toHaveProperty('seo');
    expect(Date.parse(patched?.updatedAt ?? '')).toBeGreaterThan(Date.parse(created.updatedAt));
    expect(await store.projects.get('app')).toEqual(patched);
    expect(await store.projects.update('ghost', { name: 'Nobody' })).toBeUndefined();
  });

  it('keeps concurrent patches of different integrations of one project', async () => {
    const store = await withProjects('app');
    await Promise.all([
      store.projects.update('app', { integrations: { funding: { slug: 'app' } } }),
      store.projects.update('app', { integrations: { seo: { siteUrl: 'sc-domain:app.example' } } }),
      store.projects.update('app', { integrations: { storefront: { appId: '123' } } }),
    ]);
    expect((await store.projects.get('app'))?.integrations).toEqual({
      funding: { slug: 'app' },
      seo: { siteUrl: 'sc-domain:app.example' },
      storefront: { appId: '123' },
    });
  });

  it('stores sealed credentials: put, overwrite, sorted keys, remove', async () => {
    const store = await open();
    await store.credentials.putSealed('stripe', 'sealed-1');
    await store.credentials.putSealed('github:work', 'sealed-2');
    await store.credentials.putSealed('stripe', 'sealed-3');
    expect(await store.credentials.keys()).toEqual(['github:work', 'stripe']);
    expect(await store.credentials.getSealed('stripe')).toBe('sealed-3');
    expect(await store.credentials.getSealed('linear')).toBeUndefined();
    expect(await store.credentials.remove('stripe')).toBe(true);
    expect(await store.credentials.remove('stripe')).toBe(false);
    expect(await store.credentials.keys()).toEqual(['github:work']);
  });

  it('keeps api_cache entries by key with their times, overwrites them, and clears by route', async () => {
    const store = await open();
    const entry = { key: 'revenue:a', route: 'revenue', value: { mrr: 12.5, chart: [] }, fetchedAt: '2026-11-23T09:00:00.000Z', expiresAt: '2026-11-23T09:05:00.000Z' };
    await store.cache.put(entry);
    await store.cache.put({ ...entry, key: 'health:a', route: 'health' });
    expect(await store.cache.get('revenue:a')).toEqual(entry);
    await store.cache.put({ ...entry, value: { mrr: 13 }, expiresAt: '2026-11-23T09:10:00.000Z' });
    expect(await store.cache.get('revenue:a')).toMatchObject({ value: { mrr: 13 }, expiresAt: '2026-11-23T09:10:00.000Z' });
    expect(await store.cache.clear('revenue')).toBe(1);
    expect(await store.cache.get('revenue:a')).toBeUndefined();
    expect(await store.cache.get('health:a')).toBeDefined();
    expect(await store.cache.clear()).toBe(1);
  });

  it('round-trips meta values without touching the settings', async () => {
    const store = await open();
    expect(await store.meta.get('key-check')).toBeUndefined();
    await store.meta.put('key-check', { v: 1, sealed: 'abc' });
    await store.meta.put('key-check', { v: 2, sealed: 'def' });
    expect(await store.meta.get('key-check')).toEqual({ v: 2, sealed: 'def' });
    expect(await store.settings.get()).toEqual(defaultSettings);
  });

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

  it('refuses to change the password when there is no owner, and ends no session', async () => {
    const store = await open();
    await store.auth.sessions.create(session('a', '2026-11-23T10:00:00.000Z'));
    await store.auth.sessions.create(session('b', '2026-11-23T10:00:00.000Z'));
    expect(await store.auth.changePassword('new-hash', 'a')).toBe(false);
    expect(await store.auth.changePassword('new-hash')).toBe(false);
    expect(await store.auth.owner()).toBeUndefined();
    expect((await store.auth.sessions.list()).map((s) => s.id).sort()).toEqual(['a', 'b']);
  });

  it('removes the owner with every session, after which a first-run setup succeeds again', async () => {
    const store = await open();
    await store.auth.createOwner('old-hash');
    await store.auth.sessions.create(session('a', '2026-11-23T10:00:00.000Z'));
    await store.auth.sessions.create(session('b', '2026-11-23T11:00:00.000Z'));
    await store.auth.removeOwner();
    expect(await store.auth.owner()).toBeUndefined();
    expect(await store.auth.sessions.list()).toEqual([]);
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

  it('keeps the data when the same database is opened again (migrations are applied once)', async () => {
    const first = await open();
    await first.projects.create({ slug: 'app', name: 'App' });
    await first.settings.update({ widgetLayout: { slots: { ideas: 'seo' } } });
    const second = await open();
    expect(await second.projects.list()).toEqual(await first.projects.list());
    await first.close();
    await second.close();
    const settings = await (await open()).settings.get();
    expect(settings.projectOrder).toEqual(['app']);
    expect(settings.widgetLayout.slots.ideas).toBe('seo');
  });
}

describe('SQLite store', () => {
  let dir = '';
  let count = 0;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-db-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  // A directory per test that does not exist yet: openStore has to create it.
  storeSuite('sqlite', () => `file:${path.join(dir, String(++count), 'dashboard.db')}`);

  it('creates a file: database in a new directory, in WAL mode', async () => {
    const file = path.join(dir, 'wal', 'nested', 'dashboard.db');
    await (await openStore({ url: `file:${file}`, migrationsDir })).close();
    const client = createClient({ url: `file:${file}` });
    const { rows } = await client.execute('PRAGMA journal_mode');
    client.close();
    expect(rows[0]?.['journal_mode']).toBe('wal');
  });
});

describe.skipIf(pgProblem !== undefined && !inCI)('Postgres store', () => {
  const name = `dash_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(`${PG_SERVER}/postgres`, quiet);
  const db = postgres(`${PG_SERVER}/${name}`, quiet);
  beforeAll(async () => {
    if (pgProblem) throw new Error(`CI=true needs Postgres at ${PG_SERVER}, which is unreachable: ${pgProblem}`);
    await admin`create database ${admin(name)}`;
  });
  afterAll(async () => {
    await db.end();
    if (!pgProblem) await admin`drop database if exists ${admin(name)} with (force)`;
    await admin.end();
  });

  storeSuite('postgres', async () => {
    await db.unsafe('drop schema if exists drizzle cascade; drop schema public cascade; create schema public');
    return `${PG_SERVER}/${name}`;
  });
});

describe('openStore and redactDatabaseUrl', () => {
  it('rejects an unsupported scheme, naming the accepted ones without echoing the password', async () => {
    const opening = openStore({ url: 'mysql://root:hunter2@db.example/dash', migrationsDir });
    await expect(opening).rejects.toThrow(/"mysql:".*file:.*libsql:\/\/.*postgres:\/\//);
    await expect(opening).rejects.not.toThrow(/hunter2/);
  });

  it.each([
    ['postgres://dash:hunter2@db.example:5432/dash', 'postgres://dash:***@db.example:5432/dash'],
    ['postgresql://:hunter2@db.example/dash?sslmode=require', 'postgresql://:***@db.example/dash?sslmode=require'],
    ['postgres://dash:p%40ss@w0rd@db.example/dash', 'postgres://dash:***@db.example/dash'],
    ['postgres://db.example/dash?user=dash&password=hunter2', 'postgres://db.example/dash?user=dash&password=***'],
    ['libsql://dash.turso.io?authToken=ey.hunter2&tls=1', 'libsql://dash.turso.io?authToken=***&tls=1'],
  ])('masks the password or token in a database URL (%#)', (url, redacted) => {
    expect(redactDatabaseUrl(url)).toBe(redacted);
  });

  it.each(['postgres://dash@db.example:5432/dash', 'file:./data/dashboard.db', 'libsql://dash.turso.io'])(
    'leaves a database URL without secrets unchanged (%#)',
    (url) => {
      expect(redactDatabaseUrl(url)).toBe(url);
    },
  );
});

describe('memoizeReads', () => {
  it('passes auth through unchanged', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-memo-'));
    const raw = await openStore({ url: `file:${path.join(dir, 'memo.db')}`, migrationsDir });
    try {
      const store = memoizeReads(raw);
      expect(store.auth).toBe(raw.auth);
      expect(await store.auth.createOwner('hash')).toBe(true);
      expect((await raw.auth.owner())?.passwordHash).toBe('hash');
    } finally {
      await raw.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers settings and projects from a copy until a write through it or the copy’s age says otherwise', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-memo-'));
    const raw = await openStore({ url: `file:${path.join(dir, 'memo.db')}`, migrationsDir });
    let now = 0;
    const store = memoizeReads(raw, { maxAgeMs: 1000, now: () => now });
    try {
      expect(await store.projects.list()).toEqual([]);
      // Another process writes: this one sees it only once its copy is a second old.
      await raw.projects.create({ slug: 'elsewhere', name: 'Elsewhere' });
      expect(await store.projects.list()).toEqual([]);
      now += 1000;
      expect((await store.projects.list()).map((p) => p.slug)).toEqual(['elsewhere']);
      // Its own writes show at once, in the list, in get() and in the settings' projectOrder.
      await store.settings.get();
      await store.projects.create({ slug: 'mine', name: 'Mine' });
      expect((await store.projects.list()).map((p) => p.slug)).toEqual(['elsewhere', 'mine']);
      expect(await store.projects.get('mine')).toMatchObject({ name: 'Mine' });
      expect((await store.settings.get()).projectOrder).toEqual(['elsewhere', 'mine']);
      // A caller cannot change what the next caller gets: the shared copy is frozen.
      const [first] = await store.projects.list();
      expect(() => Object.assign(first ?? {}, { name: 'changed' })).toThrow(TypeError);
      expect((await store.projects.get('elsewhere'))?.name).toBe('Elsewhere');
    } finally {
      await raw.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
