import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { authTableNames, DUMP_VERSION, isAuthSettingKey, type DatabaseConfigResult, type Dump, type ImportResult } from '@dash/contracts';
import type { Store } from '@dash/db';
import { MYSQL_SERVER, mysqlProblem, PG_SERVER, postgresProblem, scratchMysql, scratchPostgres, withMysql, withPostgres } from '@dash/db/testing';
import { startTurso } from '@dash/sandbox/turso';
import type { Identity } from '../auth/access.ts';
import { installationOf } from '../data/shared.ts';
import { createCaller } from '../root.ts';
import { createTestApi, restClient } from '../testing.ts';

type Api = Awaited<ReturnType<typeof createTestApi>>;
const apis: Api[] = [];
const cleanups: (() => Promise<void>)[] = [];
// A scratch Postgres or MariaDB database is dropped here, and DROP DATABASE waits for a checkpoint: on a machine busy
// with the whole suite (every file creating and dropping databases), one has taken over 10 s, vitest's default.
afterEach(async () => {
  for (const api of apis.splice(0)) await api.dispose();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}, 60_000);

async function dashboard(options: Parameters<typeof createTestApi>[0] = {}) {
  const api = await createTestApi({ scheduler: false, ...options });
  apis.push(api);
  return { api, call: restClient(() => api.caller) };
}

