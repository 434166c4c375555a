import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DatabaseConfigResult } from '@dash/contracts';
import { startTurso } from '@dash/sandbox/turso';
import { createTestApi } from '../testing.ts';
import { databaseTests, fill, seen } from './testing.ts';

// Settings → Database on the embedded SQLite: what it says it serves, a move to another file, and a start on the
// database chosen there. The hosted providers are in database-hosted.test.ts.

const { apis, cleanups, dashboard, neighbour, tmp } = databaseTests();

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
