// Stored credentials against a tampered database: the built dashboard checks each AES-GCM tag at its
// full 16 bytes, so a sealed value whose tag was cut short is refused as altered, not used.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import { startDashboard } from './server.ts';
import { takeDownAfterEach } from './waiting.ts';

const cleanup = takeDownAfterEach();

describe('stored credentials', () => {
  it('refuses a stored value whose authentication tag was cut to 4 or 8 bytes, and still uses an intact one', async () => {
    // A store of the test's own, kept across two starts with the same key.
    const dir = mkdtempSync(join(tmpdir(), 'dash-vault-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const env = { DATA_DIR: dir, DATABASE_URL: `file:${join(dir, 'dashboard.db')}`, CREDENTIALS_KEY: randomBytes(32).toString('hex') };
    // Port 9 (discard) is closed here: testing an intact credential answers "could not be reached".
    const values = { apiKey: `pk_${randomBytes(12).toString('hex')}`, baseUrl: 'http://127.0.0.1:9' };
    const keys = ['plausible', 'plausible:cut4', 'plausible:cut8'];

    const first = await startDashboard({ env });
    for (const key of keys) {
      const saved = await first.fetch('/api/credentials', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key, values }) });
      expect([key, saved.status]).toEqual([key, 200]);
    }
    await first.stop();

    // Someone with write access to the database cuts two tags short (`v1.<iv>.<tag>.<body>`).
    const db = createClient({ url: env.DATABASE_URL });
    for (const [key, bytes] of [['plausible:cut4', 4], ['plausible:cut8', 8]] as const) {
      const sealed = (await db.execute({ sql: 'select sealed from credentials where key = ?', args: [key] })).rows[0]?.sealed;
      if (typeof sealed !== 'string') throw new Error(`No sealed value stored for ${key}`);
      const [format, iv, tag, body] = sealed.split('.') as [string, string, string, string];
      expect(Buffer.from(tag, 'base64url')).toHaveLength(16);
      const cut = [format, iv, Buffer.from(tag, 'base64url').subarray(0, bytes).toString('base64url'), body].join('.');
      await db.execute({ sql: 'update credentials set sealed = ? where key = ?', args: [cut, key] });
    }
    db.close();

    const second = await startDashboard({ env });
    cleanup.push(() => second.stop());
    const test = async (key: string) => {
      const res = await second.fetch('/api/credentials/test', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
      return { status: res.status, text: await res.text() };
    };
    for (const key of ['plausible:cut4', 'plausible:cut8']) {
      const refused = await test(key);
      expect([key, refused.status]).toEqual([key, 500]);
      expect(JSON.parse(refused.text)).toEqual({ error: { code: 'INTERNAL_SERVER_ERROR', message: expect.stringMatching(/cannot be decrypted with the current CREDENTIALS_KEY/) } });
      expect(refused.text).not.toContain(values.apiKey);
    }
    // The intact one is opened and used as before.
    const intact = await test('plausible');
    expect([intact.status, JSON.parse(intact.text)]).toEqual([200, { ok: false, error: 'Plausible could not be reached' }]);
    expect(second.output()).not.toContain(values.apiKey);
  });
});
