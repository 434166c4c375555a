import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { dropMysqlTemplate, makeMysqlTemplate } from './mysql-template.ts';
import { dropPostgresTemplate, makePostgresTemplate } from './postgres-template.ts';
import { mysqlProblem, postgresProblem } from './servers.ts';

/**
 * The unit tests' global set-up (vitest.config.ts): one migrated template per server for the whole run, which every
 * test file's templates copy from (runTemplate in template.ts) instead of each file making and migrating its own, and
 * which goes once the run is done. A server that does not answer, or a template that could not be made, is left to
 * the files, which then make their own and say why they cannot.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const migrationsDir = fileURLToPath(new URL('../../../../drizzle', import.meta.url));
  const made = async <T>(problem: Promise<string | undefined>, make: () => Promise<T>): Promise<T | undefined> => {
    if ((await problem) !== undefined) return undefined;
    return make().catch((error: unknown) => {
      console.warn(`The run's database template could not be made (${(error as Error).message}): each test file makes its own.`);
      return undefined;
    });
  };
  const [postgres, mysql] = await Promise.all([
    made(postgresProblem(), () => makePostgresTemplate(migrationsDir)),
    made(mysqlProblem(), () => makeMysqlTemplate(migrationsDir)),
  ]);
  project.provide('dbTemplates', { migrationsDir, postgres, mysql });
  return async () => {
    await Promise.all([postgres && dropPostgresTemplate(postgres.name), mysql && dropMysqlTemplate(mysql.name)]);
  };
}
