import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { defaultSettings, type Settings, type SettingsUpdate } from '@dash/contracts';
import {
  memoizeReads,
  migrationsOf,
  openStore,
  ProjectExistsError,
  redactDatabaseUrl,
  UnknownProjectsError,
  type ApiTokenRow,
  type DeliveryRow,
  type ChannelConnectionRow,
  type IncomingEvent,
  type NotificationQuery,
  type NotificationSeverity,
  type SessionRow,
  type Store,
} from './index.ts';
import { sqliteStore } from './sqlite.ts';
import {
  MYSQL_SERVER,
  mysqlProblem,
  mysqlTemplate,
  PG_SERVER,
  postgresProblem,
  postgresTemplate,
  pushDeviceRow,
  scratchMysql,
  scratchPostgres,
  sqliteTemplate,
  withMysql,
  withPostgres,
} from './testing.ts';

const migrationsDir = fileURLToPath(new URL('../../../drizzle', import.meta.url));
const quiet = { onnotice: () => {}, connect_timeout: 5 };

const pgProblem = await postgresProblem();
const myProblem = await mysqlProblem();
const inCI = process.env.CI === 'true';
if (pgProblem && !inCI) {
  console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): the store suite runs on SQLite only. ***\n`);
}

/** Less than the SQLite store's busy timeout: a write that waited that out took too long. */
const BUSY_WAIT_MS = 3000;
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

const NOW = '2026-11-23T10:00:00.000Z';
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** NOW moved by `ms`. */
const at = (ms: number) => new Date(Date.parse(NOW) + ms).toISOString();
const inWindow = { now: NOW, dedupWindowMs: DAY };
const RELAY = 'https://relay.example';

/** A stateless event (a row of its own). */
const event = (sourceEventId: string, overrides: Partial<IncomingEvent> = {}): IncomingEvent => ({
  sourceEventId,
  integration: 'github',
  type: 'pr.merged',
  subjectKey: null,
  transition: null,
  severity: 'info',
  title: `Event ${sourceEventId}`,
  url: `https://example.com/${sourceEventId}`,
  projectSlug: null,
  occurredAt: NOW,
  receivedAt: NOW,
  relayEventId: null,
  ...overrides,
});

/** A monitor going down (trigger) or up (resolve) at `occurredAt`. */
const monitor = (sourceEventId: string, transition: 'trigger' | 'resolve', occurredAt: string, overrides: Partial<IncomingEvent> = {}) =>
  event(sourceEventId, {
    integration: 'uptime',
    type: transition === 'trigger' ? 'monitor.down' : 'monitor.up',
    subjectKey: 'uptime:site',
    transition,
    severity: transition === 'trigger' ? 'error' : 'success',
    title: transition === 'trigger' ? 'Site is down' : 'Site is up',
    occurredAt,
    receivedAt: occurredAt,
    ...overrides,
  });

const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id);

/** Makes a database for one test; what it hands `after` runs once the test's stores are closed. */
type MakeDatabase = (after: (cleanup: () => void | Promise<void>) => void) => string | Promise<string>;

/**
 * Runs against the databases `databases` makes: every test starts from a `migrated` one of its own (a copy of a
 * template the migrations made, see MigratedTemplate), and the test of the migrations from a `blank` one.
 */
