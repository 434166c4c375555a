import { testClock } from '@dash/connectors/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DataCache } from '../data/cache.ts';
import { createTestApi } from '../testing.ts';
import { deliveryTests } from '../testing/delivery.ts';
import { incident, inboxTests, mergedPr, sentryIssue, signed, type DashboardOptions } from './inbox-testing.ts';

// The cached data an event makes stale: the demo's routes on the sandbox expired for the event's project and route
// only, and kept as the STALE answer when the upstream then fails; DataCache.expire and forget underneath.

const { sandbox } = deliveryTests();
const { cleanup, dashboard } = inboxTests(sandbox);

describe('cached data an event makes stale', () => {
  /** A dashboard running the demo against the sandbox, and the x-cache of a data route. */
  async function demoDashboard(options: DashboardOptions = {}) {
    sandbox.reset();
    const dash = await dashboard({ ...options, withDemo: true });
    await dash.caller.demo.start();
    const cacheOf = async (path: string) => {
      const res = await dash.call('GET', path);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      return res.headers.get('x-cache');
    };
    return { ...dash, cacheOf };
  }
  const monitorListings = () => sandbox.requestsTo('betterstack', '/api/v2/monitors?').length;

  it("expires the project's uptime data on an outage: the next read asks Better Stack, other projects' stay cached", async () => {
    const dash = await demoDashboard();
    expect([await dash.cacheOf('/api/health?project=formfox'), await dash.cacheOf('/api/health?project=formfox')]).toEqual(['MISS', 'HIT']);
    expect([await dash.cacheOf('/api/health?project=tideline'), await dash.cacheOf('/api/health?project=tideline')]).toEqual(['MISS', 'HIT']);
    const listings = monitorListings();

    // Formfox's "App" monitor (2003) goes down.
    await dash.deliver(signed.betterstack(incident('started', { id: '77', monitorId: '2003' })));
    expect((await dash.inbox('&project=formfox&integration=uptime_monitor'))[0]).toMatchObject({ type: 'monitor.down', resolved: false });

    expect(await dash.cacheOf('/api/health?project=formfox')).toBe('MISS');
    expect(monitorListings()).toBe(listings + 1);
    expect(await dash.cacheOf('/api/health?project=formfox')).toBe('HIT');
    expect(await dash.cacheOf('/api/health?project=tideline')).toBe('HIT');
    expect(monitorListings()).toBe(listings + 1);
  });

  it("expires only the matching route: a Sentry issue refreshes the project's errors, not its uptime or another project's errors", async () => {
    const dash = await demoDashboard();
    for (const path of ['/api/errortracker?project=formfox', '/api/errortracker?project=pocket-ledger', '/api/health?project=formfox']) {
      expect([await dash.cacheOf(path), await dash.cacheOf(path)], path).toEqual(['MISS', 'HIT']);
    }
    const searches = () => sandbox.requestsTo('sentry', '/api/0/organizations/demo-founder/issues/').length;
    const before = searches();

    await dash.deliver(signed.sentry(sentryIssue('created', 'formfox-web'), dash.clock.now()));
    expect(await dash.cacheOf('/api/errortracker?project=formfox')).toBe('MISS');
    expect(searches()).toBe(before + 1);
    expect(await dash.cacheOf('/api/errortracker?project=pocket-ledger')).toBe('HIT');
    expect(await dash.cacheOf('/api/health?project=formfox')).toBe('HIT');
  });

  it("expires the project's shipped work from GitHub on a merged PR, leaving its deploys and other projects cached", async () => {
    const dash = await demoDashboard();
    for (const path of ['/api/shipping?project=formfox', '/api/shipping?project=tideline']) {
      expect([await dash.cacheOf(path), await dash.cacheOf(path)], path).toEqual(['MISS', 'HIT']);
    }
    const [gh, vc, ln] = [sandbox.requestsTo('github').length, sandbox.requestsTo('vercel').length, sandbox.requestsTo('linear').length];

    await dash.deliver(signed.github(mergedPr('formfox/web', 501)));
    expect((await dash.inbox('&integration=code_host'))[0]).toMatchObject({ project: 'formfox', url: 'https://github.com/formfox/web/pull/501' });
    expect(await dash.cacheOf('/api/shipping?project=formfox')).toBe('MISS');
    expect(sandbox.requestsTo('github').length).toBeGreaterThan(gh);
    expect([sandbox.requestsTo('vercel').length, sandbox.requestsTo('linear').length]).toEqual([vc, ln]);
    expect(await dash.cacheOf('/api/shipping?project=tideline')).toBe('HIT');
  });

  it('expires nothing for an event no project claims', async () => {
    const dash = await demoDashboard();
    await dash.cacheOf('/api/health?project=formfox');
    await dash.cacheOf('/api/shipping?project=formfox');
    await dash.deliver(signed.betterstack(incident('started', { id: '78', monitorId: '999999' })));
    await dash.deliver(signed.github(mergedPr('someone/else', 3)));
    expect((await dash.inbox()).slice(0, 2).map((n) => n.project)).toEqual([null, null]);
    expect(await dash.cacheOf('/api/health?project=formfox')).toBe('HIT');
    expect(await dash.cacheOf('/api/shipping?project=formfox')).toBe('HIT');
  });

  it('keeps the expired value as the STALE answer when the upstream then fails', async () => {
    const dash = await demoDashboard();
    const fresh = await dash.call('GET', '/api/health?project=formfox');
    await dash.deliver(signed.betterstack(incident('started', { id: '79', monitorId: '2004' })));
    sandbox.inject('betterstack', { status: 503, body: { errors: 'Service Unavailable' } });
    const stale = await dash.call('GET', '/api/health?project=formfox');
    expect(stale.status).toBe(200);
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect(stale.json).toEqual(fresh.json);
  });
});

