import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseTests } from './testing.ts';

// Where a database chosen over HTTP may be: SQLite files inside the data directory only, no link-local or cloud
// metadata host; DATABASE_URL, the operator's, is not held to that.

const { dashboard, tmp } = databaseTests();

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
