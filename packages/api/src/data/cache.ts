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

/** A key that does not depend on the order params were written in or on absent ones. */
export function cacheKey(route: string, params: Record<string, unknown>): string {
  const normalised = Object.keys(params)
    .filter((name) => params[name] !== undefined)
    .sort()
    .map((name) => `${name}=${JSON.stringify(params[name])}`)
    .join('&');
  return `${route}?${normalised}`;
}

/**
 * The one cache every data route goes through (ARCHITECTURE.md): `api_cache` rows with the route's
 * TTL; concurrent identical requests share one upstream call; when the upstream fails, the last value
 * is served as STALE, and only when there is none does the error reach the caller.
 */
export class DataCache {
  private readonly inflight = new Map<string, Promise<{ value: unknown; fetchedAt: string }>>();

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
    const stored = await this.store.get(key);
    // A row written by an older version in another shape is a miss, not a crash.
    const parsed = stored ? schema.safeParse(stored.value) : undefined;
    const usable = stored && parsed?.success ? { value: parsed.data, fetchedAt: stored.fetchedAt, expiresAt: stored.expiresAt } : undefined;
    if (usable && !options.refresh && Date.parse(usable.expiresAt) > this.clock.now()) {
      return { value: usable.value, status: 'HIT', fetchedAt: usable.fetchedAt };
    }

    try {
      const fresh = await this.shared(key, async () => {
        const value = await load();
        const fetched = this.clock.now();
        const fetchedAt = new Date(fetched).toISOString();
        await this.store.put({ key, route, value, fetchedAt, expiresAt: new Date(fetched + ttlMs).toISOString() });
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
    await this.store.clear();
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
