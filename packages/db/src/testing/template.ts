import { randomBytes } from 'node:crypto';
import { openStore } from '../index.ts';

/** A database migrated once and copied for each test (MigratedTemplate), the lazy template every engine's builds on. */

/** A fresh database for one test, holding what the migrations made and nothing else. */
export interface ClonedDatabase {
  url: string;
  /**
   * Gives it back once the test is done with it (once, however often called): dropped, or on Postgres emptied for a
   * later test. A test may leave this running rather than wait for it: its template's `drop` waits for it, and fails
   * with the first failure of any (this never fails).
   */
  drop: () => Promise<void>;
}

/**
 * A database migrated once, and copies of it: each test gets a database of its own that is exactly what the
 * migrations make, without running every migration again (seconds on Postgres and MySQL, where a test's own work
 * takes milliseconds; and MySQL's migrations wait for every other process's, their lock being per server). The
 * template is made on the first `clone`, under a name of its own (files and runs make theirs at once). While a test
 * runs, the next one's database is being made (a spare), and a test can leave its copy's `drop` running: the
 * server's work of making and dropping databases then passes beside the tests, not between them. `drop` removes
 * the template and every copy it made, once the file's tests are done. A test of the migrations themselves wants a
 * blank database instead (scratchPostgres, scratchMysql, a new file).
 */
export interface MigratedTemplate {
  clone(): Promise<ClonedDatabase>;
  drop(): Promise<void>;
}

/** A database a template made. */
interface Copy {
  url: string;
  drop(): Promise<void>;
}

/**
 * A MigratedTemplate over `make` (the template, made on the first clone), `copy` (a new database from it) and
 * `dropTemplate`. With `reset`, a copy given back is made what the migrations make again and handed to a later test
 * instead of being dropped (dropping and creating a database cost more than the test); a reset that answers false
 * turns the copy down, and it is dropped.
 */
export function lazyTemplate<T>(
  make: () => Promise<T>,
  copy: (template: T) => Promise<Copy>,
  dropTemplate: (template: T) => Promise<void>,
  reset?: (copy: Copy) => Promise<boolean | void>,
) {
  let made: Promise<T> | undefined;
  const template = (): Promise<T> => (made ??= make());
  /** Every copy made and not dropped yet: what `drop` drops. */
  const kept = new Set<Copy>();
  /** The databases for the next tests, first come first served: a spare being made, or a copy being reset. */
  const ready: Promise<Copy>[] = [];
  /** Drops under way; and every failure of a drop, a reset or a spare, which `drop` reports. */
  const dropping = new Set<Promise<void>>();
  const failures: unknown[] = [];

  const newCopy = async (): Promise<Copy> => {
    const created = await copy(await template());
    kept.add(created);
    return created;
  };
  const dropCopy = (done: Copy): Promise<void> => {
    kept.delete(done);
    const drop = done.drop().catch((error: unknown) => void failures.push(error));
    dropping.add(drop);
    void drop.finally(() => dropping.delete(drop));
    return drop;
  };
  /** A database on its way to a later test; one that failed to be made is handed to no one: its failure is kept. */
  const queue = (coming: Promise<Copy>) => {
    ready.push(coming);
    coming.catch((error: unknown) => {
      failures.push(error);
      const at = ready.indexOf(coming);
      if (at >= 0) void ready.splice(at, 1);
    });
  };
  const giveBack = (used: Copy): Promise<void> => {
    if (!reset) return dropCopy(used);
    const again = reset(used).then(
      async (reused) => {
        // A copy its reset turned down (a test changed more than rows) goes; the next test gets a new one.
        if (reused !== false) return used;
        await dropCopy(used);
        return newCopy();
      },
      async (error: unknown) => {
        // A copy that could not be reset is dropped: the failure is reported, the next test gets a new copy.
        failures.push(error);
        await dropCopy(used);
        return newCopy();
      },
    );
    queue(again);
    // Its failure is the template's to report (see queue).
    return again.then(
      () => undefined,
      () => undefined,
    );
  };

  return {
    made: template,
    async clone(): Promise<ClonedDatabase> {
      const next = ready.shift() ?? newCopy();
      if (ready.length === 0) queue(newCopy());
      const copy = await next;
      let given: Promise<void> | undefined;
      return { url: copy.url, drop: () => (given ??= giveBack(copy)) };
    },
    async drop(): Promise<void> {
      await Promise.allSettled(ready.splice(0));
      await Promise.allSettled([...dropping]);
      // At once: on Postgres each drop waits for a checkpoint, which drops under way together share.
      await Promise.all([...kept].map(dropCopy));
      const pending = made;
      made = undefined;
      // A template that could not be made left nothing behind (its maker cleaned up).
      const madeTemplate = await pending?.catch(() => undefined);
      if (madeTemplate !== undefined) await dropTemplate(madeTemplate);
      const failed = failures.splice(0);
      if (failed.length > 0) throw failed[0];
    },
  };
}

export const uniqueName = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

export async function migrateOnce(url: string, migrationsDir: string): Promise<void> {
  await (await openStore({ url, migrationsDir })).close();
}
