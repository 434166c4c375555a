import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { authTableNames, isAuthSettingKey, type Dump, type ImportResult } from '@dash/contracts';
import type { Store } from '@dash/db';
import { scratchMysql, scratchPostgres } from '@dash/db/testing';
import { startTurso } from '@dash/sandbox/turso';
import type { Identity } from '../auth/access.ts';
import { createCaller } from '../root.ts';
import { restClient } from '../testing.ts';
import { databaseTests, fill, inCI, myProblem, pgProblem, seen, type Api } from './testing.ts';

// The owner's sign-ins and the database: an export carries none and an import brings none in, on every provider; a
// move, a test, a migration, an import and a new token are the owner's, asked for the password once one is set.

const { cleanups, dashboard, neighbour, tmp } = databaseTests();

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
