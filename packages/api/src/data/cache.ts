import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { CacheStatus } from '@dash/contracts';
import type { Clock } from '@dash/connectors';
import type { Store } from '@dash/db';
import type { z } from 'zod';
import type { Flights } from './shared.ts';

/** How long a process may hold a key's fetch before another may take it over (it died, or an upstream hangs). */
export const FLIGHT_MS = 30_000;
/** How often a process waiting on another's fetch looks for the row it writes. */
const FLIGHT_POLL_MS = 25;

type Fetched = { value: unknown; fetchedAt: string; expiresAt: number };

/** A cached-only view (`DataCache.cachedOnly`) was asked for a value it does not hold fresh: only the upstream has it. */
export class NotCachedError extends Error {
  constructor(route: string) {
    super(`${route}: not in the cache, or no longer fresh`);
    this.name = 'NotCachedError';
  }
}

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
 * TTL; concurrent identical requests share one upstream call (in this process, and across processes
 * when `flights` is given: the others wait for the row the one fetching writes, and answer HIT); when
 * the upstream fails, the last value is served as STALE, and only when there is none does the error
 * reach the caller.
 */
export class DataCache {
  private readonly inflight = new Map<string, Promise<Fetched & { waited: boolean }>>();
  /** This process, as the holder of a fetch other processes wait on. */
  private readonly holder = randomUUID();
  /**
   * The parsed rows this process has read or written, newest last: a hit costs no query and no
   * re-parse of a year of chart points. The table stays the truth across restarts and processes.
   */
  private readonly memory = new Map<string, { value: unknown; fetchedAt: string; expiresAt: number }>();
  private static readonly MEMORY_ENTRIES = 500;
  /** Set in a view made by `cachedOnly`: the cache it reads, never asking an upstream. */
  private reads?: DataCache;
  /** Whether this cached-only view was asked for a value it does not hold fresh (and threw NotCachedError). */
  missed = false;

  constructor(
    private readonly store: Store['cache'],
    private readonly clock: Clock,
    /** Who fetches a key across processes; absent, this process's single-flight is all there is. */
    private readonly flights?: Flights,
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
    if (this.reads) return this.fresh(this.reads, options);
    const key = cacheKey(route, options.params);
    const usable = await this.usable(key, schema);
    if (usable && !options.refresh && usable.expiresAt > this.clock.now()) {
      return { value: usable.value, status: 'HIT', fetchedAt: usable.fetchedAt };
    }

    try {
      const fresh = await this.shared(key, () =>
        this.fetchOnce(key, schema, usable?.fetchedAt, async () => {
          const value = await load();
          const fetched = this.clock.now();
          const fetchedAt = new Date(fetched).toISOString();
          await this.store.put({ key, route, value, fetchedAt, expiresAt: new Date(fetched + ttlMs).toISOString() });
          return { value, fetchedAt, expiresAt: fetched + ttlMs };
        }),
      );
      this.remember(key, fresh);
      return { value: fresh.value as T, status: fresh.waited ? 'HIT' : 'MISS', fetchedAt: fresh.fetchedAt };
    } catch (error) {
      if (!usable) throw error;
      return { value: usable.value, status: 'STALE', fetchedAt: usable.fetchedAt, staleReason: (error as Error).message };
    }
  }

  /**
   * This cache as a page's first render reads it: `through` answers what is fresh here, as a HIT, and anything that
   * would ask the upstream (a miss, an expired value, a refresh) throws NotCachedError and sets `missed`, so the page
   * can send that part later instead of holding its HTML. A view per render: `missed` is its own.
   */
  cachedOnly(): DataCache {
    const view = new DataCache(this.store, this.clock, this.flights);
    view.reads = this;
    return view;
  }

  /** `through` of a cached-only view over `cache`. */
  private async fresh<T>(cache: DataCache, options: { route: string; params: Record<string, unknown>; schema: z.ZodType<T>; refresh?: boolean }): Promise<Cached<T>> {
    const usable = options.refresh ? undefined : await cache.usable(cacheKey(options.route, options.params), options.schema);
    if (usable && usable.expiresAt > this.clock.now()) return { value: usable.value, status: 'HIT', fetchedAt: usable.fetchedAt };
    this.missed = true;
    throw new NotCachedError(options.route);
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

  /** The value held for `key`, fresh or not: this process's copy, else the stored row. */
  private async usable<T>(key: string, schema: z.ZodType<T>) {
    return (this.memory.get(key) as { value: T; fetchedAt: string; expiresAt: number } | undefined) ?? (await this.read(key, schema));
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

  private remember(key: string, { value, fetchedAt, expiresAt }: Fetched) {
    this.memory.delete(key);
    this.memory.set(key, { value, fetchedAt, expiresAt });
    if (this.memory.size > DataCache.MEMORY_ENTRIES) this.memory.delete(this.memory.keys().next().value as string);
  }

  /**
   * The fetch of `key`, once across processes: the one that takes the key's flight fetches; the others wait for the
   * row it writes (a row other than the `seen` one) and use it. Should the holder fail (no row when its flight
   * ends) or take longer than FLIGHT_MS, the next to take the flight fetches.
   */
  private async fetchOnce(key: string, schema: z.ZodType, seen: string | undefined, fetch: () => Promise<Fetched>): Promise<Fetched & { waited: boolean }> {
    const flights = this.flights;
    if (!flights) return { ...(await fetch()), waited: false };
    // The caller has just read the row: take the flight first, and read again only while another holds it.
    while (!(await flights.take(key, this.holder, FLIGHT_MS, this.clock.now()))) {
      await delay(FLIGHT_POLL_MS);
      const written = await this.writtenSince(key, schema, seen);
      if (written) return { ...written, waited: true };
    }
    try {
      // Written by a holder that gave the flight up between the caller's read and this take.
      const written = await this.writtenSince(key, schema, seen);
      return written ? { ...written, waited: true } : { ...(await fetch()), waited: false };
    } finally {
      await flights.release(key, this.holder).catch(() => undefined);
    }
  }

  /** The stored row of `key` when another fetch wrote it since the `seen` one, and it is fresh. */
  private async writtenSince(key: string, schema: z.ZodType, seen: string | undefined): Promise<Fetched | undefined> {
    const stored = await this.store.get(key);
    if (!stored || stored.fetchedAt === seen || Date.parse(stored.expiresAt) <= this.clock.now()) return undefined;
    const parsed = schema.safeParse(stored.value);
    return parsed.success ? { value: parsed.data, fetchedAt: stored.fetchedAt, expiresAt: Date.parse(stored.expiresAt) } : undefined;
  }

  /**
   * One load per key at a time in this process; everyone asking meanwhile gets its result as one that waited (a HIT:
   * only the request whose load asked the upstream is a MISS).
   */
  private async shared(key: string, load: () => Promise<Fetched & { waited: boolean }>) {
    const running = this.inflight.get(key);
    if (running) return { ...(await running), waited: true };
    const loading = load().finally(() => this.inflight.delete(key));
    this.inflight.set(key, loading);
    return loading;
  }
}