const pgProblem = await postgresProblem();
const inCI = process.env.CI === 'true';
if (pgProblem && !inCI) console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): the Supabase cases do not run. ***\n`);
const myProblem = await mysqlProblem();
if (myProblem && !inCI) console.warn(`\n*** MariaDB at ${MYSQL_SERVER} is unreachable (${myProblem}): the PlanetScale cases do not run. ***\n`);

/** Secrets a test plants; none may come back in a response, a log line or an export. */
const CREDENTIAL_SECRET = `ghp_${randomBytes(12).toString('hex')}`;

/** Something in every place a user would miss after a move. */
async function fill(call: Api extends never ? never : ReturnType<typeof restClient>) {
  for (const slug of ['formfox', 'tally']) {
    expect((await call('POST', '/api/projects', { slug, name: slug.toUpperCase(), integrations: { code_host: { repos: [`acme/${slug}`] } } })).status).toBe(201);
  }
  expect((await call('POST', '/api/settings', { projectOrder: ['tally', 'formfox'], exchangeRates: { EUR: 1.08 } })).status).toBe(200);
  expect((await call('POST', '/api/credentials', { key: 'github', values: { token: CREDENTIAL_SECRET } })).status).toBe(200);
}

/** What a user sees of a dashboard. */
async function seen(call: ReturnType<typeof restClient>) {
  const [settings, projects, credentials] = await Promise.all([call('GET', '/api/settings'), call('GET', '/api/projects'), call('GET', '/api/credentials')]);
  return { settings: settings.json, projects: (projects.json as { projects: { slug: string }[] }).projects, credentials: credentials.json };
}

describe('GET /api/database/config', () => {
  it('starts on the embedded default and says where that file is', async () => {
    const { call } = await dashboard();
    const res = await call('GET', '/api/database/config');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      provider: 'sqlite',
      configured: true,
      source: 'default',
      description: join('data', 'dashboard.db'),
      serving: { provider: 'sqlite', description: join('data', 'dashboard.db') },
      problem: null,
      data: null,
    });
  });

  it('answers env when DATABASE_URL chooses, and refuses a change with 409 naming it', async () => {
    const { api, call } = await dashboard({ databaseUrl: `file:${join(tmp(), 'env.db')}` });
    expect((await call('GET', '/api/database/config')).json).toMatchObject({ provider: 'sqlite', configured: true, source: 'env' });
    const res = await call('POST', '/api/database/config', { provider: 'sqlite', config: { path: 'other.db' }, data: 'copy' });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ error: { code: 'CONFLICT', message: expect.stringContaining('DATABASE_URL is set') } });
    expect(existsSync(join(api.dir, 'data', 'database.json'))).toBe(false);
  });
});

/** Another dashboard whose SQLite file lies in `api`'s data directory (where a switch over HTTP may go). */
async function neighbour(api: Api, name = 'other.db') {
  const file = join(api.dir, 'data', name);
  return { ...(await dashboard({ databaseUrl: `file:${file}` })), file };
}

/** A directory of its own, removed after the test. */
function tmp() {
  const dir = mkdtempSync(join(tmpdir(), 'dash-db-'));
  cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
  return dir;
}

describe('switching between SQLite files', () => {
  it('copies the data into the new file, serves from it at once, and keeps the choice over a restart', async () => {
    const { api, call } = await dashboard();
    await fill(call);
    const before = await seen(call);

    // The same body as a choice (SPEC.md): what the switch would do is ignored by a test.
    const tested = await call('POST', '/api/database/test', { provider: 'sqlite', config: { path: 'data/moved/dashboard.db' }, data: 'copy' });
    expect(tested.json).toEqual({ success: true, tables: 'missing', rows: 0 });
    expect(existsSync(join(api.dir, 'data', 'moved', 'dashboard.db'))).toBe(false);

    const res = await call('POST', '/api/database/config', { provider: 'sqlite', config: { path: 'data/moved/dashboard.db' }, data: 'copy' });
    expect(res.status).toBe(200);
    const result = res.json as DatabaseConfigResult;
    expect(result).toMatchObject({ provider: 'sqlite', configured: true, source: 'dashboard', switched: true, problem: null });
    expect(result.copied).toMatchObject({ projects: 2, credentials: 1 });
    expect(result.serving.description).toBe(join('data', 'moved', 'dashboard.db'));
    expect(await seen(call)).toEqual(before);

    // A change lands in the new file, not the old one.
    await call('POST', '/api/projects', { slug: 'orbit', name: 'Orbit' });
    expect((await seen(call)).projects.length).toBe(3);

    // The choice file holds no secret in clear and only its owner reads it.
    const file = join(api.dir, 'data', 'database.json');
    expect(statSync(file).mode & 0o077).toBe(0);

    // A restart (same folder, same key) serves from the moved file.
    const { dir, credentialsKey } = api;
    await api.dispose({ keepFiles: true });
    apis.splice(apis.indexOf(api), 1);
    const again = await dashboard({ dir, credentialsKey });
    expect((await again.call('GET', '/api/database/config')).json).toMatchObject({ source: 'dashboard', serving: { description: join('data', 'moved', 'dashboard.db') } });
    expect((await seen(again.call)).projects.length).toBe(3);
  });

  it('waits for copy-or-use, refuses to overwrite data without a confirmation, and uses the data there when told', async () => {
    const { api, call } = await dashboard();
    const other = await neighbour(api);
    await other.call('POST', '/api/projects', { slug: 'elsewhere', name: 'Elsewhere' });
    await fill(call);
    const config = { path: other.file };

    const undecided = (await call('POST', '/api/database/config', { provider: 'sqlite', config })).json as DatabaseConfigResult;
    expect(undecided).toMatchObject({ switched: false, configured: false, problem: expect.stringContaining('copy this dashboard’s data there, or use the data already there') });
    expect((await call('GET', '/api/database/config')).json).toMatchObject({ configured: false, serving: { provider: 'sqlite' } });

    const refused = await call('POST', '/api/database/config', { provider: 'sqlite', data: 'copy' });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ error: { message: expect.stringMatching(/already holds data \(.*1 projects.*\): confirm replacing it/) } });
    // Still serving its own data.
    expect((await seen(call)).projects).toHaveLength(2);

    // "Check again" with no config: the saved one; `use` takes what is there.
    const used = (await call('POST', '/api/database/config', { provider: 'sqlite', data: 'use' })).json as DatabaseConfigResult;
    expect(used).toMatchObject({ switched: true, copied: null, configured: true });
    expect((await seen(call)).projects.map((p) => p.slug)).toEqual(['elsewhere']);
  });

  it('replaces the data there when confirmed', async () => {
    const { api, call } = await dashboard();
    const other = await neighbour(api);
    await other.call('POST', '/api/projects', { slug: 'elsewhere', name: 'Elsewhere' });
    await fill(call);
    const before = await seen(call);
    const res = await call('POST', '/api/database/config', { provider: 'sqlite', config: { path: other.file }, data: 'copy', replace: true });
    expect(res.json).toMatchObject({ switched: true });
    expect(await seen(call)).toEqual(before);
  });

  it('validates the config with the field named, and changes nothing', async () => {
    const { api, call } = await dashboard();
    const res = await call('POST', '/api/database/config', { provider: 'hosted_db_2', config: { url: 'ftp://x', authToken: '' }, data: 'copy' });
    expect(res.status).toBe(400);
    const paths = (res.json.error as { issues: { path: string[] }[] }).issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['config.url', 'config.authToken']));
    expect(existsSync(join(api.dir, 'data', 'database.json'))).toBe(false);
    expect((await call('POST', '/api/database/config', { provider: 'hosted_db_2', data: 'use' })).json).toMatchObject({
      error: { code: 'BAD_REQUEST', message: expect.stringContaining('nothing is saved for Turso') },
    });

  });
});

describe('starting on a chosen database', () => {
  it('says which database is away and how to get back to the embedded one, when the chosen one does not answer', async () => {
    const { api, call } = await dashboard();
    const turso = await startTurso({ file: join(tmp(), 'turso.db'), authToken: 'token' });
    await call('POST', '/api/database/config', { provider: 'hosted_db_2', config: { url: turso.url, authToken: 'token' }, data: 'copy' });
    await call('POST', '/api/database/migrate');
    expect((await call('POST', '/api/database/config', { provider: 'hosted_db_2' })).json).toMatchObject({ switched: true });
    const { dir, credentialsKey } = api;
    await api.dispose({ keepFiles: true });
    apis.splice(apis.indexOf(api), 1);
    cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    await turso.close();
    await expect(createTestApi({ dir, credentialsKey, scheduler: false })).rejects.toThrow(
      /The database chosen in Settings → Database, Turso \(127\.0\.0\.1:\d+\), cannot be reached: .*remove .*database\.json to start on the embedded database/,
    );
    // Another key cannot open the choice: the message names the file and the way out.
    await expect(createTestApi({ dir, scheduler: false })).rejects.toThrow(/database\.json was saved with another credentials key: start with the CREDENTIALS_KEY it was saved with/);
  });
});

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

describe('secrets', () => {
  it('never appear in a response, a log line, the export or the choice file, on any route and provider', async () => {
    const { api, call } = await dashboard();
    await fill(call);
    const token = `turso-${randomBytes(16).toString('hex')}`;
    const password = `pg-${randomBytes(12).toString('hex')}`;
    const mysqlPassword = `pscale_pw_${randomBytes(12).toString('hex')}`;
    const turso = await startTurso({ file: join(tmp(), 'turso.db'), authToken: token });
    cleanups.push(() => turso.close());
    const pgUrl = `postgresql://postgres.ref:${password}@127.0.0.1:9/postgres`;
    const texts: string[] = [];
    const send = async (method: string, path: string, body?: unknown) => texts.push((await call(method, path, body)).text);

    for (const [provider, config] of [
      ['hosted_db_1', { url: pgUrl }],
      ['hosted_db_2', { url: turso.url, authToken: token }],
      ['hosted_db_2', { url: turso.url, authToken: `${token}-wrong` }],
      ['hosted_db_3', { host: '127.0.0.1:9', username: 'dash', password: mysqlPassword }],
    ] as const) {
      await send('POST', '/api/database/test', { provider, config });
      await send('POST', '/api/database/config', { provider, config, data: 'copy' });
      await send('GET', '/api/database/config');
      await send('POST', '/api/database/migrate');
      await send('POST', '/api/database/test', { provider });
    }
    await send('POST', '/api/database/config', { provider: 'hosted_db_2', config: { url: turso.url, authToken: token }, data: 'copy' });
    await send('POST', '/api/database/migrate');
    await send('POST', '/api/database/config', { provider: 'hosted_db_2' });
    expect(api.store.dialect).toBe('sqlite');
    expect((await call('GET', '/api/database/config')).json).toMatchObject({ provider: 'hosted_db_2', configured: true });
    const exported = (await call('GET', '/api/database/export')).text;
    texts.push(exported);
    await send('POST', '/api/database/import?dryRun=1', JSON.parse(exported));
    await send('POST', '/api/database/import', JSON.parse(exported));

    const everything = [...texts, ...api.log.lines, readFileSync(join(api.dir, 'data', 'database.json'), 'utf8')].join('\n');
    for (const secret of [token, password, mysqlPassword, pgUrl, CREDENTIAL_SECRET]) expect(everything).not.toContain(secret);
  });
});

