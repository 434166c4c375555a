import type { PushSubscriptionRow } from './store.ts';
import { MYSQL_SERVER, mysqlProblem, PG_SERVER, postgresProblem } from './testing/servers.ts';
import { mysqlTemplate } from './testing/mysql-template.ts';
import { postgresTemplate } from './testing/postgres-template.ts';
import { sqliteTemplate } from './testing/sqlite-template.ts';
import type { MigratedTemplate } from './testing/template.ts';

/**
 * What tests of the stores (here and in the packages that use them) share: the test servers and scratch databases
 * (testing/servers.ts), a migrated template per engine copied for each test (testing/*-template.ts), the engines a
 * test file runs on, and a push device's row.
 */

export * from './testing/servers.ts';
export { mysqlTemplate } from './testing/mysql-template.ts';
export { postgresTemplate } from './testing/postgres-template.ts';
export { sqliteTemplate } from './testing/sqlite-template.ts';
export type { ClonedDatabase, MigratedTemplate } from './testing/template.ts';

/** A Web Push device's row for a test: `id` names it and makes its endpoint and keys; `over` sets anything else. */
export function pushDeviceRow(id: string, over: Partial<PushSubscriptionRow> = {}): PushSubscriptionRow {
  return {
    id,
    name: `Phone ${id}`,
    browser: 'Firefox',
    endpoint: `https://updates.push.services.mozilla.com/wpush/v2/${id}`,
    sealedKeys: `v1.sealed-${id}`,
    expirationTime: null,
    createdAt: 1_000,
    lastSuccessAt: null,
    lastFailureAt: null,
    lastFailure: null,
    removedAt: null,
    ...over,
  };
}

/** One engine a test file runs on: its template (migrated once for the file), and what keeps it from running, if anything. */
export interface TestEngine {
  name: string;
  template: MigratedTemplate;
  problem: string | undefined;
}

/**
 * SQLite, Postgres and MariaDB, each with a template the migrations make once for the file; an unreachable server is
 * named (and, outside CI, warned about with `what` it keeps from running). The file drops the templates after all.
 */
export async function migratedEngines(migrationsDir: string, what: string): Promise<TestEngine[]> {
  const inCI = process.env.CI === 'true';
  const [pgProblem, myProblem] = await Promise.all([postgresProblem(), mysqlProblem()]);
  if (pgProblem && !inCI) console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): ${what} does not run on it. ***\n`);
  if (myProblem && !inCI) console.warn(`\n*** MariaDB at ${MYSQL_SERVER} is unreachable (${myProblem}): ${what} does not run on MySQL. ***\n`);
  return [
    { name: 'SQLite', template: sqliteTemplate(migrationsDir), problem: undefined },
    { name: 'Postgres', template: postgresTemplate(migrationsDir), problem: pgProblem },
    { name: 'MySQL (MariaDB)', template: mysqlTemplate(migrationsDir), problem: myProblem },
  ];
}