function storeSuite(dialect: Store['dialect'], databases: { migrated: MakeDatabase; blank: MakeDatabase }) {
  let url = '';
  let after: (cleanup: () => void | Promise<void>) => void = () => {};
  beforeEach(async (context) => {
    // Registered before the test opens its stores: run after their closes (onTestFinished runs in reverse order).
    after = (cleanup) => context.onTestFinished(cleanup, 30_000);
    url = await databases.migrated(after);
  });

  async function open() {
    const store = await openStore({ url, migrationsDir });
    onTestFinished(() => store.close());
    return store;
  }

  /** The rows of a plain query on the test's database: what the store does not answer (claims, events). */
  async function query(text: string): Promise<Record<string, unknown>[]> {
    if (dialect === 'sqlite') {
      const client = createClient({ url });
      try {
        const { columns, rows } = await client.execute(text);
        return rows.map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i]])));
      } finally {
        client.close();
      }
    }
    if (dialect === 'mysql') {
      const database = new URL(url).pathname.slice(1);
      return withMysql(async (connection) => {
        const [rows] = await connection.query(text);
        // Counts are bigints, which mysql2 answers as numbers here.
        return (rows as Record<string, unknown>[]).map((row) => ({ ...row }));
      }, database);
    }
    const sql = postgres(url, { ...quiet, max: 1 });
    try {
      // Counts are bigints, which postgres.js answers as text.
      return (await sql.unsafe(text)).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, k === 'n' ? Number(v) : v])));
    } finally {
      await sql.end();
    }
  }

  async function withProjects(...slugs: string[]) {
    const store = await open();
    for (const slug of slugs) await store.projects.create({ slug, name: slug.toUpperCase() });
    return store;
  }

  it('creates projects that arrive at once, every one of them (MySQL rolls a deadlocked insert back: it is run again)', async () => {
    const store = await open();
    // Rounds of 30 on one store: on MySQL, inserts that read the table they write (the next position) meet in deadlocks.
    const slugs: string[] = [];
    for (let round = 0; round < 4; round++) {
      const batch = Array.from({ length: 30 }, (_, i) => `app-${round}-${i}`);
      await Promise.all(batch.map((slug) => store.projects.create({ slug, name: slug })));
      slugs.push(...batch);
    }
    expect((await store.projects.list()).map((project) => project.slug).sort()).toEqual(slugs.sort());
  });

  it('gives every one of many processes asking at once for a new account a turn, within its limit', async () => {
    // Each round a new account (its row made by the first take), asked 12 times at once from two stores: on MySQL,
    // takes that each made-or-found the row with a lookup and an `insert ignore` met in deadlocks.
    const first = await open();
    const second = await open();
    // SQLite has none: one process is all there is, and its limiters stay in memory.
    expect(first.rateWindows === undefined).toBe(dialect === 'sqlite');
    const windows = [first.rateWindows, second.rateWindows].filter((rates) => rates !== undefined);
    if (windows.length === 0) return;
    const now = Date.parse('2026-11-23T12:00:00Z');
    for (let round = 0; round < 5; round++) {
      const key = `account-${round}`;
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => windows[i % 2]!.take(key, 8, 60_000, now)));
      expect(answers.filter((answer) => 'turn' in answer)).toHaveLength(8);
      expect(answers.filter((answer) => 'waitMs' in answer)).toEqual(Array.from({ length: 4 }, () => ({ waitMs: 60_000 })));
    }
  });

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
      more: [],
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

  it('replaces the row order as a whole, keeps it over a slot change and a reopening, and clears it with null', async () => {
    const store = await open();
    await store.settings.update({ widgetLayout: { more: ['health', 'funding'] } });
    await store.settings.update({ widgetLayout: { slots: { detail: 'health' } } });
    expect((await store.settings.get()).widgetLayout.more).toEqual(['health', 'funding']);
    await store.settings.update({ widgetLayout: { more: ['storefront'] } });
    await store.close();
    const reopened = await open();
    expect((await reopened.settings.get()).widgetLayout.more).toEqual(['storefront']);
    await reopened.settings.update({ widgetLayout: { more: null } });
    expect((await reopened.settings.get()).widgetLayout).toMatchObject({ more: [], slots: { detail: 'health' } });
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
    expect((await store.settings.get()).widgetLayout).toEqual({ slots, more: [], configs: { revenue: { showOC: true } } });
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

  it('expires the entries of one route and project, not those of a longer slug, another route or one already expired', async () => {
    const store = await open();
    const entry = (key: string, route: string, expiresAt = '2026-11-23T11:00:00.000Z') => ({ key, route, value: { key }, fetchedAt: '2026-11-23T09:00:00.000Z', expiresAt });
    const keys = {
      only: 'shipping:code_host?project="app"',
      first: 'shipping:code_host?project="app"&range="30d"',
      middle: 'shipping:code_host?config={"repo":"a/b"}&project="app"&range="30d"',
      last: 'shipping:code_host?config={"repo":"a/b"}&project="app"',
      longer: 'shipping:code_host?config={}&project="app-2"',
      // A literal `%` or `_` in the part matches only itself.
      wildcard: 'shipping:code_host?project="a_p"',
      otherRoute: 'health?project="app"',
      expired: 'shipping:code_host?project="app"&range="7d"',
    };
    for (const [name, key] of Object.entries(keys)) {
      await store.cache.put(entry(key, key.slice(0, key.indexOf('?')), name === 'expired' ? '2026-11-23T09:30:00.000Z' : undefined));
    }
    expect(await store.cache.expire('shipping:code_host', 'project="app"', NOW)).toBe(4);
    for (const name of ['only', 'first', 'middle', 'last'] as const) expect((await store.cache.get(keys[name]))?.expiresAt).toBe(NOW);
    for (const name of ['longer', 'wildcard', 'otherRoute'] as const) expect((await store.cache.get(keys[name]))?.expiresAt).toBe('2026-11-23T11:00:00.000Z');
    expect((await store.cache.get(keys.expired))?.expiresAt).toBe('2026-11-23T09:30:00.000Z');
    // The value stays: it is the STALE fallback when the upstream fails.
    expect((await store.cache.get(keys.first))?.value).toEqual({ key: keys.first });
    expect(await store.cache.expire('shipping:code_host', 'project="a%"', NOW)).toBe(0);
  });

  it('keeps the relay URL until null forgets it, leaving the other settings alone', async () => {
    const store = await open();
    expect((await store.settings.get()).relayUrl).toBeNull();
    await store.settings.update({ relayUrl: 'https://relay.example/api' });
    await store.settings.update({ widgetLayout: { slots: { seo: 'funding' } } });
    const settings = await store.settings.get();
    expect(settings.relayUrl).toBe('https://relay.example/api');
    expect(settings.widgetLayout.slots.seo).toBe('funding');
    await store.settings.update({ relayUrl: null });
    expect(await store.settings.get()).toEqual({ ...settings, relayUrl: null });
  });

  it('round-trips meta values without touching the settings', async () => {
    const store = await open();
    expect(await store.meta.get('key-check')).toBeUndefined();
    await store.meta.put('key-check', { v: 1, sealed: 'abc' });
    await store.meta.put('key-check', { v: 2, sealed: 'def' });
    expect(await store.meta.get('key-check')).toEqual({ v: 2, sealed: 'def' });
    expect(await store.settings.get()).toEqual(defaultSettings);
  });

  it('claims a meta value once among 20 concurrent claims from two processes: every claim answers the first', async () => {
    const [first, second] = [await open(), await open()];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first : second).meta.claim('installation', `id-${i}`)));
    expect(answers[0]).toMatch(/^id-\d+$/);
    expect(new Set(answers)).toEqual(new Set([answers[0]]));
    expect(await first.meta.claim('installation', 'late')).toBe(answers[0]);
    expect(await second.meta.get('installation')).toBe(answers[0]);
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

  describe('notifications', () => {
    /** Ingests one stateless event per id, one batch each, answering their rows in order. */
    async function ingestEach(store: Store, events: IncomingEvent[]) {
      const rows = [];
      for (const e of events) rows.push(...(await store.notifications.ingest([e], inWindow)).changed);
      return rows;
    }

    it('stores a copy of an event in the same batch and in a later one once, and again once the dedup window has passed', async () => {
      const store = await open();
      const first = await store.notifications.ingest([event('github:1'), event('github:1')], inWindow);
      expect(first).toEqual({
        stored: 1,
        duplicates: 1,
        sent: [],
        events: [
          { sourceEventId: 'github:1', effect: 'info', notificationId: expect.any(String), eventId: expect.any(String) },
          { sourceEventId: 'github:1', effect: 'duplicate', notificationId: expect.any(String), eventId: null },
        ],
        changed: [
          {
            id: expect.any(String),
            seq: expect.any(Number),
            createdSeq: expect.any(Number),
            integration: 'github',
            type: 'pr.merged',
            subjectKey: null,
            status: 'info',
            severity: 'info',
            title: 'Event github:1',
            url: 'https://example.com/github:1',
            projectSlug: null,
            eventCount: 1,
            firstAt: NOW,
            lastAt: NOW,
            resolvedAt: null,
            receivedAt: NOW,
            readAt: null,
            snoozedUntil: null,
            decision: null,
            refs: null,
          },
        ],
      });
      expect(first.changed[0]?.createdSeq).toBe(first.changed[0]?.seq);
      // A redelivery within the window (a day from NOW), alone or beside a new event.
      expect(await store.notifications.ingest([event('github:1')], { now: at(HOUR), dedupWindowMs: DAY })).toEqual({
        stored: 0,
        duplicates: 1,
        changed: [],
        sent: [],
        events: [{ sourceEventId: 'github:1', effect: 'duplicate', notificationId: null, eventId: null }],
      });
      const mixed = await store.notifications.ingest([event('github:2'), event('github:1')], { now: at(DAY - 1), dedupWindowMs: DAY });
      expect(mixed).toMatchObject({ stored: 1, duplicates: 1, changed: [{ title: 'Event github:2' }] });
      expect(await store.notifications.list({ limit: 10 })).toEqual([...mixed.changed, ...first.changed]);
      // The claim ends a day after NOW: from then on the same id is a new event.
      const later = await store.notifications.ingest([event('github:1')], { now: at(DAY), dedupWindowMs: DAY });
      expect(later).toMatchObject({ stored: 1, duplicates: 0, changed: [{ title: 'Event github:1' }] });
      expect(later.changed[0]?.id).not.toBe(first.changed[0]?.id);
      expect(await store.notifications.list({ limit: 10 })).toHaveLength(3);
      // And its new claim runs from then.
      expect(await store.notifications.ingest([event('github:1')], { now: at(DAY + HOUR), dedupWindowMs: DAY })).toMatchObject({ stored: 0, duplicates: 1 });
    });

    it('stores an event exactly once among 20 concurrent ingests of it from two processes', async () => {
      const [first, second] = [await open(), await open()];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first : second).notifications.ingest([event('vercel:dep-1')], inWindow)),
      );
      expect(results.reduce((sum, r) => sum + r.stored, 0)).toBe(1);
      expect(results.reduce((sum, r) => sum + r.duplicates, 0)).toBe(19);
      const rows = await second.notifications.list({ limit: 10 });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ title: 'Event vercel:dep-1', eventCount: 1 });
      expect(results.flatMap((r) => r.changed)).toEqual(rows);
    });

    it('folds a monitor going down and up into one resolved row, and a second outage into a new row', async () => {
      const store = await open();
      const down = await store.notifications.ingest([monitor('uptime:1', 'trigger', at(0))], inWindow);
      const [opened] = down.changed;
      expect(opened).toMatchObject({ status: 'open', severity: 'error', eventCount: 1, title: 'Site is down', firstAt: at(0), lastAt: at(0) });
      expect(await store.notifications.unreadCount()).toBe(1);

      const up = await store.notifications.ingest([monitor('uptime:2', 'resolve', at(5 * MINUTE))], inWindow);
      // Same row, resolved; the recovery's `success` does not lower (or raise) its severity.
      expect(up).toEqual({
        stored: 1,
        duplicates: 0,
        sent: [],
        events: [{ sourceEventId: 'uptime:2', effect: 'resolved', notificationId: opened?.id, eventId: expect.any(String) }],
        changed: [{ ...opened, seq: expect.any(Number), status: 'resolved', eventCount: 2, lastAt: at(5 * MINUTE), resolvedAt: at(5 * MINUTE) }],
      });
      expect(up.changed[0]?.seq).toBeGreaterThan(opened?.seq ?? Infinity);

      const again = await store.notifications.ingest([monitor('uptime:3', 'trigger', at(HOUR))], inWindow);
      expect(again.changed).toEqual([expect.objectContaining({ status: 'open', eventCount: 1, firstAt: at(HOUR), resolvedAt: null })]);
      expect(again.changed[0]?.id).not.toBe(opened?.id);
      expect(await store.notifications.list({ limit: 10 })).toEqual([...again.changed, ...up.changed]);
      expect(await store.notifications.unreadCount()).toBe(2);
    });

    it('joins triggers of an open subject: the highest severity, the latest time, the row once in the answer', async () => {
      const store = await open();
      const result = await store.notifications.ingest(
        [
          monitor('uptime:1', 'trigger', at(0), { severity: 'warning', title: 'Site is slow' }),
          event('github:1'),
          monitor('uptime:2', 'trigger', at(2 * MINUTE)),
          // Late: it happened before the previous one.
          monitor('uptime:3', 'trigger', at(MINUTE), { severity: 'warning' }),
          monitor('uptime:4', 'trigger', at(0), { subjectKey: 'uptime:api', severity: 'info' }),
        ],
        inWindow,
      );
      expect(result.stored).toBe(5);
      const [info, site, api] = result.changed;
      expect(result.changed).toHaveLength(3);
      expect(info).toMatchObject({ status: 'info', title: 'Event github:1' });
      expect(site).toMatchObject({ status: 'open', subjectKey: 'uptime:site', title: 'Site is slow', severity: 'error', eventCount: 3, firstAt: at(0), lastAt: at(2 * MINUTE) });
      expect(api).toMatchObject({ status: 'open', subjectKey: 'uptime:api', severity: 'info', eventCount: 1 });
      expect(result.changed.map((row) => row.seq)).toEqual([...result.changed.map((row) => row.seq)].sort((a, b) => a - b));
      expect(await store.notifications.list({ limit: 10 })).toEqual([...result.changed].reverse());
      // The recovery's `success` does not raise an `info` occurrence either.
      const up = await store.notifications.ingest([monitor('uptime:5', 'resolve', at(HOUR), { subjectKey: 'uptime:api' })], inWindow);
      expect(up.changed).toEqual([{ ...api, seq: expect.any(Number), status: 'resolved', severity: 'info', eventCount: 2, lastAt: at(HOUR), resolvedAt: at(HOUR) }]);
    });

    it('folds 20 concurrent triggers of one subject from two processes into one open row of 20 events', async () => {
      const [first, second] = [await open(), await open()];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? first : second).notifications.ingest([monitor(`uptime:${i}`, 'trigger', at(i * SECOND), { severity: i === 7 ? 'error' : 'warning' })], inWindow),
        ),
      );
      expect(results.every((r) => r.stored === 1)).toBe(true);
      const rows = await first.notifications.list({ limit: 10 });
      expect(rows).toEqual([expect.objectContaining({ status: 'open', eventCount: 20, severity: 'error', firstAt: expect.any(String), lastAt: at(19 * SECOND) })]);
      // Every ingest answered the one row, each with a seq of its own.
      const seqs = results.map((r) => r.changed[0]?.seq);
      expect(new Set(results.map((r) => r.changed[0]?.id))).toEqual(new Set([rows[0]?.id]));
      expect(new Set(seqs).size).toBe(20);
      expect(Math.max(...(seqs as number[]))).toBe(rows[0]?.seq);
      // And it resolves as one.
      const up = await second.notifications.ingest([monitor('uptime:up', 'resolve', at(MINUTE))], inWindow);
      expect(up.changed).toEqual([expect.objectContaining({ id: rows[0]?.id, status: 'resolved', eventCount: 21 })]);
    });

    it('keeps other writes working when they start while an ingest is under way', async () => {
      const store = await open();
      // As a batched API request would: writes that start at any moment of a notification transaction must
      // neither time out nor fail. Each starts after `ticks` turns of the microtask queue.
      const after = async (ticks: number, write: () => Promise<unknown>) => {
        for (let i = 0; i < ticks; i++) await Promise.resolve();
        return write();
      };
      const batch = Array.from({ length: 50 }, (_, i) => monitor(`uptime:${i}`, 'trigger', at(i * SECOND)));
      const started = Date.now();
      await Promise.all([
        store.notifications.ingest(batch, inWindow),
        ...[0, 10, 30, 100, 300, 1000].flatMap((ticks) => [
          after(ticks, () => store.settings.update({ widgetLayout: { slots: { seo: 'funding' } } })),
          after(ticks, () => store.auth.sessions.create(session(`s${ticks}`, NOW))),
          after(ticks, () => store.projects.create({ slug: `app-${ticks}`, name: 'App' })),
          after(ticks, () => store.meta.put(`key-${ticks}`, { v: ticks })),
          after(ticks, () => store.notifications.markRead({ all: true }, NOW)),
        ]),
      ]);
      expect(Date.now() - started).toBeLessThan(BUSY_WAIT_MS);
      expect((await store.notifications.list({ limit: 10 }))[0]).toMatchObject({ eventCount: 50 });
      expect((await store.settings.get()).widgetLayout.slots.seo).toBe('funding');
      expect(await store.auth.sessions.list()).toHaveLength(6);
      expect(await store.projects.list()).toHaveLength(6);
    });

    it('keeps a resolve without an open row as a resolved row of its own, and a transition without a subject as info', async () => {
      const store = await open();
      const result = await store.notifications.ingest(
        [monitor('uptime:up', 'resolve', at(0)), monitor('uptime:down', 'trigger', at(MINUTE), { subjectKey: null }), event('sentry:1', { subjectKey: 'sentry:issue-1' })],
        inWindow,
      );
      expect(result.changed).toEqual([
        expect.objectContaining({ status: 'resolved', severity: 'success', eventCount: 1, firstAt: at(0), resolvedAt: at(0), title: 'Site is up' }),
        expect.objectContaining({ status: 'info', severity: 'error', resolvedAt: null, subjectKey: null }),
        expect.objectContaining({ status: 'info', subjectKey: 'sentry:issue-1' }),
      ]);
      // Nothing is open, so a trigger now opens a row instead of joining one.
      const down = await store.notifications.ingest([monitor('uptime:down-2', 'trigger', at(HOUR))], inWindow);
      expect(down.changed).toEqual([expect.objectContaining({ status: 'open', eventCount: 1 })]);
      expect(await store.notifications.list({ limit: 10 })).toHaveLength(4);
    });

    it('writes the relay cursor with its batch, and of a batch that fails neither its events nor its cursor', async () => {
      const store = await open();
      const since = Date.parse(NOW);
      expect(await store.notifications.cursor(RELAY)).toBeUndefined();
      await store.notifications.ingest([event('github:1'), monitor('uptime:1', 'trigger', at(0))], { ...inWindow, cursor: { relayUrl: RELAY, since } });
      expect(await store.notifications.cursor(RELAY)).toBe(since);
      // An empty poll still moves the cursor; another relay has its own.
      await store.notifications.ingest([], { ...inWindow, cursor: { relayUrl: RELAY, since: since + 1 } });
      await store.notifications.ingest([], { ...inWindow, cursor: { relayUrl: 'https://other.example', since: 7 } });
      expect(await store.notifications.cursor(RELAY)).toBe(since + 1);
      expect(await store.notifications.cursor('https://other.example')).toBe(7);
      const before = await store.notifications.list({ limit: 10 });

      const failing = store.notifications.ingest(
        [event('github:2'), monitor('uptime:2', 'resolve', at(MINUTE)), event('github:3', { severity: 'fatal' as NotificationSeverity })],
        { ...inWindow, cursor: { relayUrl: RELAY, since: since + 2 } },
      );
      await expect(failing).rejects.toThrow();
      expect(await store.notifications.cursor(RELAY)).toBe(since + 1);
      expect(await store.notifications.list({ limit: 10 })).toEqual(before);
      expect(await store.notifications.unreadCount()).toBe(2);

      // Nothing of it was claimed either: the batch without the bad event stores both.
      const retry = await store.notifications.ingest([event('github:2'), monitor('uptime:2', 'resolve', at(MINUTE))], { ...inWindow, cursor: { relayUrl: RELAY, since: since + 2 } });
      expect(retry).toMatchObject({ stored: 2, duplicates: 0 });
      expect(retry.changed.map((row) => row.status)).toEqual(['info', 'resolved']);
      expect(await store.notifications.cursor(RELAY)).toBe(since + 2);
    });

    it('lists newest first with filters and pages with beforeSeq', async () => {
      const store = await open();
      const [e1, e2, e3, e4, e5] = await ingestEach(store, [
        event('e1', { projectSlug: 'app' }),
        event('e2', { integration: 'vercel', projectSlug: 'app' }),
        event('e3', { projectSlug: 'other' }),
        event('e4'),
        event('e5', { integration: 'vercel', projectSlug: 'app' }),
      ]);
      if (!e1 || !e2 || !e3 || !e4 || !e5) throw new Error('expected five rows');
      const list = (query: NotificationQuery) => store.notifications.list(query);
      expect(await list({ limit: 10 })).toEqual([e5, e4, e3, e2, e1]);
      expect(await list({ limit: 2 })).toEqual([e5, e4]);
      expect(await list({ limit: 2, beforeSeq: e4.seq })).toEqual([e3, e2]);
      expect(await list({ limit: 2, beforeSeq: e2.seq })).toEqual([e1]);
      expect(await list({ limit: 2, beforeSeq: e1.seq })).toEqual([]);
      expect(ids(await list({ limit: 10, integration: 'github' }))).toEqual(ids([e4, e3, e1]));
      expect(ids(await list({ limit: 10, projectSlug: 'app' }))).toEqual(ids([e5, e2, e1]));
      expect(ids(await list({ limit: 10, projectSlug: 'app', integration: 'github' }))).toEqual(ids([e1]));
      expect(ids(await list({ limit: 1, projectSlug: 'app', beforeSeq: e5.seq }))).toEqual(ids([e2]));

      await store.notifications.markRead({ ids: [e3.id] }, at(HOUR));
      expect(ids(await list({ limit: 10, unread: true }))).toEqual(ids([e5, e4, e2, e1]));
      expect(ids(await list({ limit: 10, unread: true, integration: 'github' }))).toEqual(ids([e4, e1]));
      // Reading moved e3's seq past the others, but not its place in the list, nor any page's contents.
      expect(ids(await list({ limit: 10 }))).toEqual(ids([e5, e4, e3, e2, e1]));
      expect(ids(await list({ limit: 2, beforeSeq: e4.createdSeq }))).toEqual(ids([e3, e2]));
      const [read] = await list({ limit: 1, beforeSeq: e4.createdSeq });
      expect(read?.seq).toBeGreaterThan(e5.seq);
      expect(read?.createdSeq).toBe(e3.createdSeq);
    });

    it('marks rows read with a bigger seq, which changedSince replays, and counts the unread', async () => {
      const store = await open();
      const { changed } = await store.notifications.ingest([event('a'), event('b'), event('c')], inWindow);
      const [a, b, c] = changed;
      if (!a || !b || !c) throw new Error('expected three rows');
      expect(await store.notifications.changedSince(0, 10)).toEqual(changed);
      expect(await store.notifications.changedSince(a.seq, 10)).toEqual([b, c]);
      expect(await store.notifications.changedSince(c.seq, 10)).toEqual([]);
      expect(await store.notifications.unreadCount()).toBe(3);

      const read = await store.notifications.markRead({ ids: [c.id, b.id, 'ghost'] }, '2026-11-23T12:00:00+01:00');
      expect(read).toEqual([
        { ...b, seq: expect.any(Number), readAt: at(HOUR) },
        { ...c, seq: expect.any(Number), readAt: at(HOUR) },
      ]);
      expect(read[0]?.seq).toBeGreaterThan(c.seq);
      expect(read[1]?.seq).toBeGreaterThan(read[0]?.seq ?? Infinity);
      expect(await store.notifications.changedSince(c.seq, 10)).toEqual(read);
      expect(await store.notifications.changedSince(c.seq, 1)).toEqual(read.slice(0, 1));
      expect(await store.notifications.unreadCount()).toBe(1);

      // Already read: nothing changes, not even the seq.
      expect(await store.notifications.markRead({ ids: [b.id] }, at(2 * HOUR))).toEqual([]);
      expect(await store.notifications.markRead({ ids: [] }, at(2 * HOUR))).toEqual([]);
      const lastSeen = read[1]?.seq ?? 0;
      expect(await store.notifications.changedSince(lastSeen, 10)).toEqual([]);

      const all = await store.notifications.markRead({ all: true }, at(3 * HOUR));
      expect(all).toEqual([{ ...a, seq: expect.any(Number), readAt: at(3 * HOUR) }]);
      expect(all[0]?.seq).toBeGreaterThan(lastSeen);
      expect(await store.notifications.changedSince(lastSeen, 10)).toEqual(all);
      expect(await store.notifications.unreadCount()).toBe(0);
      expect(await store.notifications.markRead({ all: true }, at(4 * HOUR))).toEqual([]);
    });

    it('prunes rows read before the one cut-off and unread rows received before the other, never reusing a seq', async () => {
      const store = await open();
      const old = { now: at(-40 * DAY), dedupWindowMs: 60 * DAY };
      const received = (ms: number) => ({ occurredAt: at(ms), receivedAt: at(ms) });
      const { changed } = await store.notifications.ingest(
        [event('old-read', received(-40 * DAY)), event('recent-read', received(-40 * DAY)), event('old-unread', received(-40 * DAY)), event('recent-unread', received(-10 * DAY))],
        old,
      );
      const [oldRead, recentRead, oldUnread, recentUnread] = changed;
      if (!oldRead || !recentRead || !oldUnread || !recentUnread) throw new Error('expected four rows');
      await store.notifications.markRead({ ids: [recentRead.id] }, at(-DAY));
      // Read last, so it holds the highest seq when it is pruned.
      const [lastRead] = await store.notifications.markRead({ ids: [oldRead.id] }, at(-20 * DAY));

      expect(await store.notifications.prune(at(-7 * DAY), at(-30 * DAY))).toBe(2);
      expect(ids(await store.notifications.list({ limit: 10 }))).toEqual(ids([recentUnread, recentRead]));
      expect(await store.notifications.unreadCount()).toBe(1);
      expect(await store.notifications.prune(at(-7 * DAY), at(-30 * DAY))).toBe(0);

      // The pruned rows' claims are still live: a late copy of their events is a duplicate.
      expect(await store.notifications.ingest([event('old-unread')], inWindow)).toMatchObject({ stored: 0, duplicates: 1 });
      // The next row's seq is past the pruned one's, so a reader who saw that misses nothing.
      const next = await store.notifications.ingest([event('new')], inWindow);
      expect(next.changed[0]?.seq).toBeGreaterThan(lastRead?.seq ?? Infinity);
      expect(await store.notifications.changedSince(lastRead?.seq ?? 0, 10)).toEqual(next.changed);

      // Cut-offs at NOW take every read row and every unread one received before it.
      expect(await store.notifications.prune(NOW, NOW)).toBe(2);
      expect(ids(await store.notifications.list({ limit: 10 }))).toEqual(ids(next.changed));
    });

    it('folds a trigger, a resolve and a trigger of one subject in ONE batch into a resolved row and a new open one', async () => {
      const store = await open();
      const result = await store.notifications.ingest(
        [
          monitor('uptime:1', 'trigger', at(0)),
          monitor('uptime:2', 'trigger', at(MINUTE), { severity: 'warning', title: 'Site is slow' }),
          monitor('uptime:3', 'resolve', at(2 * MINUTE)),
          monitor('uptime:4', 'trigger', at(3 * MINUTE), { severity: 'warning' }),
          event('github:1'),
        ],
        inWindow,
      );
      expect(result.stored).toBe(5);
      expect(result.duplicates).toBe(0);
      const [first, second, info] = result.changed;
      expect(result.changed).toHaveLength(3);
      expect(first).toMatchObject({ status: 'resolved', title: 'Site is down', severity: 'error', eventCount: 3, firstAt: at(0), lastAt: at(2 * MINUTE), resolvedAt: at(2 * MINUTE) });
      expect(second).toMatchObject({ status: 'open', severity: 'warning', eventCount: 1, firstAt: at(3 * MINUTE), resolvedAt: null });
      expect(info).toMatchObject({ status: 'info', title: 'Event github:1' });
      expect(new Set(ids(result.changed)).size).toBe(3);
      expect(await store.notifications.list({ limit: 10 })).toEqual([...result.changed].reverse());
      // Each event, and its claim, points at the row it folded into.
      const rowOf = { 'uptime:1': first?.id, 'uptime:2': first?.id, 'uptime:3': first?.id, 'uptime:4': second?.id, 'github:1': info?.id };
      expect(Object.fromEntries((await query('select source_event_id, notification_id from notification_events')).map((r) => [r.source_event_id, r.notification_id]))).toEqual(rowOf);
      expect(Object.fromEntries((await query('select source_event_id, notification_id from notification_dedup')).map((r) => [r.source_event_id, r.notification_id]))).toEqual(rowOf);
      // The next resolve closes the second occurrence, not the first.
      const up = await store.notifications.ingest([monitor('uptime:5', 'resolve', at(HOUR))], inWindow);
      expect(up.changed).toEqual([{ ...second, seq: expect.any(Number), status: 'resolved', eventCount: 2, lastAt: at(HOUR), resolvedAt: at(HOUR) }]);
    });

    it('stores a batch larger than a statement holds, with increasing seqs past every earlier one', async () => {
      const store = await open();
      const before = await store.notifications.ingest([event('before')], inWindow);
      const batch = Array.from({ length: 650 }, (_, i) => event(`github:${i}`, { occurredAt: at(i * SECOND) }));
      // One subject's occurrence across the chunks: opened early, joined mid-way, resolved near the end.
      batch[10] = monitor('uptime:down', 'trigger', at(10 * SECOND));
      batch[300] = monitor('uptime:again', 'trigger', at(300 * SECOND), { severity: 'warning' });
      batch[640] = monitor('uptime:up', 'resolve', at(640 * SECOND));
      // A copy in another chunk than its original is a duplicate too.
      batch[620] = event('github:5');
      const result = await store.notifications.ingest(batch, inWindow);
      expect(result).toMatchObject({ stored: 649, duplicates: 1 });
      expect(result.changed).toHaveLength(647);
      const seqs = result.changed.map((row) => row.seq);
      expect(seqs[0]).toBeGreaterThan(before.changed[0]?.seq ?? Infinity);
      expect(seqs.every((seq, i) => i === 0 || seq > (seqs[i - 1] as number))).toBe(true);
      expect(result.changed.filter((row) => row.subjectKey === 'uptime:site')).toEqual([
        expect.objectContaining({ status: 'resolved', eventCount: 3, severity: 'error', firstAt: at(10 * SECOND), resolvedAt: at(640 * SECOND) }),
      ]);
      // In the order of their last change: the occurrence's was its resolve, the 640th event.
      expect(result.changed.findIndex((row) => row.subjectKey === 'uptime:site')).toBe(637);
      expect(await store.notifications.changedSince(before.changed[0]?.seq ?? 0, 1000)).toEqual(result.changed);
      // The batch's 649 and the earlier one.
      expect(await query('select count(*) as n from notification_events')).toEqual([{ n: 650 }]);
      expect(await query('select count(*) as n from notification_dedup')).toEqual([{ n: 650 }]);
      expect(await query(`select hits from notification_dedup where source_event_id = 'github:5'`)).toEqual([{ hits: 2 }]);
    });

    it('counts live duplicates, claims taken over and copies within the batch, each in its claim’s hits', async () => {
      const store = await open();
      // `live` is claimed until a day after an hour ago; `expired`'s claim ended a day ago.
      await store.notifications.ingest([event('live')], { now: at(-HOUR), dedupWindowMs: DAY });
      const [old] = (await store.notifications.ingest([event('expired')], { now: at(-2 * DAY), dedupWindowMs: DAY })).changed;
      const result = await store.notifications.ingest(
        [event('new'), event('live'), event('expired'), event('new'), event('live'), event('live'), event('new')],
        inWindow,
      );
      expect(result).toMatchObject({ stored: 2, duplicates: 5 });
      expect(result.changed.map((row) => row.title)).toEqual(['Event new', 'Event expired']);
      const [fresh, again] = result.changed;
      expect(again?.id).not.toBe(old?.id);
      const claims = await query('select source_event_id, notification_id, first_seen_at, expires_at, hits from notification_dedup order by source_event_id');
      // Postgres answers instants as Dates, SQLite as the ISO text it was given.
      const instant = (value: unknown) => new Date(value as string).toISOString();
      expect(claims.map((c) => ({ ...c, first_seen_at: instant(c.first_seen_at), expires_at: instant(c.expires_at) }))).toEqual([
        // Taken over: its hits start again, and it points at the new row.
        { source_event_id: 'expired', notification_id: again?.id, first_seen_at: NOW, expires_at: at(DAY), hits: 1 },
        { source_event_id: 'live', notification_id: expect.any(String), first_seen_at: at(-HOUR), expires_at: at(DAY - HOUR), hits: 4 },
        { source_event_id: 'new', notification_id: fresh?.id, first_seen_at: NOW, expires_at: at(DAY), hits: 3 },
      ]);
      expect(await store.notifications.list({ limit: 10 })).toHaveLength(4);

      // With no window, a copy in the same batch is still a duplicate; the next batch's is not.
      const zero = { now: NOW, dedupWindowMs: 0 };
      expect(await store.notifications.ingest([event('once'), event('once')], zero)).toMatchObject({ stored: 1, duplicates: 1 });
      expect(await store.notifications.ingest([event('once')], zero)).toMatchObject({ stored: 1, duplicates: 0 });
    });

    it('folds the events after a live duplicate as if it was not there, pointing their claims at the rows they joined', async () => {
      const store = await open();
      // A recovery with nothing open (a row of its own, its claim live), then an outage.
      await store.notifications.ingest([monitor('uptime:up', 'resolve', at(0))], inWindow);
      const [down] = (await store.notifications.ingest([monitor('uptime:down', 'trigger', at(MINUTE))], inWindow)).changed;
      // The recovery again does not close the outage: the next trigger joins it instead of opening a row.
      const result = await store.notifications.ingest([monitor('uptime:up', 'resolve', at(0)), monitor('uptime:down-2', 'trigger', at(2 * MINUTE))], inWindow);
      expect(result).toEqual({
        stored: 1,
        duplicates: 1,
        sent: [],
        events: [
          { sourceEventId: 'uptime:up', effect: 'duplicate', notificationId: null, eventId: null },
          { sourceEventId: 'uptime:down-2', effect: 'joined', notificationId: down?.id, eventId: expect.any(String) },
        ],
        changed: [{ ...down, seq: expect.any(Number), eventCount: 2, lastAt: at(2 * MINUTE) }],
      });
      expect(await query(`select notification_id from notification_dedup where source_event_id = 'uptime:down-2'`)).toEqual([{ notification_id: down?.id }]);
      expect(await query(`select notification_id from notification_events where source_event_id = 'uptime:down-2'`)).toEqual([{ notification_id: down?.id }]);
      expect(await query(`select hits from notification_dedup where source_event_id = 'uptime:up'`)).toEqual([{ hits: 2 }]);
      expect(await store.notifications.list({ limit: 10 })).toHaveLength(2);
    });

    it('keeps a read row read when a batch joins and then resolves it', async () => {
      const store = await open();
      const [opened] = (await store.notifications.ingest([monitor('uptime:1', 'trigger', at(0))], inWindow)).changed;
      const [read] = await store.notifications.markRead({ ids: [opened?.id ?? ''] }, at(MINUTE));
      expect(read?.readAt).toBe(at(MINUTE));
      const joined = await store.notifications.ingest([event('github:1'), monitor('uptime:2', 'trigger', at(2 * MINUTE))], inWindow);
      expect(joined.changed).toEqual([
        expect.objectContaining({ status: 'info', readAt: null }),
        { ...read, seq: expect.any(Number), eventCount: 2, lastAt: at(2 * MINUTE) },
      ]);
      expect(joined.changed[1]?.seq).toBeGreaterThan(read?.seq ?? Infinity);
      expect(await store.notifications.unreadCount()).toBe(1);
      const resolved = await store.notifications.ingest([monitor('uptime:3', 'resolve', at(3 * MINUTE))], inWindow);
      expect(resolved.changed).toEqual([{ ...read, seq: expect.any(Number), status: 'resolved', eventCount: 3, lastAt: at(3 * MINUTE), resolvedAt: at(3 * MINUTE) }]);
      expect(await store.notifications.list({ limit: 10, unread: true })).toEqual([joined.changed[0]]);
    });

    it('answers each changed row once, as the batch left it, in seq order (the order of their last change)', async () => {
      const store = await open();
      const [earlier] = (await store.notifications.ingest([event('earlier')], inWindow)).changed;
      const result = await store.notifications.ingest(
        [
          monitor('a:1', 'trigger', at(0), { subjectKey: 'monitor:a' }),
          event('x'),
          monitor('b:1', 'trigger', at(0), { subjectKey: 'monitor:b' }),
          monitor('a:2', 'trigger', at(MINUTE), { subjectKey: 'monitor:a' }),
          monitor('b:2', 'resolve', at(MINUTE), { subjectKey: 'monitor:b' }),
          event('y'),
        ],
        inWindow,
      );
      expect(result.changed.map((row) => [row.title, row.subjectKey, row.status, row.eventCount])).toEqual([
        ['Event x', null, 'info', 1],
        ['Site is down', 'monitor:a', 'open', 2],
        ['Site is down', 'monitor:b', 'resolved', 2],
        ['Event y', null, 'info', 1],
      ]);
      const seqs = result.changed.map((row) => row.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(4);
      expect(await store.notifications.changedSince(earlier?.seq ?? 0, 10)).toEqual(result.changed);
    });
  });

  describe('notifications of removed projects', () => {
    it('removes the rows of the named projects with their events and claims, leaving the others', async () => {
      const store = await open();
      await store.notifications.ingest(
        [event('a-1', { projectSlug: 'a' }), event('a-2', { projectSlug: 'a' }), event('b-1', { projectSlug: 'b' }), event('none')],
        inWindow,
      );
      expect(await store.notifications.removeForProjects([])).toBe(0);
      expect(await store.notifications.removeForProjects(['a', 'gone'])).toBe(2);
      expect((await store.notifications.list({ limit: 10 })).map((row) => row.projectSlug).sort()).toEqual(['b', null]);
      // Their events may come again (the demo added back) and are new rows; the others' stay duplicates.
      expect(await store.notifications.ingest([event('a-1', { projectSlug: 'a' }), event('b-1', { projectSlug: 'b' })], inWindow)).toMatchObject({
        stored: 1,
        duplicates: 1,
      });
    });
  });

  describe('late assignment of notifications', () => {
    const ownsApp = (refs: readonly string[]) => (refs.some((ref) => ref.toLowerCase() === 'code_host:acme/app') ? 'app' : null);

    it('gives the unassigned rows whose refs a new project claims to it with new seqs, their events too, and moves no other row', async () => {
      const store = await open();
      await store.notifications.ingest(
        [
          event('gh-1', { refs: ['code_host:Acme/App'] }),
          event('gh-2', { refs: ['code_host:acme/other'] }),
          event('gh-3', { refs: ['code_host:acme/app'], projectSlug: 'first' }),
          // As a row stored before refs were kept.
          event('old'),
        ],
        inWindow,
      );
      await store.notifications.ingest([monitor('down', 'trigger', NOW, { refs: ['uptime_monitor:7', 'code_host:acme/app'] }), monitor('up', 'resolve', at(MINUTE))], inWindow);
      const before = await store.notifications.latestSeq();
      const bySource = async () => new Map((await store.transfer.dump()).notification_events.map((row) => [row.sourceEventId, row]));
      const seqs = new Map((await store.notifications.list({ limit: 10 })).map((row) => [row.title, row.seq]));
      await store.projects.create({ slug: 'app', name: 'App', integrations: { code_host: { repos: ['acme/app'] } } });

      const assigned = await store.notifications.outbox((ops) => ops.assign(ownsApp));
      expect(assigned.map((row) => [row.title, row.projectSlug])).toEqual([
        ['Event gh-1', 'app'],
        ['Site is down', 'app'],
      ]);
      expect(assigned.every((row) => row.seq > before)).toBe(true);
      expect(await store.notifications.changedSince(before, 10)).toEqual(assigned);
      expect((await store.notifications.list({ limit: 10, projectSlug: 'app' })).map((row) => row.title)).toEqual(['Site is down', 'Event gh-1']);
      expect((await bySource()).get('up')?.projectSlug).toBe('app');
      // The row another project has keeps it, and its seq.
      const [first] = await store.notifications.list({ limit: 10, projectSlug: 'first' });
      expect([first?.title, first?.seq]).toEqual(['Event gh-3', seqs.get('Event gh-3')]);
      // Nothing is left to assign; then any project's claim takes only the rows without a project that have refs.
      expect(await store.notifications.outbox((ops) => ops.assign(ownsApp))).toEqual([]);
      expect((await store.notifications.outbox((ops) => ops.assign(() => 'other'))).map((row) => row.title)).toEqual(['Event gh-2']);
      expect((await store.notifications.list({ limit: 10 })).map((row) => [row.title, row.projectSlug])).toEqual([
        ['Site is down', 'app'],
        ['Event old', null],
        ['Event gh-3', 'first'],
        ['Event gh-2', 'other'],
        ['Event gh-1', 'app'],
      ]);
      expect((await store.transfer.dump()).notifications.find((row) => row.title === 'Event gh-1')?.refs).toBe('["code_host:Acme/App"]');
    });
  });

  describe('email sends', () => {
    const emailRow = (id: string, status: 'sent' | 'held', createdAt: number): DeliveryRow => ({
      id,
      notificationId: null,
      subjectKey: null,
      channel: 'email',
      purpose: 'digest',
      status,
      reason: 'test',
      dueAt: null,
      message: { title: `Mail ${id}`, body: '', severity: 'info', tag: id, url: null, renotify: true, requireInteraction: false },
      seq: null,
      digestId: null,
      createdAt,
      sentAt: status === 'sent' ? createdAt : null,
    });

    it('queues released email rows (without a seq), gives each claim to one holder, and settles them', async () => {
      const store = await open();
      const added = await store.notifications.outbox((ops) => ops.addDeliveries([emailRow('e1', 'sent', 1_000), emailRow('e2', 'held', 1_000), emailRow('e3', 'sent', 2_000)]));
      expect(added.map((row) => row.seq)).toEqual([null, null, null]);
      expect(await store.notifications.sentSince(0, 10)).toEqual([]);
      expect(await store.emails.nextDue()).toBe(1_000);
      // The held one is queued once the outbox releases it.
      await store.notifications.outbox((ops) => ops.updateDeliveries([{ ...emailRow('e2', 'sent', 1_000), sentAt: 3_000 }]));

      const [a, b] = await Promise.all([store.emails.claim('A', 5_000, 60_000, 2), store.emails.claim('B', 5_000, 60_000, 10)]);
      const claimed = [...a, ...b].map((send) => send.id).sort();
      expect(claimed).toEqual(['e1', 'e2', 'e3']);
      expect(new Set(claimed).size).toBe(3);
      const first = [...a, ...b].find((send) => send.id === 'e1');
      expect(first).toMatchObject({ state: 'queued', attempts: 0, delivery: { channel: 'email', message: { title: 'Mail e1' } } });
      // A live lease keeps others off; a claim that expired is anyone's again.
      expect(await store.emails.claim('C', 6_000, 60_000, 10)).toEqual([]);
      const holderOf = (id: string) => (a.some((send) => send.id === id) ? 'A' : 'B');

      await store.emails.settle('e1', holderOf('e1'), { state: 'delivered', attempts: 1, dueAt: 1_000, providerId: 'msg-1', error: null, sentAt: 7_000 });
      await store.emails.settle('e2', 'not-the-holder', { state: 'failed', attempts: 1, dueAt: 1_000, providerId: null, error: 'x', sentAt: null });
      await store.emails.settle('e3', holderOf('e3'), { state: 'queued', attempts: 1, dueAt: 70_000, providerId: null, error: 'SendGrid refused the email (503)', sentAt: null });
      expect(await store.emails.claim('C', 66_000, 60_000, 10)).toMatchObject([{ id: 'e2', state: 'queued' }]);
      // e2 (queued when released at 3 s, claimed by C now) and e3 (tried again at 70 s) wait; e1 is done.
      expect(await store.emails.nextDue()).toBe(3_000);
      expect(await store.emails.deliveredSince(6_999)).toBe(1);
      expect(await store.emails.deliveredSince(7_000)).toBe(0);
      expect(await store.emails.oldestDeliveredSince(0)).toBe(7_000);
      const recent = await store.emails.recent(10);
      // Newest queued first: e2 was released last (3 s); e1 and e3 came in one batch.
      expect(recent.map((send) => [send.id, send.state, send.providerId, send.error])).toEqual([
        ['e2', 'queued', null, null],
        ['e3', 'queued', null, 'SendGrid refused the email (503)'],
        ['e1', 'delivered', 'msg-1', null],
      ]);
    });
    it('lets a holder send a claimed row only while its claim holds: renewed before each send, lost once another claimed it (issue 48)', async () => {
      const store = await open();
      await store.notifications.outbox((ops) => ops.addDeliveries([emailRow('e1', 'sent', 1_000), emailRow('e2', 'sent', 1_000)]));
      // A claims both until 65 s, and reaches e1 at 30 s: still its own, renewed until 90 s.
      expect((await store.emails.claim('A', 5_000, 60_000, 10)).map((send) => send.id)).toEqual(['e1', 'e2']);
      expect(await store.emails.hold('e1', 'A', 30_000, 60_000)).toBe(true);
      // At 70 s A is still sending e1 (a slow service), and its batch's first lease has run out: B claims what it can,
      // e2 but not e1, whose lease A renewed.
      expect((await store.emails.claim('B', 70_000, 60_000, 10)).map((send) => send.id)).toEqual(['e2']);
      // A comes to e2 after B took it: A must not send it; B holds it.
      expect(await store.emails.hold('e2', 'A', 71_000, 60_000)).toBe(false);
      expect(await store.emails.hold('e2', 'B', 71_000, 60_000)).toBe(true);
      // Nobody but its holder holds a row, and nobody holds a settled one.
      expect(await store.emails.hold('e1', 'B', 71_000, 60_000)).toBe(false);
      await store.emails.settle('e1', 'A', { state: 'delivered', attempts: 1, dueAt: 1_000, providerId: 'msg-1', error: null, sentAt: 72_000 });
      expect(await store.emails.hold('e1', 'A', 73_000, 60_000)).toBe(false);
      // A holder whose lease ran out with no one taking the row over still holds it: renewing it is safe.
      expect(await store.emails.hold('e2', 'B', 200_000, 60_000)).toBe(true);
      expect(await store.emails.claim('C', 200_001, 60_000, 10)).toEqual([]);
    });

    it('claims a recovery only after its outage email, while the outage waits for a retry (issue 48)', async () => {
      const store = await open();
      const mail = (id: string, notificationId: string, purpose: DeliveryRow['purpose'], at: number): DeliveryRow => ({ ...emailRow(id, 'sent', at), notificationId, purpose });
      await store.notifications.outbox((ops) => ops.addDeliveries([mail('o', 'n1', 'first', 1_000)]));
      await store.emails.claim('A', 2_000, 60_000, 10);
      await store.emails.settle('o', 'A', { state: 'queued', attempts: 1, dueAt: 62_000, providerId: null, error: 'SendGrid refused the email (503)', sentAt: null });
      // The recovery comes at 3 s, and another thread's email too: the recovery waits, and the next due is the outage's retry.
      await store.notifications.outbox((ops) => ops.addDeliveries([mail('r', 'n1', 'resolve', 3_000), mail('other', 'n2', 'first', 3_000)]));
      expect((await store.emails.claim('B', 4_000, 60_000, 10)).map((send) => send.id)).toEqual(['other']);
      await store.emails.settle('other', 'B', { state: 'delivered', attempts: 1, dueAt: 3_000, providerId: 'msg-2', error: null, sentAt: 4_500 });
      expect(await store.emails.nextDue()).toBe(62_000);
      // The outage goes at 62 s; the recovery is due again (since 3 s) and claimed after it.
      expect((await store.emails.claim('C', 62_000, 60_000, 10)).map((send) => send.id)).toEqual(['o']);
      await store.emails.settle('o', 'C', { state: 'delivered', attempts: 2, dueAt: 62_000, providerId: 'msg-1', error: null, sentAt: 62_500 });
      expect(await store.emails.nextDue()).toBe(3_000);
      expect((await store.emails.claim('C', 63_000, 60_000, 10)).map((send) => send.id)).toEqual(['r']);
    });
  });

  describe('push subscriptions', () => {
    const device = (id: string, endpoint: string, createdAt: number) => pushDeviceRow(id, { endpoint, createdAt });
    // A push service's endpoint is long: FCM's run past 150 characters, so the column is text.
    const long = `https://fcm.googleapis.com/fcm/send/${'x'.repeat(400)}`;

    it('removes the device of an endpoint (a browser signing out), answering its name; another endpoint removes nothing (issue 49)', async () => {
      const store = await open();
      await store.push.add(device('a', long, 1_000));
      await store.push.add(device('b', 'https://updates.push.services.mozilla.com/wpush/v2/b', 2_000));
      expect(await store.push.removeEndpoint('https://updates.push.services.mozilla.com/wpush/v2/elsewhere')).toBeUndefined();
      expect(await store.push.removeEndpoint(long)).toBe('Phone a');
      expect((await store.push.list()).map((row) => row.id)).toEqual(['b']);
      expect(await store.push.removeEndpoint(long)).toBeUndefined();
    });

    it('keeps devices oldest first, replaces a browser subscribing again, records outcomes, and forgets a removed one', async () => {
      const store = await open();
      await store.push.add(device('a', long, 1_000));
      await store.push.add(device('b', 'https://updates.push.services.mozilla.com/wpush/v2/b', 2_000));
      await store.push.add({ ...device('c', long, 3_000), expirationTime: 9_000 });
      // 'c' is the same browser as 'a' (its endpoint): it takes a's place.
      expect((await store.push.list()).map((row) => [row.id, row.endpoint.length, row.expirationTime])).toEqual([
        ['b', 52, null],
        ['c', long.length, 9_000],
      ]);
      await store.push.succeeded('b', 4_000);
      await store.push.failed('c', 5_000, 'The push service answered 503');
      expect(await store.push.get('b')).toMatchObject({ lastSuccessAt: 4_000, lastFailure: null, removedAt: null, sealedKeys: 'v1.sealed-b' });
      expect(await store.push.get('c')).toMatchObject({ lastSuccessAt: null, lastFailureAt: 5_000, lastFailure: 'The push service answered 503' });
      // Gone at the push service: the keys go, the row stays to say so.
      await store.push.gone('b', 6_000, 'The push service answered 410: the subscription is gone');
      expect(await store.push.get('b')).toMatchObject({ sealedKeys: '', removedAt: 6_000, lastFailureAt: 6_000 });
      expect(await store.push.remove('c')).toBe(true);
      expect(await store.push.remove('c')).toBe(false);
      expect(await store.push.get('c')).toBeUndefined();
      expect((await store.push.list()).map((row) => row.id)).toEqual(['b']);
    });

    it('queues a released push for each device subscribed then, and a recovery only for the devices its outage or its digest went to (issue 48)', async () => {
      const store = await open();
      const pushRow = (id: string, purpose: DeliveryRow['purpose'], createdAt: number, notificationId: string | null, extra: Partial<DeliveryRow> = {}): DeliveryRow => ({
        id,
        notificationId,
        subjectKey: null,
        channel: 'push',
        purpose,
        status: 'sent',
        reason: 'test',
        dueAt: null,
        message: { title: `Push ${id}`, body: '', severity: 'error', tag: id, url: null, renotify: true, requireInteraction: false },
        seq: null,
        digestId: null,
        createdAt,
        sentAt: createdAt,
        ...extra,
      });
      await store.push.add(device('phone', 'https://fcm.googleapis.com/fcm/send/phone', 1_000));
      // n1's outage goes to the phone; n2's waits for the morning digest, which goes to the phone too.
      await store.notifications.outbox((ops) =>
        ops.addDeliveries([pushRow('o1', 'first', 10_000, 'n1'), pushRow('o2', 'first', 10_000, 'n2', { status: 'digested', digestId: 'dg', sentAt: null }), pushRow('dg', 'digest', 11_000, null)]),
      );
      await store.push.add(device('laptop', 'https://updates.push.services.mozilla.com/wpush/v2/laptop', 12_000));
      // Both recover, and n3 (whose outage never went to any device) too: each recovery goes to the phone only.
      await store.notifications.outbox((ops) => ops.addDeliveries([pushRow('r1', 'resolve', 13_000, 'n1'), pushRow('r2', 'resolve', 13_000, 'n2'), pushRow('r3', 'resolve', 13_000, 'n3'), pushRow('o4', 'first', 13_000, 'n4')]));
      expect((await store.push.sends.recent(20)).map((send) => send.id).sort()).toEqual(['dg:phone', 'o1:phone', 'o4:laptop', 'o4:phone', 'r1:phone', 'r2:phone']);
      // n1's outage to the phone has not gone yet: its recovery there is not claimed before it (n2's, after the digest, is).
      const first = await store.push.sends.claim('me', 20_000, 60_000, 20);
      expect(first.map((send) => send.id).sort()).toEqual(['dg:phone', 'o1:phone', 'o4:laptop', 'o4:phone', 'r2:phone']);
      // The push service answers the outage 429: tried again at 90 s. Until then the recovery waits, and the next due is 90 s.
      await store.push.sends.settle('o1:phone', 'me', { state: 'queued', attempts: 1, dueAt: 90_000, status: 429, error: 'later', sentAt: null });
      for (const other of first.filter((send) => send.id !== 'o1:phone')) {
        await store.push.sends.settle(other.id, 'me', { state: 'delivered', attempts: 1, dueAt: other.dueAt, status: 201, error: null, sentAt: 20_500 });
      }
      expect(await store.push.sends.claim('next', 31_000, 60_000, 20)).toEqual([]);
      expect(await store.push.sends.nextDue()).toBe(90_000);
      expect((await store.push.sends.claim('next', 90_000, 60_000, 20)).map((send) => send.id)).toEqual(['o1:phone']);
      await store.push.sends.settle('o1:phone', 'next', { state: 'delivered', attempts: 2, dueAt: 90_000, status: 201, error: null, sentAt: 90_500 });
      expect((await store.push.sends.claim('last', 91_000, 60_000, 20)).map((send) => send.id)).toEqual(['r1:phone']);
    });
  });

  describe('chat connections', () => {
    const connection = (id: string, minSeverity: ChannelConnectionRow['minSeverity'], createdAt: number): ChannelConnectionRow => ({
      id,
      kind: 'slack',
      name: `#${id}`,
      minSeverity,
      settings: '{}',
      sealedSecret: `v1.sealed-${id}`,
      createdAt,
      lastSuccessAt: null,
      lastFailureAt: null,
      lastFailure: null,
      attentionAt: null,
      attention: null,
    });
    const chatRow = (id: string, severity: 'warning' | 'error', purpose: DeliveryRow['purpose'], createdAt: number, notificationId: string | null = null): DeliveryRow => ({
      id,
      notificationId,
      subjectKey: null,
      channel: 'chat',
      purpose,
      status: 'sent',
      reason: 'test',
      dueAt: null,
      message: { title: `Chat ${id}`, body: '', severity, tag: id, url: null, renotify: true, requireInteraction: false },
      seq: null,
      digestId: null,
      createdAt,
      sentAt: createdAt,
    });

    it('queues a released chat row for each connection its floor lets through, claims each once, and finds a thread’s outage message', async () => {
      const store = await open();
      await store.channels.add(connection('ops', 'error', 1_000));
      await store.channels.add(connection('team', 'warning', 2_000));
      await store.channels.add({ ...connection('old', 'warning', 3_000), attentionAt: 2_500, attention: 'Slack answered 404: no_service' });
      await store.notifications.outbox((ops) => ops.addDeliveries([chatRow('w', 'warning', 'first', 10_000), chatRow('e', 'error', 'first', 11_000, 'n1'), chatRow('r', 'warning', 'resolve', 12_000, 'n1')]));
      // The warning to the warning floor only; the error and its recovery to both; none to the connection that needs attention.
      expect((await store.channels.sends.recent(10)).map((send) => send.id).sort()).toEqual(['e:ops', 'e:team', 'r:ops', 'r:team', 'w:team']);
      // Each recovery waits for its outage to that connection to go first (issue 48).
      const queued = await store.channels.sends.claim('me', 20_000, 60_000, 10);
      expect(queued.map((send) => send.id).sort()).toEqual(['e:ops', 'e:team', 'w:team']);
      expect(await store.channels.sends.claim('other', 20_000, 60_000, 10)).toEqual([]);
      const outage = queued.find((send) => send.id === 'e:team');
      await store.channels.sends.settle('e:team', 'me', { state: 'delivered', attempts: 1, dueAt: 11_000, status: 200, error: null, providerId: '1183245', sentAt: 20_500 });
      expect(await store.channels.sends.outage('team', 'n1')).toMatchObject({ id: outage?.id, providerId: '1183245', delivery: { purpose: 'first', message: { title: 'Chat e' } } });
      expect(await store.channels.sends.outage('ops', 'n1')).toBeUndefined();
      // Its outage there gone, #team's recovery is claimed; #ops's still waits behind its outage.
      expect((await store.channels.sends.claim('me', 20_600, 60_000, 10)).map((send) => send.id)).toEqual(['r:team']);
      // Refused for good: marked, and what still waits unclaimed for it goes nowhere.
      await store.channels.sends.settle('w:team', 'me', { state: 'queued', attempts: 1, dueAt: 40_000, status: 429, error: 'later', providerId: null, sentAt: null });
      await store.channels.attention('team', 21_000, 'Slack answered 404: no_service');
      expect((await store.channels.sends.recent(10)).find((send) => send.id === 'w:team')?.state).toBe('failed');
      expect(await store.channels.get('team')).toMatchObject({ attentionAt: 21_000, lastFailure: 'Slack answered 404: no_service' });
      // A change clears it; a success too.
      await store.channels.update({ id: 'team', name: '#team2', minSeverity: 'info', settings: '{"label":"x"}', sealedSecret: 'v1.new' });
      expect(await store.channels.get('team')).toMatchObject({ name: '#team2', minSeverity: 'info', attentionAt: null, attention: null, sealedSecret: 'v1.new' });
      await store.channels.succeeded('old', 22_000);
      expect(await store.channels.get('old')).toMatchObject({ lastSuccessAt: 22_000, attention: null });
      expect((await store.channels.list()).map((row) => row.id)).toEqual(['ops', 'team', 'old']);
      expect(await store.channels.remove('ops')).toBe(true);
      expect(await store.channels.remove('ops')).toBe(false);
      expect(await store.channels.sends.nextDue()).toBe(11_000);
    });

    it('finds the "flapping" notice a flap’s end answers on a connection, on whichever row of the subject it went (issue 48)', async () => {
      const store = await open();
      await store.channels.add(connection('ops', 'warning', 1_000));
      const flapping = { ...chatRow('f', 'warning', 'flap_start', 10_000, 'n3'), subjectKey: 'betterstack:monitor:api' };
      await store.notifications.outbox((ops) => ops.addDeliveries([flapping, { ...chatRow('o', 'error', 'first', 9_000, 'n2'), subjectKey: 'betterstack:monitor:api' }]));
      expect(await store.channels.sends.flapStart('ops', 'betterstack:monitor:api')).toBeUndefined();
      // Still queued: what the dry run of a recovery counts as told (it goes there after it).
      expect([await store.channels.sends.outageQueued('ops', 'n3'), await store.channels.sends.outageQueued('ops', 'n9')]).toEqual([true, false]);
      await store.channels.sends.claim('me', 20_000, 60_000, 10);
      await store.channels.sends.settle('f:ops', 'me', { state: 'delivered', attempts: 1, dueAt: 10_000, status: 200, error: null, providerId: 'ts-1', sentAt: 20_500 });
      expect(await store.channels.sends.flapStart('ops', 'betterstack:monitor:api')).toMatchObject({ id: 'f:ops', providerId: 'ts-1', delivery: { purpose: 'flap_start' } });
      expect(await store.channels.sends.flapStart('ops', 'betterstack:monitor:web')).toBeUndefined();
      expect(await store.channels.sends.outageQueued('ops', 'n3')).toBe(false);
    });

    it('re-seals a secret only while it is still the one read: not over what another process sealed first, nor for an unknown id (issue 49)', async () => {
      const store = await open();
      await store.channels.add(connection('ops', 'warning', 1_000));
      await store.channels.add(connection('team', 'warning', 2_000));
      await store.channels.rebind('ops', 'v1.sealed-ops', 'v1.bound-ops');
      // Nothing but the secret changes.
      expect(await store.channels.get('ops')).toEqual({ ...connection('ops', 'warning', 1_000), sealedSecret: 'v1.bound-ops' });
      // Another process (a store of its own) re-sealed #team first: a rebind from the value both read keeps its value.
      const other = await open();
      await other.channels.rebind('team', 'v1.sealed-team', 'v1.bound-by-other');
      await store.channels.rebind('team', 'v1.sealed-team', 'v1.bound-here');
      expect((await store.channels.get('team'))?.sealedSecret).toBe('v1.bound-by-other');
      // An unknown id: no row appears and none changes.
      await store.channels.rebind('gone', 'v1.sealed-ops', 'v1.bound-gone');
      await store.channels.rebind('gone', 'v1.bound-ops', 'v1.bound-gone');
      expect(await store.channels.get('gone')).toBeUndefined();
      expect((await store.channels.list()).map((row) => [row.id, row.sealedSecret])).toEqual([
        ['ops', 'v1.bound-ops'],
        ['team', 'v1.bound-by-other'],
      ]);
    });
  });

  describe('leases', () => {
    it('gives a lease to one holder until it expires; the holder renews it and releases it', async () => {
      const store = await open();
      const ttl = 30 * SECOND;
      expect(await store.leases.acquire('relay-poller', 'A', ttl, at(0))).toBe(true);
      expect(await store.leases.acquire('relay-poller', 'B', ttl, at(10 * SECOND))).toBe(false);
      expect(await store.leases.acquire('other-job', 'B', ttl, at(10 * SECOND))).toBe(true);
      // A renews it until 50 s, so at 40 s B still cannot have it; from 50 s it can.
      expect(await store.leases.acquire('relay-poller', 'A', ttl, at(20 * SECOND))).toBe(true);
      expect(await store.leases.acquire('relay-poller', 'B', ttl, at(40 * SECOND))).toBe(false);
      expect(await store.leases.acquire('relay-poller', 'B', ttl, at(50 * SECOND))).toBe(true);
      expect(await store.leases.acquire('relay-poller', 'A', ttl, at(55 * SECOND))).toBe(false);
      // Only the holder can release it.
      await store.leases.release('relay-poller', 'A');
      expect(await store.leases.acquire('relay-poller', 'A', ttl, at(60 * SECOND))).toBe(false);
      await store.leases.release('relay-poller', 'B');
      expect(await store.leases.acquire('relay-poller', 'A', ttl, at(61 * SECOND))).toBe(true);
    });

    it('gives a free lease to exactly one of 20 concurrent holders from two processes', async () => {
      const [first, second] = [await open(), await open()];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first : second).leases.acquire('relay-poller', `holder-${i}`, MINUTE, NOW)),
      );
      expect(results.filter((held) => held)).toHaveLength(1);
      const winner = `holder-${results.indexOf(true)}`;
      expect(await second.leases.acquire('relay-poller', winner, MINUTE, at(SECOND))).toBe(true);
      expect(await first.leases.acquire('relay-poller', 'late', MINUTE, at(SECOND))).toBe(false);
    });
  });

  it('migrates a blank database, and keeps the data when it is opened again (migrations are applied once)', async () => {
    url = await databases.blank(after);
    const first = await open();
    expect(await first.lastMigration()).toBe(Math.max(...migrationsOf(dialect, migrationsDir).map((migration) => migration.folderMillis)));
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

  const template = sqliteTemplate(migrationsDir);
  afterAll(() => template.drop(), 60_000);

  storeSuite('sqlite', {
    async migrated(after) {
      const database = await template.clone();
      // Dropped beside the next test; the template's drop waits for it.
      after(() => void database.drop());
      return database.url;
    },
    // A directory that does not exist yet: openStore has to create it.
    blank: () => `file:${path.join(dir, String(++count), 'dashboard.db')}`,
  });

  // Three OS processes that each start tsx and open the store: 3 s alone, over 30 s once (a whole npm test, its lint beside it).
  it('stores an event once and folds a subject into one row when separate OS processes ingest at once', async () => {
    const url = `file:${path.join(dir, 'processes', 'dashboard.db')}`;
    await (await openStore({ url, migrationsDir })).close();
    // Each process ingests the same event 10 times and 10 triggers of its own, all starting at one instant, so that
    // their write transactions meet SQLite's lock (and its busy timeout), not only this process's queue.
    const worker = `
      import { openStore } from ${JSON.stringify(fileURLToPath(new URL('./index.ts', import.meta.url)))};
      const [url, migrationsDir, name, startAt, event] = process.argv.slice(1);
      const store = await openStore({ url, migrationsDir });
      await new Promise((resolve) => setTimeout(resolve, Number(startAt) - Date.now()));
      const base = JSON.parse(event);
      const options = { now: base.occurredAt, dedupWindowMs: 86400000 };
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => [
        store.notifications.ingest([{ ...base, sourceEventId: 'vercel:shared', transition: null, subjectKey: null }], options),
        store.notifications.ingest([{ ...base, sourceEventId: name + ':' + i }], options),
      ]).flat());
      await store.close();
      console.log(JSON.stringify(results.map((r) => r.stored)));
    `;
    const startAt = Date.now() + 2500;
    const run = (name: string) =>
      promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', worker, url, migrationsDir, name, String(startAt), JSON.stringify(monitor('', 'trigger', NOW))],
        { cwd: fileURLToPath(new URL('../../..', import.meta.url)) },
      );
    const outputs = await Promise.all(['p1', 'p2', 'p3'].map(run));
    const stored = outputs.flatMap(({ stdout }) => JSON.parse(stdout) as number[]);
    expect(stored).toHaveLength(60);
    expect(stored.reduce((sum, n) => sum + n, 0)).toBe(31);
    const store = await openStore({ url, migrationsDir });
    try {
      const rows = await store.notifications.list({ limit: 10 });
      expect(rows.map((row) => [row.status, row.eventCount]).sort()).toEqual([
        ['info', 1],
        ['open', 30],
      ]);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('ingests through a libSQL transaction when it has no writer connection, as on a remote database', async () => {
    const url = `file:${path.join(dir, 'no-writer', 'dashboard.db')}`;
    await (await openStore({ url, migrationsDir })).close();
    const store = sqliteStore(drizzle(createClient({ url })), { lockKey: url });
    onTestFinished(() => store.close());
    await store.notifications.ingest([monitor('uptime:up', 'resolve', at(0))], inWindow);
    const [down] = (await store.notifications.ingest([monitor('uptime:down', 'trigger', at(MINUTE))], inWindow)).changed;
    const result = await store.notifications.ingest(
      [monitor('uptime:up', 'resolve', at(0)), monitor('uptime:down-2', 'trigger', at(2 * MINUTE)), event('github:1'), event('github:1', { title: 'a copy' })],
      { ...inWindow, cursor: { relayUrl: RELAY, since: 5 } },
    );
    expect(result).toEqual({
      stored: 2,
      duplicates: 2,
      sent: [],
      events: [
        { sourceEventId: 'uptime:up', effect: 'duplicate', notificationId: null, eventId: null },
        { sourceEventId: 'uptime:down-2', effect: 'joined', notificationId: down?.id, eventId: expect.any(String) },
        { sourceEventId: 'github:1', effect: 'info', notificationId: expect.any(String), eventId: expect.any(String) },
        { sourceEventId: 'github:1', effect: 'duplicate', notificationId: expect.any(String), eventId: null },
      ],
      changed: [{ ...down, seq: expect.any(Number), eventCount: 2, lastAt: at(2 * MINUTE) }, expect.objectContaining({ status: 'info', title: 'Event github:1' })],
    });
    expect(await store.notifications.cursor(RELAY)).toBe(5);
    const client = createClient({ url });
    onTestFinished(() => client.close());
    const { rows } = await client.execute('select source_event_id, notification_id, hits from notification_dedup order by source_event_id');
    expect(rows.map((row) => [row[0], row[1], row[2]])).toEqual([
      ['github:1', result.changed[1]?.id, 2],
      ['uptime:down', down?.id, 1],
      ['uptime:down-2', down?.id, 1],
      ['uptime:up', expect.any(String), 2],
    ]);
  });

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
  const template = postgresTemplate(migrationsDir);
  beforeAll(() => {
    if (pgProblem) throw new Error(`CI=true needs Postgres at ${PG_SERVER}, which is unreachable: ${pgProblem}`);
  });
  afterAll(() => template.drop(), 60_000);

  storeSuite('postgres', {
    async migrated(after) {
      const database = await template.clone();
      // Dropped beside the next test; the template's drop waits for it.
      after(() => void database.drop());
      return database.url;
    },
    async blank(after) {
      const database = await scratchPostgres();
      after(database.drop);
      return database.url;
    },
  });

  it('folds concurrent triggers into one row on a server whose transactions default to REPEATABLE READ', async () => {
    const database = await template.clone();
    onTestFinished(() => database.drop());
    const name = new URL(database.url).pathname.slice(1);
    await withPostgres(database.url, (sql) => sql`alter database ${sql(name)} set default_transaction_isolation = 'repeatable read'`);
    // The test's own database, so no other test's transactions see the setting (nor need it reset).
    expect(await withPostgres(database.url, (sql) => sql`show transaction_isolation`)).toEqual([{ transaction_isolation: 'repeatable read' }]);
    const first = await openStore({ url: database.url, migrationsDir });
    onTestFinished(() => first.close());
    const second = await openStore({ url: database.url, migrationsDir });
    onTestFinished(() => second.close());
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first : second).notifications.ingest([monitor(`uptime:${i}`, 'trigger', at(i * SECOND))], inWindow)),
    );
    expect(await first.notifications.list({ limit: 10 })).toEqual([expect.objectContaining({ status: 'open', eventCount: 20 })]);
  });
});

