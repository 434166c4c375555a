import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createClient } from '@libsql/client';
import { lazyTemplate, migrateOnce, type MigratedTemplate } from './template.ts';

/** SQLite's template: a migrated file's bytes, written out for each test. */

/**
 * SQLite: the bytes of a migrated file, held in memory (nothing is left on disk to remove), written out for each clone.
 * `copyTo` writes a copy to a path of the caller's choosing (a dashboard's data directory), which must not hold a
 * database yet.
 */
export function sqliteTemplate(migrationsDir: string): MigratedTemplate & { copyTo(file: string): Promise<void> } {
  const template = lazyTemplate(
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'dash-template-'));
      try {
        const url = `file:${join(dir, 'dashboard.db')}`;
        await migrateOnce(url, migrationsDir);
        // What the migrations wrote is in the write-ahead log until the last connection has closed, which libSQL does
        // a moment after close(): move it into the file now, so that the file alone is the whole database.
        const client = createClient({ url });
        try {
          const { rows } = await client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
          if (rows[0]?.[0] !== 0) throw new Error(`The migrated template ${url} could not be checkpointed: ${JSON.stringify(rows)}`);
        } finally {
          client.close();
        }
        return await readFile(join(dir, 'dashboard.db'));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    async (bytes) => {
      const clone = await mkdtemp(join(tmpdir(), 'dash-clone-'));
      await writeInto(bytes, join(clone, 'dashboard.db'));
      return { url: `file:${join(clone, 'dashboard.db')}`, drop: () => rm(clone, { recursive: true, force: true }) };
    },
    () => Promise.resolve(),
  );
  async function writeInto(bytes: Buffer, file: string) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, bytes, { flag: 'wx' });
  }
  return {
    clone: () => template.clone(),
    drop: () => template.drop(),
    copyTo: async (file) => writeInto(await template.made(), file),
  };
}
