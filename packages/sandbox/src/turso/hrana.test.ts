import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, LibsqlError, type Client } from '@libsql/client';
import Database from 'libsql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@dash/db';
import { startTurso, type FakeTurso } from './hrana.ts';

const migrationsDir = fileURLToPath(new URL('../../../../drizzle', import.meta.url));
const TOKEN = 'eyJhbGciOiJFZERTQSJ9.turso-test-token.signature';

let dir: string;
let turso: FakeTurso;
let client: Client | undefined;
let store: Store | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dash-turso-'));
  turso = await startTurso({ file: join(dir, 'turso.db'), authToken: TOKEN });
});
afterEach(async () => {
  client?.close();
  await store?.close();
  client = store = undefined;
  await turso.close();
  rmSync(dir, { recursive: true, force: true });
});

const connect = (authToken = TOKEN) => (client = createClient({ url: turso.url, authToken }));

describe('the fake Turso, through @libsql/client over HTTP', () => {
  it('runs statements, batches and interactive transactions on a real SQLite file', async () => {
    const db = connect();
    await db.execute('create table t (id integer primary key, name text not null unique, score real, data blob)');
    await db.batch([{ sql: 'insert into t (name, score, data) values (?, ?, ?)', args: ['a', 1.5, new Uint8Array([1, 2])] }, { sql: 'insert into t (name) values (?)', args: ['b'] }], 'write');
    const tx = await db.transaction('write');
    await tx.execute({ sql: 'insert into t (name) values (:name)', args: { name: 'c' } });
    await tx.rollback();
    const tx2 = await db.transaction('write');
    await tx2.execute({ sql: 'insert into t (name) values (?)', args: ['d'] });
    await tx2.commit();
    const { rows } = await db.execute('select id, name, score, data from t order by id');
    expect(rows.map((row) => [row.id, row.name, row.score])).toEqual([
      [1, 'a', 1.5],
      [2, 'b', null],
      [3, 'd', null],
    ]);
    expect(new Uint8Array(rows[0]?.data as ArrayBuffer)).toEqual(new Uint8Array([1, 2]));
    // The data is in the file, and every request went over the pipeline endpoint.
    const file = new Database(join(dir, 'turso.db'));
    expect((file.prepare('select count(*) as n from t').get() as { n: number }).n).toBe(3);
    file.close();
    expect(turso.requests.every((request) => request.path === '/v2/pipeline')).toBe(true);
    expect(turso.requests.flatMap((request) => request.types)).toEqual(expect.arrayContaining(['execute', 'batch', 'store_sql', 'close']));
  });

  it('answers a constraint violation with sqld’s primary code', async () => {
    const db = connect();
    await db.execute('create table t (name text primary key)');
    await db.execute({ sql: 'insert into t values (?)', args: ['x'] });
    const error = await db.execute({ sql: 'insert into t values (?)', args: ['x'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LibsqlError);
    expect(error).toMatchObject({ code: 'SQLITE_CONSTRAINT', message: expect.stringContaining('UNIQUE constraint failed') });
  });

  it('refuses a wrong token with 401, and the error does not carry the token', async () => {
    const error = (await connect('wrong-token-value').execute('select 1').catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/401/);
    expect(error.message).not.toContain('wrong-token-value');
  });

  it('fails the call a fault hits', async () => {
    const db = connect();
    await db.execute('create table t (x integer)');
    turso.failFrom(/^insert/);
    await expect(db.execute('insert into t values (1)')).rejects.toThrow(/503/);
    await db.execute('insert into t values (2)');
    expect((await db.execute('select x from t')).rows.map((row) => row.x)).toEqual([2]);
  });

  it('serves the dashboard’s store: migrations, settings, projects, the inbox and leases over Hrana', async () => {
    store = await openStore({ url: turso.url, authToken: TOKEN, migrationsDir });
    expect(await store.lastMigration()).toBeGreaterThan(0);
    await store.projects.create({ slug: 'formfox', name: 'FormFox' });
    await store.settings.update({ exchangeRates: { EUR: 1.1 } });
    await store.credentials.putSealed('github', 'v1.a.b.c');
    const now = '2026-11-24T09:00:00.000Z';
    const event = { sourceEventId: 'github:1', integration: 'github', type: 'pr.merged', subjectKey: null, transition: null, severity: 'info', title: 'Merged', url: null, projectSlug: 'formfox', occurredAt: now, receivedAt: now, relayEventId: null } as const;
    expect((await store.notifications.ingest([event], { now, dedupWindowMs: 60_000 })).stored).toBe(1);
    expect((await store.notifications.ingest([event], { now, dedupWindowMs: 60_000 })).duplicates).toBe(1);
    expect(await store.leases.acquire('poller', 'a', 60_000, now)).toBe(true);
    expect(await store.leases.acquire('poller', 'b', 60_000, now)).toBe(false);
    expect((await store.projects.list()).map((project) => project.slug)).toEqual(['formfox']);
    expect((await store.settings.get()).exchangeRates.EUR).toBe(1.1);
    expect(await store.notifications.unreadCount()).toBe(1);
    const counts = await store.transfer.counts();
    expect(counts).toMatchObject({ projects: 1, credentials: 1, notifications: 1 });
  });
});
