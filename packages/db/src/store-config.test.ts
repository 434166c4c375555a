import { expect, it } from 'vitest';
import { defaultSettings, type Settings, type SettingsUpdate } from '@dash/contracts';
import { ProjectExistsError, UnknownProjectsError } from './index.ts';
import { NOW, sleep } from './testing/store-fixtures.ts';
import { describeStores } from './testing/store-suite.ts';

/** What the dashboard keeps about itself and its upstreams, on every engine: settings, projects, sealed credentials, the upstream cache, meta values. */

await describeStores('the settings, projects, credentials, cache and meta', ({ dialect, open, withProjects }) => {
  it('creates projects that arrive at once, every one of them (MySQL rolls a deadlocked insert back: it is run again)', async () => {
    const store = await open();
    // Rounds of 30 on one store: on MySQL, inserts that read the table they write (the next position) meet in deadlocks.
    const slugs: string[] = [];
    for (let round = 0; round < 4; round++) {
      const batch = Array.from({ length: 30 }, (_, i) => `app-${round}-${i}`);
      await Promise.all(batch.map((slug) => store.projects.create({ slug, name: slug })));
      slugs.push(...batch);
    }
    expect((await store.projects.list()).map((project) => project.slug).sort()).toEqual(slugs.sort());
  });

  it('reports its dialect and starts with the default settings and no projects', async () => {
    const store = await open();
    expect(store.dialect).toBe(dialect);
    expect(await store.settings.get()).toEqual(defaultSettings);
    expect(await store.projects.list()).toEqual([]);
  });

  it('merges slot updates key by key, leaving the other slots and the configs alone', async () => {
    const store = await open();
    await store.settings.update({ widgetLayout: { slots: { revenue: 'funding' } } });
    await store.settings.update({ widgetLayout: { slots: { detail: 'health' } } });
    const expected: Settings['widgetLayout'] = {
      slots: { ...defaultSettings.widgetLayout.slots, revenue: 'funding', detail: 'health' },
      more: [],
      configs: defaultSettings.widgetLayout.configs,
    };
    expect((await store.settings.get()).widgetLayout).toEqual(expected);
  });

  it('keeps a slot cleared with null cleared after reopening, instead of bringing back its default', async () => {
    const store = await open();
    await store.settings.update({ widgetLayout: { slots: { seo: null } } });
    await store.close();
    const { slots } = (await (await open()).settings.get()).widgetLayout;
    expect(slots).not.toHaveProperty('seo');
    expect(slots.revenue).toBe('revenue');
  });

  it('replaces configs.revenue, and clears it with null', async () => {
    const store = await open();
    await store.settings.update({ widgetLayout: { configs: { revenue: { showOC: true } } } });
    expect((await store.settings.get()).widgetLayout.configs).toEqual({ revenue: { showOC: true } });
    await store.settings.update({ widgetLayout: { configs: { revenue: null } } });
    const { widgetLayout } = await store.settings.get();
    expect(widgetLayout.configs).toEqual({});
    expect(widgetLayout.slots).toEqual(defaultSettings.widgetLayout.slots);
  });

  it('replaces the row order as a whole, keeps it over a slot change and a reopening, and clears it with null', async () => {
    const store = await open();
    await store.settings.update({ widgetLayout: { more: ['health', 'funding'] } });
    await store.settings.update({ widgetLayout: { slots: { detail: 'health' } } });
    expect((await store.settings.get()).widgetLayout.more).toEqual(['health', 'funding']);
    await store.settings.update({ widgetLayout: { more: ['storefront'] } });
    await store.close();
    const reopened = await open();
    expect((await reopened.settings.get()).widgetLayout.more).toEqual(['storefront']);
    await reopened.settings.update({ widgetLayout: { more: null } });
    expect((await reopened.settings.get()).widgetLayout).toMatchObject({ more: [], slots: { detail: 'health' } });
  });

  it('keeps every one of 20 concurrent updates to different slots and configs', async () => {
    const store = await open();
    const slots = {
      revenue: 'funding',
      shipping: 'health',
      ideas: 'errortracker',
      analytics: 'storefront',
      seo: 'analytics',
      detail: 'ideas',
    } as const;
    const slotUpdates = Object.entries(slots).map(([slot, widget]): SettingsUpdate => ({ widgetLayout: { slots: { [slot]: widget } } }));
    const configUpdate: SettingsUpdate = { widgetLayout: { configs: { revenue: { showOC: true } } } };
    const updates = [...slotUpdates, ...slotUpdates].slice(0, 10).flatMap((update) => [update, configUpdate]);
    await Promise.all(updates.map((update) => store.settings.update(update)));
    expect((await store.settings.get()).widgetLayout).toEqual({ slots, more: [], configs: { revenue: { showOC: true } } });
  });

  it('creates a project with defaults and appends it to projectOrder', async () => {
    const store = await withProjects('b-app', 'a-app');
    const created = await store.projects.create({ slug: 'c-app', name: 'C' });
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(created).toEqual({
      slug: 'c-app',
      name: 'C',
      color: null,
      integrations: {},
      createdAt: created.createdAt,
      updatedAt: created.createdAt,
    });
    expect(await store.projects.get('c-app')).toEqual(created);
    expect((await store.settings.get()).projectOrder).toEqual(['b-app', 'a-app', 'c-app']);
    expect((await store.projects.list()).map((p) => p.slug)).toEqual(['b-app', 'a-app', 'c-app']);
  });

  it('rejects a duplicate slug with ProjectExistsError and leaves the original unchanged', async () => {
    const store = await open();
    const original = await store.projects.create({ slug: 'app', name: 'Original', color: '#112233' });
    const duplicate = store.projects.create({ slug: 'app', name: 'Impostor' });
    await expect(duplicate).rejects.toBeInstanceOf(ProjectExistsError);
    await expect(duplicate).rejects.toMatchObject({ slug: 'app' });
    expect(await store.projects.list()).toEqual([original]);
  });

  it('puts the projects a partial projectOrder lists first and keeps the rest in their relative order', async () => {
    const store = await withProjects('a', 'b', 'c', 'd', 'e');
    await store.settings.update({ projectOrder: ['d', 'b'] });
    expect((await store.settings.get()).projectOrder).toEqual(['d', 'b', 'a', 'c', 'e']);
    await store.settings.update({ projectOrder: ['e'], widgetLayout: { slots: { detail: 'funding' } } });
    const settings = await store.settings.get();
    expect(settings.projectOrder).toEqual(['e', 'd', 'b', 'a', 'c']);
    expect(settings.widgetLayout.slots.detail).toBe('funding');
    await store.projects.create({ slug: 'f', name: 'F' });
    expect((await store.projects.list()).map((p) => p.slug)).toEqual(['e', 'd', 'b', 'a', 'c', 'f']);
  });

  it('rejects a projectOrder naming an unknown slug with UnknownProjectsError and changes nothing', async () => {
    const store = await withProjects('a', 'b');
    const before = await store.settings.get();
    const update = store.settings.update({ projectOrder: ['b', 'ghost'], widgetLayout: { slots: { seo: null } } });
    await expect(update).rejects.toBeInstanceOf(UnknownProjectsError);
    await expect(update).rejects.toMatchObject({ slugs: ['ghost'] });
    expect(await store.settings.get()).toEqual(before);
  });

  it('removes a project from the list and from projectOrder, and answers false the second time', async () => {
    const store = await withProjects('a', 'b', 'c');
    expect(await store.projects.remove('b')).toBe(true);
    expect(await store.projects.remove('b')).toBe(false);
    expect(await store.projects.get('b')).toBeUndefined();
    expect((await store.settings.get()).projectOrder).toEqual(['a', 'c']);
  });

  it('patches name, colour and integrations: a named one is replaced, null removes one, others are kept', async () => {
    const store = await open();
    const created = await store.projects.create({
      slug: 'app',
      name: 'App',
      color: '#abcdef',
      integrations: {
        funding: { slug: 'app' },
        seo: { siteUrl: 'https://app.example' },
        code_host: { repos: ['me/app'] },
      },
    });
    await sleep(5);
    const patched = await store.projects.update('app', {
      name: 'Renamed',
      color: null,
      integrations: { funding: { slug: 'app-2' }, seo: null },
    });
    expect(patched).toMatchObject({
      slug: 'app',
      name: 'Renamed',
      color: null,
      integrations: { funding: { slug: 'app-2' }, code_host: { repos: ['me/app'] } },
      createdAt: created.createdAt,
    });
    expect(patched?.integrations).not.toHaveProperty('seo');
    expect(Date.parse(patched?.updatedAt ?? '')).toBeGreaterThan(Date.parse(created.updatedAt));
    expect(await store.projects.get('app')).toEqual(patched);
    expect(await store.projects.update('ghost', { name: 'Nobody' })).toBeUndefined();
  });

  it('keeps concurrent patches of different integrations of one project', async () => {
    const store = await withProjects('app');
    await Promise.all([
      store.projects.update('app', { integrations: { funding: { slug: 'app' } } }),
      store.projects.update('app', { integrations: { seo: { siteUrl: 'sc-domain:app.example' } } }),
      store.projects.update('app', { integrations: { storefront: { appId: '123' } } }),
    ]);
    expect((await store.projects.get('app'))?.integrations).toEqual({
      funding: { slug: 'app' },
      seo: { siteUrl: 'sc-domain:app.example' },
      storefront: { appId: '123' },
    });
  });

  it('stores sealed credentials: put, overwrite, sorted keys, remove', async () => {
    const store = await open();
    await store.credentials.putSealed('stripe', 'sealed-1');
    await store.credentials.putSealed('github:work', 'sealed-2');
    await store.credentials.putSealed('stripe', 'sealed-3');
    expect(await store.credentials.keys()).toEqual(['github:work', 'stripe']);
    expect(await store.credentials.getSealed('stripe')).toBe('sealed-3');
    expect(await store.credentials.getSealed('linear')).toBeUndefined();
    expect(await store.credentials.remove('stripe')).toBe(true);
    expect(await store.credentials.remove('stripe')).toBe(false);
    expect(await store.credentials.keys()).toEqual(['github:work']);
  });

  it('keeps api_cache entries by key with their times, overwrites them, and clears by route', async () => {
    const store = await open();
    const entry = { key: 'revenue:a', route: 'revenue', value: { mrr: 12.5, chart: [] }, fetchedAt: '2026-11-23T09:00:00.000Z', expiresAt: '2026-11-23T09:05:00.000Z' };
    await store.cache.put(entry);
    await store.cache.put({ ...entry, key: 'health:a', route: 'health' });
    expect(await store.cache.get('revenue:a')).toEqual(entry);
    await store.cache.put({ ...entry, value: { mrr: 13 }, expiresAt: '2026-11-23T09:10:00.000Z' });
    expect(await store.cache.get('revenue:a')).toMatchObject({ value: { mrr: 13 }, expiresAt: '2026-11-23T09:10:00.000Z' });
    expect(await store.cache.clear('revenue')).toBe(1);
    expect(await store.cache.get('revenue:a')).toBeUndefined();
    expect(await store.cache.get('health:a')).toBeDefined();
    expect(await store.cache.clear()).toBe(1);
  });

  it('expires the entries of one route and project, not those of a longer slug, another route or one already expired', async () => {
    const store = await open();
    const entry = (key: string, route: string, expiresAt = '2026-11-23T11:00:00.000Z') => ({ key, route, value: { key }, fetchedAt: '2026-11-23T09:00:00.000Z', expiresAt });
    const keys = {
      only: 'shipping:code_host?project="app"',
      first: 'shipping:code_host?project="app"&range="30d"',
      middle: 'shipping:code_host?config={"repo":"a/b"}&project="app"&range="30d"',
      last: 'shipping:code_host?config={"repo":"a/b"}&project="app"',
      longer: 'shipping:code_host?config={}&project="app-2"',
      // A literal `%` or `_` in the part matches only itself.
      wildcard: 'shipping:code_host?project="a_p"',
      otherRoute: 'health?project="app"',
      expired: 'shipping:code_host?project="app"&range="7d"',
    };
    for (const [name, key] of Object.entries(keys)) {
      await store.cache.put(entry(key, key.slice(0, key.indexOf('?')), name === 'expired' ? '2026-11-23T09:30:00.000Z' : undefined));
    }
    expect(await store.cache.expire('shipping:code_host', 'project="app"', NOW)).toBe(4);
    for (const name of ['only', 'first', 'middle', 'last'] as const) expect((await store.cache.get(keys[name]))?.expiresAt).toBe(NOW);
    for (const name of ['longer', 'wildcard', 'otherRoute'] as const) expect((await store.cache.get(keys[name]))?.expiresAt).toBe('2026-11-23T11:00:00.000Z');
    expect((await store.cache.get(keys.expired))?.expiresAt).toBe('2026-11-23T09:30:00.000Z');
    // The value stays: it is the STALE fallback when the upstream fails.
    expect((await store.cache.get(keys.first))?.value).toEqual({ key: keys.first });
    expect(await store.cache.expire('shipping:code_host', 'project="a%"', NOW)).toBe(0);
  });

  it('keeps the relay URL until null forgets it, leaving the other settings alone', async () => {
    const store = await open();
    expect((await store.settings.get()).relayUrl).toBeNull();
    await store.settings.update({ relayUrl: 'https://relay.example/api' });
    await store.settings.update({ widgetLayout: { slots: { seo: 'funding' } } });
    const settings = await store.settings.get();
    expect(settings.relayUrl).toBe('https://relay.example/api');
    expect(settings.widgetLayout.slots.seo).toBe('funding');
    await store.settings.update({ relayUrl: null });
    expect(await store.settings.get()).toEqual({ ...settings, relayUrl: null });
  });

  it('round-trips meta values without touching the settings', async () => {
    const store = await open();
    expect(await store.meta.get('key-check')).toBeUndefined();
    await store.meta.put('key-check', { v: 1, sealed: 'abc' });
    await store.meta.put('key-check', { v: 2, sealed: 'def' });
    expect(await store.meta.get('key-check')).toEqual({ v: 2, sealed: 'def' });
    expect(await store.settings.get()).toEqual(defaultSettings);
  });

  it('claims a meta value once among 20 concurrent claims from two processes: every claim answers the first', async () => {
    const [first, second] = [await open(), await open()];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first : second).meta.claim('installation', `id-${i}`)));
    expect(answers[0]).toMatch(/^id-\d+$/);
    expect(new Set(answers)).toEqual(new Set([answers[0]]));
    expect(await first.meta.claim('installation', 'late')).toBe(answers[0]);
    expect(await second.meta.get('installation')).toBe(answers[0]);
  });
});
