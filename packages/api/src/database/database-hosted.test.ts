import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DatabaseConfigResult } from '@dash/contracts';
import { scratchMysql, scratchPostgres, withMysql, withPostgres } from '@dash/db/testing';
import { startTurso } from '@dash/sandbox/turso';
import { databaseTests, fill, inCI, myProblem, pgProblem, seen } from './testing.ts';

// A move to each hosted provider and back: Supabase on the local Postgres, PlanetScale on the local MariaDB (a scratch
// database each, dropped after the test) and Turso on the fake Hrana server. The SQL handed over, the switch once it
// ran, a copy that fails halfway, and a test of a server that refuses, never showing the secret.

const { cleanups, dashboard, tmp } = databaseTests();

describe.skipIf(pgProblem !== undefined && !inCI)('Supabase (hosted_db_1) on the local Postgres', () => {
  async function scratch() {
    const db = await scratchPostgres();
    cleanups.push(db.drop);
    return db.url;
  }

  it('hands over the SQL to run, switches once it ran, copies everything, and comes back with the data intact', async () => {
    const { api, call } = await dashboard();
    await fill(call);
    const before = await seen(call);
    const url = await scratch();

    expect((await call('POST', '/api/database/test', { provider: 'hosted_db_1', config: { url } })).json).toEqual({ success: true, tables: 'missing', rows: 0 });
    const waiting = (await call('POST', '/api/database/config', { provider: 'hosted_db_1', config: { url }, data: 'copy' })).json as DatabaseConfigResult;
    expect(waiting).toMatchObject({ switched: false, provider: 'hosted_db_1', problem: expect.stringContaining('run the SQL that Migrate shows') });

    const migrate = await call('POST', '/api/database/migrate');
    expect(migrate.json).toMatchObject({ migrated: false, provider: 'hosted_db_1', where: expect.stringContaining('SQL Editor') });
    const statements = (migrate.json as { statements: string[] }).statements;
    expect(statements[0]).toBe('BEGIN;');
    expect(statements.at(-1)).toBe('COMMIT;');
    expect(statements).toContain('ALTER TABLE "public"."credentials" ENABLE ROW LEVEL SECURITY;');
    // Nothing ran: the SQL is the user's to run.
    expect((await call('POST', '/api/database/test', { provider: 'hosted_db_1' })).json).toMatchObject({ tables: 'missing' });

    // The user pastes it into the SQL editor.
    const rls = await withPostgres(url, async (sql) => {
      await sql.unsafe(statements.join('\n'));
      return sql<{ relname: string }[]>`select relname from pg_class where relrowsecurity and relnamespace = 'public'::regnamespace`;
    });
    expect(rls.map((row) => row.relname)).toEqual(expect.arrayContaining(['user_settings', 'api_cache', 'projects', 'credentials', 'notifications']));
    expect((await call('POST', '/api/database/test', { provider: 'hosted_db_1' })).json).toEqual({ success: true, tables: 'current', rows: 0 });
    expect((await call('POST', '/api/database/migrate')).json).toMatchObject({ statements: [] });

    // Check again: the saved config and the data option chosen before.
    const switched = (await call('POST', '/api/database/config', { provider: 'hosted_db_1' })).json as DatabaseConfigResult;
    expect(switched).toMatchObject({ switched: true, configured: true, provider: 'hosted_db_1', serving: { provider: 'hosted_db_1' } });
    expect(api.store.dialect).toBe('postgres');
    expect(await seen(call)).toEqual(before);

    // Work done on Postgres comes back to SQLite with a copy (the old file holds the old data: replace it).
    await call('POST', '/api/projects', { slug: 'orbit', name: 'Orbit' });
    const after = await seen(call);
    const back = await call('POST', '/api/database/config', { provider: 'sqlite', config: {}, data: 'copy', replace: true });
    expect(back.json).toMatchObject({ switched: true, source: 'dashboard', provider: 'sqlite' });
    expect(api.store.dialect).toBe('sqlite');
    expect(await seen(call)).toEqual(after);
  });

  it('leaves the target empty when the copy fails halfway', async () => {
    const { call } = await dashboard();
    await fill(call);
    const url = await scratch();
    await call('POST', '/api/database/config', { provider: 'hosted_db_1', config: { url }, data: 'copy' });
    const statements = ((await call('POST', '/api/database/migrate')).json as { statements: string[] }).statements;
    await withPostgres(url, async (sql) => {
      await sql.unsafe(statements.join('\n'));
      // The database refuses the credentials table's rows: tables before it were written in the same transaction.
      await sql.unsafe(`create function refuse() returns trigger language plpgsql as $$ begin raise exception 'disk full (simulated)'; end $$;
        create trigger refuse before insert on credentials for each row execute function refuse();`);
    });

    const res = (await call('POST', '/api/database/config', { provider: 'hosted_db_1' })).json as DatabaseConfigResult;
    expect(res).toMatchObject({ switched: false, serving: { provider: 'sqlite' }, problem: expect.stringContaining('disk full (simulated)') });
    const [{ n } = { n: -1 }] = await withPostgres(url, (sql) => sql<{ n: number }[]>`select (select count(*) from projects) + (select count(*) from user_settings) as n`);
    expect(Number(n)).toBe(0);
    expect((await seen(call)).projects.length).toBe(2);
  });

  it('tests an unreachable server with the engine’s reason and never the password', async () => {
    const { api, call } = await dashboard();
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const url = `postgresql://postgres.abcdefgh:${password}@127.0.0.1:9/postgres`;
    const res = await call('POST', '/api/database/test', { provider: 'hosted_db_1', config: { url } });
    expect(res.json).toMatchObject({ success: false, error: expect.stringContaining('ECONNREFUSED') });
    const chosen = await call('POST', '/api/database/config', { provider: 'hosted_db_1', config: { url }, data: 'copy' });
    expect(chosen.json).toMatchObject({ switched: false, problem: expect.stringContaining('ECONNREFUSED') });
    for (const text of [res.text, chosen.text, (await call('GET', '/api/database/config')).text, ...api.log.lines]) {
      expect(text).not.toContain(password);
      expect(text).not.toContain(url);
    }
    expect(readFileSync(join(api.dir, 'data', 'database.json'), 'utf8')).not.toContain(password);
  });
});

