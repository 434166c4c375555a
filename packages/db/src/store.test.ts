import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { migrationsOf, openStore, redactDatabaseUrl } from './index.ts';
import { sqliteStore } from './sqlite.ts';
import { scratchMysql, scratchPostgres, withPostgres, type MigratedTemplate } from './testing.ts';
import { at, event, inWindow, MINUTE, monitor, NOW, RELAY, SECOND } from './testing/store-fixtures.ts';
import { describeStores, migrationsDir } from './testing/store-suite.ts';

/**
 * A store as a whole: opened and migrated on each engine (and by processes starting at once), what one engine alone has
 * to get right, and what several processes on one database share through it (leases, rate windows).
 */

const inCI = process.env.CI === 'true';

const engines = await describeStores('the store\'s migrations, leases and rate windows', ({ dialect, template, open, blank }) => {
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
    await blank();
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

  if (dialect === 'sqlite') sqliteOnly();
  if (dialect === 'postgres') postgresOnly(template);
});
const problemOf = (name: string) => engines.find((engine) => engine.name === name)?.problem;
const pgProblem = problemOf('Postgres');
const myProblem = problemOf('MySQL (MariaDB)');

/** Inside 'SQLite store': separate OS processes on one file, a libSQL connection without a writer, a file in a new directory. */
function sqliteOnly() {
  let dir = '';
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-db-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

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
}

/** Inside 'Postgres store': a server whose transactions default to REPEATABLE READ. */
function postgresOnly(template: MigratedTemplate) {
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
}

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
