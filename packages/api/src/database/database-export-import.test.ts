import { describe, expect, it } from 'vitest';
import { DUMP_VERSION, type Dump, type ImportResult } from '@dash/contracts';
import { installationOf } from '../data/shared.ts';
import { CREDENTIAL_SECRET, databaseTests, fill, seen } from './testing.ts';

// The export (a dated download, credentials sealed) and the import onto a dashboard: what it restores, what it skips,
// and the bad dumps it refuses with the store unchanged.

const { dashboard } = databaseTests();

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
