import { testClock } from '@dash/connectors/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestApi } from '../testing.ts';
import { DataCache, NotCachedError } from './cache.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of cleanup.splice(0)) await dispose();
});

describe('DataCache.cachedOnly, as a first render reads the cache', () => {
  it('answers what is fresh as a HIT, and refuses a miss, an expired value and a refresh without asking the upstream', async () => {
    const clock = testClock();
    const api = await createTestApi({ clock });
    cleanup.push(() => api.dispose());
    const cache = new DataCache(api.store.cache, clock);
    let loads = 0;
    const read = (from: DataCache, project: string, refresh = false) =>
      from.through({ route: 'health', params: { project }, ttlMs: 60_000, schema: z.object({ n: z.number() }), refresh, load: () => Promise.resolve({ n: ++loads }) });

    await read(cache, 'a');
    const fresh = cache.cachedOnly();
    await expect(read(fresh, 'a')).resolves.toMatchObject({ value: { n: 1 }, status: 'HIT' });
    expect(fresh.missed).toBe(false);

    const miss = cache.cachedOnly();
    await expect(read(miss, 'b')).rejects.toBeInstanceOf(NotCachedError);
    expect(miss.missed).toBe(true);

    const refresh = cache.cachedOnly();
    await expect(read(refresh, 'a', true)).rejects.toBeInstanceOf(NotCachedError);
    expect(refresh.missed).toBe(true);

    clock.advance(60_001);
    const expired = cache.cachedOnly();
    await expect(read(expired, 'a')).rejects.toBeInstanceOf(NotCachedError);
    expect(expired.missed).toBe(true);
    expect(loads).toBe(1);
  });
});