describe('DataCache.expire and forget', () => {
  const value = z.object({ n: z.number() });

  /** A cache over a fresh store, and a read of `route` for a project that counts its loads. */
  async function cacheOver() {
    const clock = testClock();
    const api = await createTestApi({ clock });
    cleanup.push(() => api.dispose());
    let loads = 0;
    let failing = false;
    const read = (cache: DataCache, route: string, project: string, extra: Record<string, unknown> = {}) =>
      cache.through({
        route,
        params: { ...extra, project, config: { monitorIds: ['1'] } },
        ttlMs: 60_000,
        schema: value,
        load: () => {
          if (failing) return Promise.reject(new Error('upstream down'));
          loads++;
          return Promise.resolve({ n: loads });
        },
      });
    return { api, clock, cache: new DataCache(api.store.cache, clock), read, loads: () => loads, fail: () => (failing = true) };
  }

  it('expire: the next read of that route for that project loads again, here and in another process; "ab" and other routes stay', async () => {
    const { api, clock, cache, read, loads } = await cacheOver();
    for (const [route, project] of [
      ['health', 'a'],
      ['health', 'ab'],
      ['health', 'b'],
      ['healthy', 'a'],
      ['shipping:code_host', 'a'],
    ] as const) {
      expect((await read(cache, route, project)).status).toBe('MISS');
      expect((await read(cache, route, project)).status).toBe('HIT');
    }
    // A parameter after `project` in the key, too.
    expect((await read(cache, 'health', 'a', { zone: 'eu' })).status).toBe('MISS');
    expect(loads()).toBe(6);

    await cache.expire('health', 'a');
    const other = new DataCache(api.store.cache, clock);
    for (const reader of [cache, other]) {
      expect((await read(reader, 'health', 'ab')).status).toBe('HIT');
      expect((await read(reader, 'health', 'b')).status).toBe('HIT');
      expect((await read(reader, 'healthy', 'a')).status).toBe('HIT');
      expect((await read(reader, 'shipping:code_host', 'a')).status).toBe('HIT');
    }
    expect(loads()).toBe(6);
    expect((await read(other, 'health', 'a')).status).toBe('MISS');
    expect((await read(other, 'health', 'a', { zone: 'eu' })).status).toBe('MISS');
    expect(loads()).toBe(8);
    // This process's copy went too (the other process's load refreshed the row it now reads).
    expect((await read(cache, 'health', 'a')).status).not.toBe('HIT');
  });

  it("forget: only this process's copy goes; the stored row stays fresh for another process", async () => {
    const { api, clock, cache, read, loads } = await cacheOver();
    await read(cache, 'health', 'a');
    await read(cache, 'health', 'ab');
    cache.forget('health', 'a');
    const other = new DataCache(api.store.cache, clock);
    expect((await read(other, 'health', 'a')).status).toBe('HIT');
    expect((await read(cache, 'health', 'ab')).status).toBe('HIT');
    expect(loads()).toBe(2);
    expect((await read(cache, 'health', 'a')).status).toBe('MISS');
    expect(loads()).toBe(3);
  });

  it('an expired value is still served as STALE when the upstream fails', async () => {
    const { cache, read, fail } = await cacheOver();
    const first = await read(cache, 'health', 'a');
    await cache.expire('health', 'a');
    fail();
    const stale = await read(cache, 'health', 'a');
    expect(stale).toMatchObject({ status: 'STALE', value: first.value, staleReason: 'upstream down' });
  });
});
