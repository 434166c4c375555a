import type { Project, Settings } from '@dash/contracts';
import type { Store } from './store.ts';

/** Shared copies are frozen, so a caller that tried to change one would fail loudly instead of corrupting the next read. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * Keeps the last read of the settings and the project list for a moment: every data request reads
 * both, and a dashboard asks for six widgets at once. Writes through this store drop the copies at
 * once; writes by another process (two dashboards on one Postgres) show within `maxAgeMs`.
 */
export function memoizeReads(store: Store, { maxAgeMs = 1000, now = () => Date.now() } = {}): Store {
  let settings: { at: number; value: Promise<Settings> } | undefined;
  let projects: { at: number; value: Promise<Project[]> } | undefined;
  const fresh = (entry: { at: number } | undefined) => entry !== undefined && now() - entry.at < maxAgeMs;
  const forget = () => {
    settings = projects = undefined;
  };
  /** A write forgets the copies both before (so nothing reads a stale one meanwhile) and after. */
  const writing =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      forget();
      try {
        return await write(...args);
      } finally {
        forget();
      }
    };
  const listProjects = () => {
    if (!fresh(projects)) {
      const value = store.projects.list().then(deepFreeze);
      projects = { at: now(), value };
      // A failed read is not kept.
      value.catch(() => (projects = undefined));
    }
    return (projects as { value: Promise<Project[]> }).value;
  };

  return {
    // Everything else (credentials, cache, auth, notifications, leases, meta) goes straight to the store: sign-ins
    // and token checks must see every write at once, and none of those writes touches the settings or projects.
    ...store,
    settings: {
      get() {
        if (!fresh(settings)) {
          const value = store.settings.get().then(deepFreeze);
          settings = { at: now(), value };
          value.catch(() => (settings = undefined));
        }
        return (settings as { value: Promise<Settings> }).value;
      },
      update: writing((update) => store.settings.update(update)),
    },
    transfer: { ...store.transfer, restore: writing((tables) => store.transfer.restore(tables)) },
    projects: {
      list: async () => [...(await listProjects())],
      get: async (slug) => (await listProjects()).find((project) => project.slug === slug),
      create: writing((input) => store.projects.create(input)),
      update: writing((slug, patch) => store.projects.update(slug, patch)),
      remove: writing((slug) => store.projects.remove(slug)),
    },
  };
}
