import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { MYSQL_SERVER, mysqlProblem, PG_SERVER, postgresProblem } from '@dash/db/testing';
import { createTestApi, restClient } from '../testing.ts';

/**
 * What the tests of Settings → Database (database-*.test.ts) share: the dashboards they make, undone after each test,
 * whether Postgres and MariaDB answer, and what a user puts into a dashboard and sees of it. Each file makes its own
 * dashboards, scratch databases and directories, so any two of them can run at once.
 */

export type Api = Awaited<ReturnType<typeof createTestApi>>;

export const pgProblem = await postgresProblem();
export const inCI = process.env.CI === 'true';
if (pgProblem && !inCI) console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): the Supabase cases do not run. ***\n`);
export const myProblem = await mysqlProblem();
if (myProblem && !inCI) console.warn(`\n*** MariaDB at ${MYSQL_SERVER} is unreachable (${myProblem}): the PlanetScale cases do not run. ***\n`);

/** Secrets a test plants; none may come back in a response, a log line or an export. */
export const CREDENTIAL_SECRET = `ghp_${randomBytes(12).toString('hex')}`;

/**
 * A test file's dashboards and scratch places: registers the file's afterEach (every dashboard disposed, then what
 * `cleanups` was given, last first) and answers what makes them. Call once at the top of a test file.
 */
export function databaseTests() {
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

  return { apis, cleanups, dashboard, neighbour, tmp };
}

/** Something in every place a user would miss after a move. */
export async function fill(call: ReturnType<typeof restClient>) {
  for (const slug of ['formfox', 'tally']) {
    expect((await call('POST', '/api/projects', { slug, name: slug.toUpperCase(), integrations: { code_host: { repos: [`acme/${slug}`] } } })).status).toBe(201);
  }
  expect((await call('POST', '/api/settings', { projectOrder: ['tally', 'formfox'], exchangeRates: { EUR: 1.08 } })).status).toBe(200);
  expect((await call('POST', '/api/credentials', { key: 'github', values: { token: CREDENTIAL_SECRET } })).status).toBe(200);
}

/** What a user sees of a dashboard. */
export async function seen(call: ReturnType<typeof restClient>) {
  const [settings, projects, credentials] = await Promise.all([call('GET', '/api/settings'), call('GET', '/api/projects'), call('GET', '/api/credentials')]);
  return { settings: settings.json, projects: (projects.json as { projects: { slug: string }[] }).projects, credentials: credentials.json };
}