describe.skipIf(myProblem !== undefined && !inCI)('PlanetScale (hosted_db_3) on the local MariaDB', () => {
  /** A database of its own and a user with a password (PlanetScale's credentials are per database). */
  async function scratch() {
    const db = await scratchMysql();
    const username = `dash_${randomBytes(4).toString('hex')}`;
    const password = `pscale_pw_${randomBytes(12).toString('hex')}`;
    await withMysql(async (connection) => {
      await connection.query(`create user '${username}'@'%' identified by '${password}'`);
      await connection.query(`grant all on \`${db.name}\`.* to '${username}'@'%'`);
    });
    cleanups.push(async () => {
      await withMysql((connection) => connection.query(`drop user if exists '${username}'@'%'`));
      await db.drop();
    });
    return { host: '127.0.0.1:3306', username, password, database: db.name };
  }

  it('hands over the SQL for its console, switches once it ran, and comes back with the data intact', async () => {
    const { api, call } = await dashboard();
    await fill(call);
    const before = await seen(call);
    const config = await scratch();

    expect((await call('POST', '/api/database/test', { provider: 'hosted_db_3', config })).json).toEqual({ success: true, tables: 'missing', rows: 0 });
    const waiting = (await call('POST', '/api/database/config', { provider: 'hosted_db_3', config, data: 'copy' })).json as DatabaseConfigResult;
    expect(waiting).toMatchObject({ switched: false, problem: expect.stringContaining('PlanetScale’s console'), description: `${config.username} at 127.0.0.1:3306/${config.database}` });
    const migrate = (await call('POST', '/api/database/migrate')).json as { statements: string[]; where: string };
    expect(migrate).toMatchObject({ migrated: false, provider: 'hosted_db_3', where: expect.stringContaining('PlanetScale') });
    expect(migrate.statements.some((statement) => statement.startsWith('CREATE TABLE `notifications`'))).toBe(true);

    // The user runs them in the console, one by one.
    await withMysql(async (connection) => {
      for (const statement of migrate.statements) await connection.query(statement);
    }, config.database);
    expect((await call('POST', '/api/database/test', { provider: 'hosted_db_3' })).json).toEqual({ success: true, tables: 'current', rows: 0 });

    expect((await call('POST', '/api/database/config', { provider: 'hosted_db_3' })).json).toMatchObject({ switched: true, provider: 'hosted_db_3' });
    expect(api.store.dialect).toBe('mysql');
    expect(await seen(call)).toEqual(before);
    await call('POST', '/api/projects', { slug: 'orbit', name: 'Orbit' });
    const after = await seen(call);
    expect((await call('POST', '/api/database/config', { provider: 'sqlite', config: {}, data: 'copy', replace: true })).json).toMatchObject({ switched: true });
    expect(api.store.dialect).toBe('sqlite');
    expect(await seen(call)).toEqual(after);
  });

  it('leaves the target empty when the copy fails halfway', async () => {
    const { call } = await dashboard();
    await fill(call);
    const config = await scratch();
    await call('POST', '/api/database/config', { provider: 'hosted_db_3', config, data: 'copy' });
    const { statements } = (await call('POST', '/api/database/migrate')).json as { statements: string[] };
    await withMysql(async (connection) => {
      for (const statement of statements) await connection.query(statement);
      // The database refuses the credentials' rows: the tables before them were written in the same transaction.
      await connection.query(`create trigger refuse before insert on credentials for each row signal sqlstate '45000' set message_text = 'disk full (simulated)'`);
    }, config.database);

    const res = (await call('POST', '/api/database/config', { provider: 'hosted_db_3' })).json as DatabaseConfigResult;
    expect(res).toMatchObject({ switched: false, serving: { provider: 'sqlite' }, problem: expect.stringContaining('disk full (simulated)') });
    const [rows] = await withMysql((connection) => connection.query('select (select count(*) from projects) + (select count(*) from user_settings) as n'), config.database);
    expect(Number((rows as { n: number }[])[0]?.n)).toBe(0);
    expect((await seen(call)).projects).toHaveLength(2);
  });

  it('tests a wrong password with the server’s refusal and never the password', async () => {
    const { call } = await dashboard();
    const config = { ...(await scratch()), password: `pscale_pw_${randomBytes(12).toString('hex')}` };
    const res = await call('POST', '/api/database/test', { provider: 'hosted_db_3', config });
    expect(res.json).toMatchObject({ success: false, error: expect.stringContaining('Access denied') });
    expect(res.text).not.toContain(config.password);
  });
});

