import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTurso } from '@dash/sandbox/turso';
import { CREDENTIAL_SECRET, databaseTests, fill } from './testing.ts';

// No secret of a database (a Turso token, a Postgres or MariaDB password) nor a credential comes back from any
// route of Settings → Database, in a log line, the export or the choice file.

const { cleanups, dashboard, tmp } = databaseTests();

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
