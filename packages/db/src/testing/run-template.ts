import { resolve } from 'node:path';
import { inject } from 'vitest';
import type { MysqlTemplateMade, PostgresTemplateMade } from './template-made.ts';

/** The templates a whole test run shares (global-setup.ts, the unit tests' global set-up), and the migrations they ran. */
export interface RunTemplates {
  migrationsDir: string;
  postgres: PostgresTemplateMade | undefined;
  mysql: MysqlTemplateMade | undefined;
}

declare module 'vitest' {
  export interface ProvidedContext {
    dbTemplates: RunTemplates | undefined;
  }
}

/**
 * The run's template of an engine, when the run made one from the same migrations: a file's template is then a name,
 * not a database of its own made and migrated again (some 3 s of the servers' work a file, and 30 files use them).
 * Undefined outside such a run (the browser tests, a server that was down): the file makes its own.
 */
export function runTemplate<K extends 'postgres' | 'mysql'>(engine: K, migrationsDir: string): RunTemplates[K] | undefined {
  const run = inject('dbTemplates');
  return run && resolve(run.migrationsDir) === resolve(migrationsDir) ? run[engine] : undefined;
}