describe('export and import', () => {
  it('exports a dated download with everything but the sessions and the cache, credentials sealed', async () => {
    const { api, call } = await dashboard();
    await fill(call);
    const res = await call('GET', '/api/database/export');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="dashboard-export-\d{4}-\d\d-\d\d\.json"$/);
    const dump = res.json as unknown as Dump;
    expect(dump).toMatchObject({ version: DUMP_VERSION, provider: 'sqlite', settings: { projectOrder: ['tally', 'formfox'] } });
    expect(dump.tables.projects).toHaveLength(2);
    expect(dump.tables.credentials?.[0]).toMatchObject({ key: 'github', sealed: expect.stringMatching(/^v1\./) });
    expect(dump.tables).not.toHaveProperty('auth_session');
    expect(res.text).not.toContain(CREDENTIAL_SECRET);
    expect(api.log.lines.join('\n')).not.toContain(CREDENTIAL_SECRET);
  });

  it('restores everything onto a fresh dashboard with the same key, after a dry run that says what will change', async () => {
    const source = await dashboard();
    await fill(source.call);
    // Each is an installation of its own (REDIS_URL's keys are prefixed with it): the copy keeps its own id.
    const sourceId = await installationOf(source.api.store);
    const dump = (await source.call('GET', '/api/database/export')).json;
    const fresh = await dashboard({ credentialsKey: source.api.credentialsKey });
    const freshId = await installationOf(fresh.api.store);
    expect(freshId).not.toBe(sourceId);
    await fresh.call('POST', '/api/projects', { slug: 'scratch', name: 'Scratch' });

    const dry = (await fresh.call('POST', '/api/database/import?dryRun=1', dump)).json as ImportResult;
    // The key marker is this dashboard's own, neither imported nor counted as a setting that goes.
    expect(dry).toMatchObject({ dryRun: true, imported: { projects: 2, credentials: 1 }, replaced: { projects: 1, credentials: 0, user_settings: 0 }, skipped: [] });
    const marker = await fresh.api.store.meta.get('credentialsKeyCheck');
    expect((await seen(fresh.call)).projects.length).toBe(1);

    const done = (await fresh.call('POST', '/api/database/import', dump)).json as ImportResult;
    expect(done).toMatchObject({ dryRun: false, imported: { projects: 2, credentials: 1 }, skipped: [] });
    expect(await seen(fresh.call)).toEqual(await seen(source.call));
    expect(await fresh.api.store.meta.get('credentialsKeyCheck')).toBe(marker);
    expect(await installationOf(fresh.api.store)).toBe(freshId);
    // The credential opens with this dashboard's key: a test with it reaches the vault, not a key error.
    expect(await fresh.api.store.credentials.keys()).toEqual(['github']);
  });

  it('skips and names credentials sealed with another key', async () => {
    const source = await dashboard();
    await fill(source.call);
    const dump = (await source.call('GET', '/api/database/export')).json;
    const other = await dashboard();
    const result = (await other.call('POST', '/api/database/import', dump)).json as ImportResult;
    expect(result.skipped).toEqual([{ table: 'credentials', key: 'github', reason: expect.stringContaining('another credentials key') }]);
    expect(await other.api.store.credentials.keys()).toEqual([]);
    expect((await seen(other.call)).projects.length).toBe(2);
  });

  it('takes a dump larger than the API’s usual body limit', async () => {
    const source = await dashboard();
    await fill(source.call);
    const dump = (await source.call('GET', '/api/database/export')).json as unknown as Dump;
    const padding = Array.from({ length: 1500 }, (_, i) => ({ key: `meta:padding.${i}`, value: 'x'.repeat(200), updatedAt: '2026-11-24T09:00:00.000Z' }));
    const big = { ...dump, tables: { ...dump.tables, user_settings: [...(dump.tables.user_settings ?? []), ...padding] } };
    expect(JSON.stringify(big).length).toBeGreaterThan(300 * 1024);
    const fresh = await dashboard({ credentialsKey: source.api.credentialsKey });
    const res = await fresh.call('POST', '/api/database/import', big);
    expect(res.status).toBe(200);
    expect(await fresh.api.store.meta.get('padding.1499')).toBe('x'.repeat(200));
  });

  describe('refuses a bad dump with 400 and the store unchanged', () => {
    const deep = () => {
      let value: unknown = 'bottom';
      for (let i = 0; i < 1000; i++) value = [value];
      return value;
    };
    const cases: [string, (dump: Dump) => unknown, RegExp][] = [
      ['a newer version', (dump) => ({ ...dump, version: 2 }), /version 2, newer than this dashboard reads \(1\)/],
      ['no version', ({ version: _v, ...rest }) => rest, /version/],
      ['not an object', () => [1, 2, 3], /JSON object/],
      ['a slug that breaks the rules', (dump) => ({ ...dump, tables: { ...dump.tables, projects: [{ ...dump.tables.projects?.[0], slug: 'Bad Slug!' }] } }), /tables\.projects\.0\.slug/],
      ['wrong types', (dump) => ({ ...dump, tables: { ...dump.tables, projects: [{ ...dump.tables.projects?.[0], position: 'first' }] } }), /tables\.projects\.0\.position/],
      ['an unknown table', (dump) => ({ ...dump, tables: { ...dump.tables, users: [] } }), /users/],
      ['a huge array', (dump) => ({ ...dump, tables: { ...dump.tables, notification_mutes: new Array(200_001).fill(0) } }), /at most 200000 per table/],
      ['deep nesting', (dump) => ({ ...dump, tables: { ...dump.tables, user_settings: [{ key: 'x', value: deep(), updatedAt: dump.exportedAt }] } }), /nests deeper/],
      ['a bad instant', (dump) => ({ ...dump, tables: { ...dump.tables, credentials: [{ key: 'github', sealed: 'v1.a.b.c', updatedAt: 'yesterday' }] } }), /tables\.credentials\.0\.updatedAt/],
    ];
    it.each(cases)('%s', async (_name, spoil, message) => {
      const { api, call } = await dashboard();
      await fill(call);
      const dump = (await call('GET', '/api/database/export')).json as unknown as Dump;
      const before = await api.store.transfer.dump();
      const res = await call('POST', '/api/database/import', spoil(dump));
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(message) } });
      expect(res.text.length).toBeLessThan(20_000);
      expect(await api.store.transfer.dump()).toEqual(before);
    });

    it('JSON nested 100,000 deep', async () => {
      const { api, call } = await dashboard();
      await fill(call);
      const before = await api.store.transfer.dump();
      const res = await call('POST', '/api/database/import', `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
      expect(res.status).toBe(400);
      expect(await api.store.transfer.dump()).toEqual(before);
    });

    it('truncated JSON', async () => {
      const { api, call } = await dashboard();
      await fill(call);
      const text = (await call('GET', '/api/database/export')).text;
      const before = await api.store.transfer.dump();
      const res = await call('POST', '/api/database/import', text.slice(0, text.length / 2));
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: { message: expect.stringContaining('not valid JSON') } });
      expect(await api.store.transfer.dump()).toEqual(before);
    });
  });
});

const PASSWORD = 'correct horse battery staple';
const OTHER_PASSWORD = 'the attacker’s own password';
const client = { ip: '203.0.113.9', userAgent: 'test' };

/**
 * Sets PASSWORD as the owner's (as Settings → Security does on a local dashboard) and plants the rest of the sign-in
 * material a store can hold: a session, an API token, and the hash of an environment password.
 */
async function signIns(api: Api) {
  await api.caller.auth.changePassword({ newPassword: PASSWORD });
  const at = new Date().toISOString();
  const sessionId = `sess${randomBytes(8).toString('hex')}`;
  await api.store.auth.sessions.create({ id: sessionId, secretHash: randomBytes(32).toString('hex'), createdAt: at, lastSeenAt: at, userAgent: 'test', ip: client.ip });
  const token = await api.ctx.access.createToken({ name: 'ci', scope: 'write' }, { via: 'open', scope: 'write' });
  await api.store.meta.put('authEnvPassword', await api.ctx.access.hasher.hash(`${PASSWORD}-env`));
  return { sessionId, token };
}

/** The sign-in material a store holds, row for row. */
async function authOf(store: Store) {
  const dump = await store.transfer.dump();
  return { owner: dump.auth_owner, sessions: dump.auth_session, tokens: dump.api_token, meta: dump.user_settings.filter((row) => isAuthSettingKey(row.key)) };
}

/** A dump that brings sign-ins of its own: an older export, or one made to take a dashboard over. */
async function withForeignSignIns(api: Api, dump: Dump): Promise<Dump> {
  const hash = await api.ctx.access.hasher.hash(OTHER_PASSWORD);
  const at = new Date().toISOString();
  return {
    ...dump,
    tables: {
      ...dump.tables,
      auth_owner: [{ id: 1, passwordHash: hash, createdAt: at, updatedAt: at }],
      auth_session: [{ id: 'attacker', secretHash: 'b'.repeat(64), createdAt: at, lastSeenAt: at, userAgent: null, ip: null }],
      api_token: [{ id: 'attacker', name: 'mine now', secretHash: 'c'.repeat(64), scope: 'write', createdAt: at, lastUsedAt: null, expiresAt: null }],
      user_settings: [...(dump.tables.user_settings ?? []), { key: 'meta:authEnvPassword', value: hash, updatedAt: at }],
    },
  };
}

describe('sign-in material never leaves in an export nor comes in with an import', () => {
  const TURSO_TOKEN = `turso-${randomBytes(16).toString('hex')}`;
  const providers: [string, (() => Promise<string>) | undefined, boolean][] = [
    ['Embedded SQLite', undefined, true],
    [
      'Turso (libSQL)',
      async () => {
        const turso = await startTurso({ file: join(tmp(), 'turso.db'), authToken: TURSO_TOKEN });
        cleanups.push(() => turso.close());
        return `${turso.url}?authToken=${TURSO_TOKEN}`;
      },
      true,
    ],
    [
      'Supabase (Postgres)',
      async () => {
        const db = await scratchPostgres();
        cleanups.push(db.drop);
        return db.url;
      },
      pgProblem === undefined || inCI,
    ],
    [
      'PlanetScale (MariaDB)',
      async () => {
        const db = await scratchMysql();
        cleanups.push(db.drop);
        return db.url;
      },
      myProblem === undefined || inCI,
    ],
  ];

  for (const [name, url, runs] of providers) {
    it.runIf(runs)(`${name}: the export holds no password hash, session, token or auth setting, and an import writes none`, async () => {
      const { api, call } = await dashboard(url ? { databaseUrl: await url() } : {});
      await fill(call);
      const { sessionId, token } = await signIns(api);
      const before = await authOf(api.store);
      expect(before.owner).toHaveLength(1);
      expect(before.sessions.length).toBeGreaterThanOrEqual(1);
      expect(before.tokens).toHaveLength(1);
      expect(before.meta).toHaveLength(1);

      const res = await call('GET', '/api/database/export');
      expect(res.status).toBe(200);
      const dump = res.json as unknown as Dump;
      for (const table of authTableNames) expect(dump.tables).not.toHaveProperty(table);
      expect((dump.tables.user_settings ?? []).filter((row) => isAuthSettingKey(row.key))).toEqual([]);
      for (const secret of [before.owner[0]?.passwordHash ?? '?', String(before.meta[0]?.value), token.token, token.id, sessionId, '$argon2id$']) {
        expect(res.text).not.toContain(secret);
      }
      expect(dump.tables.projects).toHaveLength(2);

      const hostile = await withForeignSignIns(api, dump);
      const dry = await call('POST', '/api/database/import?dryRun=1', { password: PASSWORD, dump: hostile });
      expect(dry.status).toBe(200);
      const done = await call('POST', '/api/database/import', { password: PASSWORD, dump: hostile });
      expect(done.status).toBe(200);
      const result = done.json as unknown as ImportResult;
      expect(result.skipped).toEqual(
        expect.arrayContaining([
          { table: 'auth_owner', key: 'password', reason: expect.stringContaining('sign-in data never comes in') },
          { table: 'auth_session', key: 'sessions', reason: expect.any(String) },
          { table: 'api_token', key: 'API tokens', reason: expect.any(String) },
          { table: 'user_settings', key: 'authEnvPassword', reason: expect.any(String) },
        ]),
      );
      for (const table of authTableNames) expect(result.imported).not.toHaveProperty(table);
      expect(await authOf(api.store)).toEqual(before);
      expect((await seen(call)).projects).toHaveLength(2);
      // The owner's password still signs in; the dump's does not.
      await expect(api.ctx.access.login(PASSWORD, client)).resolves.toMatchObject({ token: expect.any(String) });
      await expect(api.ctx.access.login(OTHER_PASSWORD, { ...client, ip: '203.0.113.10' })).rejects.toMatchObject({ message: 'That password is not right.' });
    });
  }
});

describe('moving and importing the database are the owner’s', () => {
  /** A caller as the request guards would hand one over. */
  const as = (api: Api, identity: Identity) => restClient(() => createCaller({ ...api.ctx, request: { ...client, identity } }));
  const writeToken: Identity = { via: 'token', scope: 'write', tokenId: 'tok1' };
  const session: Identity = { via: 'session', scope: 'write', sessionId: 'sess1' };

  it('refuses an API token, even write, on a switch, a test, a migration, an import and a new token: 403, nothing changes', async () => {
    const { api, call } = await dashboard();
    await fill(call);
    const other = await neighbour(api);
    const token = as(api, writeToken);
    const before = await api.store.transfer.dump();
    const dump = (await token('GET', '/api/database/export')).json;
    for (const [method, path, body] of [
      ['POST', '/api/database/config', { provider: 'sqlite', config: { path: other.file }, data: 'copy', replace: true }],
      ['POST', '/api/database/config', { provider: 'sqlite', config: { path: other.file }, data: 'use', password: PASSWORD }],
      ['POST', '/api/database/test', { provider: 'sqlite', config: { path: other.file } }],
      ['POST', '/api/database/migrate', undefined],
      ['POST', '/api/database/import', dump],
      ['POST', '/api/database/import?dryRun=1', dump],
      ['POST', '/api/tokens', { name: 'mine', scope: 'write' }],
      ['GET', '/api/tokens', undefined],
    ] as const) {
      const res = await token(method, path, body);
      expect({ path, status: res.status, code: (res.json.error as { code?: string } | undefined)?.code }).toEqual({ path, status: 403, code: 'FORBIDDEN' });
    }
    expect(existsSync(join(api.dir, 'data', 'database.json'))).toBe(false);
    expect(await api.store.transfer.dump()).toEqual(before);
    // Reading the status stays a read.
    expect((await token('GET', '/api/database/config')).status).toBe(200);
  });

  it('asks a signed-in session for the password once one is set: none or a wrong one is 403, the right one goes through', async () => {
    const { api, call } = await dashboard();
    await fill(call);
    await api.caller.auth.changePassword({ newPassword: PASSWORD });
    const owner = as(api, session);
    const dump = (await owner('GET', '/api/database/export')).json;
    const before = await api.store.transfer.dump();

    const none = await owner('POST', '/api/database/import', dump);
    expect(none.status).toBe(403);
    expect(none.json).toMatchObject({ error: { code: 'FORBIDDEN', message: expect.stringContaining('Confirm this with the dashboard password') } });
    const wrong = await owner('POST', '/api/database/import', { password: 'not the password at all', dump });
    expect(wrong.json).toMatchObject({ error: { code: 'FORBIDDEN', message: 'That password is not right.' } });
    expect((await owner('POST', '/api/database/config', { provider: 'sqlite', config: { path: 'data/next.db' }, data: 'copy' })).status).toBe(403);
    expect((await owner('POST', '/api/tokens', { name: 'ci', scope: 'read' })).status).toBe(403);
    expect(existsSync(join(api.dir, 'data', 'database.json'))).toBe(false);
    expect(await api.store.transfer.dump()).toEqual(before);

    expect((await owner('POST', '/api/database/import', { password: PASSWORD, dump })).status).toBe(200);
    expect((await owner('POST', '/api/tokens', { name: 'ci', scope: 'read', password: PASSWORD })).status).toBe(201);
    const switched = await owner('POST', '/api/database/config', { provider: 'sqlite', config: { path: 'data/next.db' }, data: 'copy', password: PASSWORD });
    expect(switched.json).toMatchObject({ switched: true });
  });

  it('throttles wrong passwords as sign-ins: the sixth try from one address is 429, even with the right one', async () => {
    const { api } = await dashboard();
    await api.caller.auth.changePassword({ newPassword: PASSWORD });
    const owner = as(api, session);
    for (let i = 0; i < 5; i++) expect((await owner('POST', '/api/tokens', { name: 'x', scope: 'read', password: `wrong-${i}` })).status).toBe(403);
    expect((await owner('POST', '/api/tokens', { name: 'x', scope: 'read', password: PASSWORD })).status).toBe(429);
    expect(await api.store.auth.tokens.list()).toEqual([]);
  });

  it('carries the owner, sessions and tokens across a switch: a prepared database brings none of its own, an empty one drops no password', async () => {
    const { api, call } = await dashboard();
    await fill(call);
    const { token } = await signIns(api);
    const mine = await authOf(api.store);

    // The target was prepared with another owner, a token and a project.
    const prepared = await neighbour(api, 'prepared.db');
    await prepared.call('POST', '/api/projects', { slug: 'bait', name: 'Bait' });
    await prepared.api.caller.auth.changePassword({ newPassword: OTHER_PASSWORD });
    await prepared.api.ctx.access.createToken({ name: 'theirs', scope: 'write' }, { via: 'open', scope: 'write' });

    const owner = as(api, session);
    const used = await owner('POST', '/api/database/config', { provider: 'sqlite', config: { path: prepared.file }, data: 'use', password: PASSWORD });
    expect(used.json).toMatchObject({ switched: true, copied: null });
    expect((await seen(call)).projects.map((p) => p.slug)).toEqual(['bait']);
    expect(await authOf(api.store)).toEqual(mine);
    await expect(api.ctx.access.login(OTHER_PASSWORD, client)).rejects.toMatchObject({ message: 'That password is not right.' });

    // Onto an empty file, using "its data": still this owner, so a local dashboard keeps asking for the password.
    const empty = await owner('POST', '/api/database/config', { provider: 'sqlite', config: { path: 'data/empty.db' }, data: 'use', password: PASSWORD });
    expect(empty.json).toMatchObject({ switched: true });
    expect(await authOf(api.store)).toEqual(mine);
    expect(await api.ctx.access.required()).toBe(true);

    // And with a copy, back onto the default file.
    const copied = await owner('POST', '/api/database/config', { provider: 'sqlite', config: {}, data: 'copy', replace: true, password: PASSWORD });
    expect(copied.json).toMatchObject({ switched: true });
    expect(await authOf(api.store)).toEqual(mine);
    // This dashboard's token still works there.
    await expect(api.ctx.access.token(token.token, client.ip)).resolves.toMatchObject({ id: token.id });
  });
});

describe('where a database given over HTTP may be', () => {
  it('refuses a SQLite file outside the data directory, through .. or a link, with 400 naming config.path; nothing is saved', async () => {
    const { api, call } = await dashboard();
    const outside = tmp();
    symlinkSync(outside, join(api.dir, 'data', 'link'));
    mkdirSync(join(api.dir, 'data', 'sub'));
    symlinkSync(join(outside, 'x.db'), join(api.dir, 'data', 'sub', 'file.db'));
    for (const path of [join(outside, 'x.db'), '../x.db', 'x.db', 'data/../x.db', 'data/link/x.db', 'data/sub/file.db', '/etc/dashboard.db', 'data']) {
      for (const route of ['/api/database/config', '/api/database/test']) {
        const res = await call('POST', route, { provider: 'sqlite', config: { path }, data: 'copy' });
        expect({ path, route, status: res.status }).toEqual({ path, route, status: 400 });
        expect(res.json).toMatchObject({
          error: { code: 'BAD_REQUEST', message: expect.stringContaining('must be inside the data directory (data)'), issues: [{ path: ['config', 'path'] }] },
        });
      }
    }
    expect(existsSync(join(api.dir, 'data', 'database.json'))).toBe(false);
    expect(existsSync(join(outside, 'x.db'))).toBe(false);
    // Inside it, the switch goes.
    expect((await call('POST', '/api/database/config', { provider: 'sqlite', config: { path: 'data/sub/ok.db' }, data: 'copy' })).json).toMatchObject({ switched: true });
  });

  it('refuses link-local and cloud-metadata hosts, literal or after DNS, for every hosted provider', async () => {
    const { api, call } = await dashboard();
    const cases = [
      { provider: 'hosted_db_1', config: { url: 'postgresql://postgres:pw@169.254.169.254:5432/postgres' }, field: 'config.url' },
      // A number the resolver reads as 169.254.169.254: refused after resolution, not by its spelling.
      { provider: 'hosted_db_1', config: { url: 'postgres://postgres:pw@2852039166:5432/postgres' }, field: 'config.url' },
      { provider: 'hosted_db_2', config: { url: 'libsql://[fe80::1]', authToken: 't' }, field: 'config.url' },
      { provider: 'hosted_db_2', config: { url: 'https://100.100.100.200', authToken: 't' }, field: 'config.url' },
      { provider: 'hosted_db_3', config: { host: '169.254.169.254:3306', username: 'u', password: 'p' }, field: 'config.host' },
      { provider: 'hosted_db_3', config: { host: '[::ffff:a9fe:a9fe]:3306', username: 'u', password: 'p' }, field: 'config.host' },
    ];
    for (const { provider, config, field } of cases) {
      for (const route of ['/api/database/config', '/api/database/test']) {
        const res = await call('POST', route, { provider, config, data: 'copy' });
        expect({ config, route, status: res.status }).toEqual({ config, route, status: 400 });
        expect(res.json).toMatchObject({ error: { message: expect.stringContaining('(link-local or cloud metadata) is not allowed for a database') } });
        expect((res.json.error as { issues: { path: string[] }[] }).issues[0]?.path.join('.')).toBe(field);
        expect(res.text).not.toContain(':pw@');
      }
    }
    expect(existsSync(join(api.dir, 'data', 'database.json'))).toBe(false);
  });

  it('leaves DATABASE_URL alone: the operator may point it anywhere', async () => {
    const outside = join(tmp(), 'operator.db');
    const { call } = await dashboard({ databaseUrl: `file:${outside}` });
    expect((await call('GET', '/api/database/config')).json).toMatchObject({ source: 'env', description: outside });
    expect(existsSync(outside)).toBe(true);
  });
});
