import type { CacheStatus } from '@dash/contracts';
import type { Clock } from '@dash/connectors';
import type { Store } from '@dash/db';
import type { z } from 'zod';

export interface Cached<T> {
  value: T;
  status: CacheStatus;
  fetchedAt: string;
  /** Why a STALE value could not be refreshed. */
  staleReason?: string;
}

/** A project's integration config is a frozen object shared until it changes: serialise it once. */
const serialised = new WeakMap<object, string>();
function keyPart(value: unknown): string {
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return JSON.stringify(value);
  let text = serialised.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    serialised.set(value, text);
  }
  return text;
}

/** One parameter as a key writes it. */
const paramPart = (name: string, value: unknown) => `${name}=${keyPart(value)}`;

/** A key that does not depend on the order params were written in or on absent ones. */
export function cacheKey(route: string, params: Record<string, unknown>): string {
  const normalised = Object.keys(params)
    .filter((name) => params[name] !== undefined)
    .sort()
    .map((name) => paramPart(name, params[name]))
    .join('&');
  return `${route}?${normalised}`;
}

/** Whether a key of `route` holds the parameter part (the same test the store makes in SQL). */
const holds = (key: string, route: string, part: string) =>
  key.startsWith(`${route}?`) && `&${key.slice(route.length + 1)}&`.includes(`&${part}&`);

/**
 * The one cache every data route goes through (ARCHITECTURE.md): `api_cache` rows with the route's
 * TTL; concurrent identical requests share one upstream call; when the upstream fails, the last value
 * is served as STALE, and only when there is none does the error reach the caller.
 */
export class DataCache {
  private readonly inflight = new Map<string, Promise<{ value: unknown; fetchedAt: string }>>();
  /**
   * The parsed rows this process has read or written, newest last: a hit costs no query and no
   * re-parse of a year of chart points. The table stays the truth across restarts and processes.
   */
  private readonly memory = new Map<string, { value: unknown; fetchedAt: string; expiresAt: number }>();
  private static readonly MEMORY_ENTRIES = 500;

  constructor(
    private readonly store: Store['cache'],
    private readonly clock: Clock,
  ) {}

  async through<T>(options: {
    route: string;
    params: Record<string, unknown>;
    ttlMs: number;
    schema: z.ZodType<T>;
    refresh?: boolean;
    load: () => Promise<T>;
  }): Promise<Cached<T>> {
    const { route, ttlMs, schema, load } = options;
    const key = cacheKey(route, options.params);
    const usable = (this.memory.get(key) as { value: T; fetchedAt: string; expiresAt: number } | undefined) ?? (await this.read(key, schema));
    if (usable && !options.refresh && usable.expiresAt > this.clock.now()) {
      return { value: usable.value, status: 'HIT', fetchedAt: usable.fetchedAt };
    }

    try {
      const fresh = await this.shared(key, async () => {
        const value = await load();
        const fetched = this.clock.now();
        const fetchedAt = new Date(fetched).toISOString();
        await this.store.put({ key, route, value, fetchedAt, expiresAt: new Date(fetched + ttlMs).toISOString() });
        this.remember(key, { value, fetchedAt, expiresAt: fetched + ttlMs });
        return { value, fetchedAt };
      });
      return { value: fresh.value as T, status: 'MISS', fetchedAt: fresh.fetchedAt };
    } catch (error) {
      if (!usable) throw error;
      return { value: usable.value, status: 'STALE', fetchedAt: usable.fetchedAt, staleReason: (error as Error).message };
    }
  }

  /** Forgets every cached answer (the demo's upstreams moved, or the demo went away). */
  async clear(): Promise<void> {
    this.memory.clear();
    await this.store.clear();
  }

  /**
   * The next read of `route` for the project asks the upstream (a webhook said its data changed); the
   * value stays as the STALE fallback should that fail.
   */
  async expire(route: string, projectSlug: string): Promise<void> {
    this.forget(route, projectSlug);
    await this.store.expire(route, paramPart('project', projectSlug), new Date(this.clock.now()).toISOString());
  }

  /** `expire` for this process's copies only: another process expired the rows. */
  forget(route: string, projectSlug: string): void {
    const part = paramPart('project', projectSlug);
    for (const [key, entry] of this.memory) if (holds(key, route, part)) entry.expiresAt = Math.min(entry.expiresAt, this.clock.now());
  }

  /** A stored row, parsed; a row written by an older version in another shape is a miss, not a crash. */
  private async read<T>(key: string, schema: z.ZodType<T>) {
    const stored = await this.store.get(key);
    const parsed = stored ? schema.safeParse(stored.value) : undefined;
    if (!stored || !parsed?.success) return undefined;
    const entry = { value: parsed.data, fetchedAt: stored.fetchedAt, expiresAt: Date.parse(stored.expiresAt) };
    this.remember(key, entry);
    return entry;
  }

  private remember(key: string, entry: { value: unknown; fetchedAt: string; expiresAt: number }) {
    this.memory.delete(key);
    this.memory.set(key, entry);
    if (this.memory.size > DataCache.MEMORY_ENTRIES) this.memory.delete(this.memory.keys().next().value as string);
  }

  /** One load per key at a time; everyone asking meanwhile gets its result. */
  private shared(key: string, load: () => Promise<{ value: unknown; fetchedAt: string }>) {
    let running = this.inflight.get(key);
    if (!running) {
      running = load().finally(() => this.inflight.delete(key));
      this.inflight.set(key, running);
    }
    return running;
  }
}