if (myProblem && !inCI) {
  console.warn(`\n*** MariaDB at ${MYSQL_SERVER} is unreachable (${myProblem}): the store suite does not run on MySQL. ***\n`);
}

describe.skipIf(myProblem !== undefined && !inCI)('MySQL store (on MariaDB)', () => {
  beforeAll(() => {
    if (myProblem) throw new Error(`CI=true needs MariaDB at ${MYSQL_SERVER}, which is unreachable: ${myProblem}`);
  });

  const template = mysqlTemplate(migrationsDir);
  // Each test's database is dropped once the test ends, beside the next test: dropping them all in one hook took over
  // its 10 s on a busy machine (a database of some 30 InnoDB tables takes a while to drop).
  afterAll(() => template.drop(), 60_000);

  storeSuite('mysql', {
    async migrated(after) {
      const database = await template.clone();
      // Dropped beside the next test; the template's drop waits for it.
      after(() => void database.drop());
      return database.url;
    },
    async blank(after) {
      const database = await scratchMysql();
      after(database.drop);
      return database.url;
    },
  });
});

describe('openStore and redactDatabaseUrl', () => {
  it('rejects an unsupported scheme, naming the accepted ones without echoing the password', async () => {
    const opening = openStore({ url: 'mssql://root:hunter2@db.example/dash', migrationsDir });
    await expect(opening).rejects.toThrow(/"mssql:".*file:.*libsql:\/\/.*postgres:\/\/.*mysql:\/\//);
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

  it('passes notifications and leases through, and ingesting or reading does not keep a stale project list', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-memo-'));
    const raw = await openStore({ url: `file:${path.join(dir, 'memo.db')}`, migrationsDir });
    try {
      const store = memoizeReads(raw);
      expect(store.notifications).toBe(raw.notifications);
      expect(store.leases).toBe(raw.leases);
      const { changed } = await store.notifications.ingest([event('github:1')], inWindow);
      expect(await raw.notifications.list({ limit: 10 })).toEqual(changed);
      expect(await store.leases.acquire('job', 'me', MINUTE, NOW)).toBe(true);
      expect(await raw.leases.acquire('job', 'other', MINUTE, NOW)).toBe(false);
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

describe.for([
  { engine: 'Postgres', problem: pgProblem, scratch: scratchPostgres },
  { engine: 'MySQL (MariaDB)', problem: myProblem, scratch: scratchMysql },
])('several dashboard processes starting at once on a fresh $engine database', ({ problem, scratch }) => {
  it.skipIf(problem !== undefined && !inCI)('all start: one migrates, the others wait for it and find the database up to date', async () => {
    const database = await scratch();
    onTestFinished(() => database.drop());
    const stores = await Promise.all(Array.from({ length: 3 }, () => openStore({ url: database.url, migrationsDir })));
    for (const store of stores) onTestFinished(() => store.close());
    await stores[0]!.projects.create({ slug: 'acme', name: 'Acme', integrations: {} });
    expect((await stores[2]!.projects.list()).map((project) => project.slug)).toEqual(['acme']);
  });
});
