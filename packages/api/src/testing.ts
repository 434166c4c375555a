import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore, type Store } from '@dash/db';
import type { Clock } from '@dash/connectors';
import type { AccessOptions } from './auth/access.ts';
import type { DemoProvider, Logger } from './context.ts';
import { createContext } from './index.ts';
import { createCaller } from './root.ts';

export const migrationsDir = fileURLToPath(new URL('../../../drizzle', import.meta.url));

/** A logger that keeps its lines, so tests can assert what reached the log. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}

/** A real api over a fresh embedded SQLite file, for tests; `dispose` removes it. */
export async function createTestApi(options: { dir?: string; credentialsKey?: Buffer; clock?: Clock; demo?: DemoProvider; access?: AccessOptions } = {}) {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'dash-api-'));
  const dbFile = join(dir, 'dashboard.db');
  const store: Store = await openStore({ url: `file:${dbFile}`, migrationsDir });
  const log = memoryLogger();
  const credentialsKey = options.credentialsKey ?? randomBytes(32);
  const ctx = await createContext({
    store,
    credentialsKey,
    log,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.demo ? { demo: options.demo } : {}),
    ...(options.access ? { access: options.access } : {}),
  });
  return {
    dir,
    dbFile,
    store,
    log,
    ctx,
    credentialsKey,
    caller: createCaller(ctx),
    async dispose({ keepFiles = false } = {}) {
      await store.close();
      if (!keepFiles) rmSync(dir, { recursive: true, force: true });
    },
  };
}