describe('Turso (hosted_db_2) on the fake Hrana server', () => {
  const TOKEN = `turso-${randomBytes(16).toString('hex')}`;
  async function fakeTurso() {
    const turso = await startTurso({ file: join(tmp(), 'turso.db'), authToken: TOKEN });
    cleanups.push(() => turso.close());
    return turso;
  }

  it('creates the tables on Migrate, switches with a copy, and comes back with the data intact', async () => {
    const { api, call } = await dashboard();
    await fill(call);
    const before = await seen(call);
    const turso = await fakeTurso();
    const config = { url: turso.url, authToken: TOKEN };

    expect((await call('POST', '/api/database/test', { provider: 'hosted_db_2', config })).json).toEqual({ success: true, tables: 'missing', rows: 0 });
    const waiting = (await call('POST', '/api/database/config', { provider: 'hosted_db_2', config, data: 'copy' })).json as DatabaseConfigResult;
    expect(waiting).toMatchObject({ switched: false, configured: false, problem: expect.stringContaining('create them with Migrate') });
    expect((await call('POST', '/api/database/migrate')).json).toEqual({ migrated: true, provider: 'hosted_db_2' });
    expect((await call('GET', '/api/database/config')).json).toMatchObject({ problem: expect.stringContaining('check again') });

    const switched = (await call('POST', '/api/database/config', { provider: 'hosted_db_2' })).json as DatabaseConfigResult;
    expect(switched).toMatchObject({ switched: true, provider: 'hosted_db_2', serving: { provider: 'hosted_db_2', description: new URL(turso.url).host } });
    expect(await seen(call)).toEqual(before);
    // Every statement now goes over Hrana.
    const sent = turso.requests.length;
    await call('POST', '/api/projects', { slug: 'orbit', name: 'Orbit' });
    expect(turso.requests.length).toBeGreaterThan(sent);
    const after = await seen(call);

    expect((await call('POST', '/api/database/config', { provider: 'sqlite', config: {}, data: 'copy', replace: true })).json).toMatchObject({ switched: true });
    expect(api.store.dialect).toBe('sqlite');
    expect(await seen(call)).toEqual(after);
  });

  it('leaves the target empty when the server fails halfway through the copy', async () => {
    const { call } = await dashboard();
    await fill(call);
    const turso = await fakeTurso();
    await call('POST', '/api/database/config', { provider: 'hosted_db_2', config: { url: turso.url, authToken: TOKEN }, data: 'copy' });
    await call('POST', '/api/database/migrate');
    // The copy's transaction opens and writes the first tables; the server goes away when the credentials come.
    turso.failFrom(/^insert into "credentials"/, 1000);
    const res = (await call('POST', '/api/database/config', { provider: 'hosted_db_2' })).json as DatabaseConfigResult;
    expect(res).toMatchObject({ switched: false, serving: { provider: 'sqlite' }, problem: expect.stringMatching(/503/) });
    // It failed halfway: rows had gone in, inside the copy's transaction, before the server went away.
    const sent = turso.requests.flatMap((request) => request.sql);
    expect(sent.some((text) => /^insert into "projects"/.test(text))).toBe(true);
    turso.recover();
    expect((await call('POST', '/api/database/test', { provider: 'hosted_db_2' })).json).toEqual({ success: true, tables: 'current', rows: 0 });
    expect((await seen(call)).projects).toHaveLength(2);
  });

  it('tests a wrong token with the server’s refusal and never the token', async () => {
    const { api, call } = await dashboard();
    const turso = await fakeTurso();
    const wrong = `wrong-${randomBytes(12).toString('hex')}`;
    const res = await call('POST', '/api/database/test', { provider: 'hosted_db_2', config: { url: turso.url, authToken: wrong } });
    expect(res.json).toMatchObject({ success: false, error: expect.stringContaining('401') });
    const chosen = await call('POST', '/api/database/config', { provider: 'hosted_db_2', config: { url: turso.url, authToken: wrong }, data: 'use' });
    for (const text of [res.text, chosen.text, (await call('GET', '/api/database/config')).text, ...api.log.lines, readFileSync(join(api.dir, 'data', 'database.json'), 'utf8')]) {
      expect(text).not.toContain(wrong);
    }
  });
});
