import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoizeReads, openStore } from './index.ts';
import { event, inWindow, MINUTE, NOW } from './testing/store-fixtures.ts';
import { migrationsDir } from './testing/store-suite.ts';

/** memoizeReads: a second's copy of settings and projects in front of a store, everything else passed through. */

describe('memoizeReads', () => {
  it('passes auth through unchanged', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-memo-'));
    const raw = await openStore({ url: `file:${path.join(dir, 'memo.db')}`, migrationsDir });
    try {
      const store = memoizeReads(raw);
      expect(store.auth).toBe(raw.auth);
      expect(await store.auth.createOwner('hash')).toBe(true);
      expect((await raw.auth.owner())?.passwordHash).toBe('hash');
    } finally {
      await raw.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('passes notifications and leases through, and ingesting or reading does not keep a stale project list', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-memo-'));
    const raw = await openStore({ url: `file:${path.join(dir, 'memo.db')}`, migrationsDir });
    try {
      const store = memoizeReads(raw);
      expect(store.notifications).toBe(raw.notifications);
      expect(store.leases).toBe(raw.leases);
      const { changed } = await store.notifications.ingest([event('github:1')], inWindow);
      expect(await raw.notifications.list({ limit: 10 })).toEqual(changed);
      expect(await store.leases.acquire('job', 'me', MINUTE, NOW)).toBe(true);
      expect(await raw.leases.acquire('job', 'other', MINUTE, NOW)).toBe(false);
    } finally {
      await raw.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers settings and projects from a copy until a write through it or the copy’s age says otherwise', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-memo-'));
    const raw = await openStore({ url: `file:${path.join(dir, 'memo.db')}`, migrationsDir });
    let now = 0;
    const store = memoizeReads(raw, { maxAgeMs: 1000, now: () => now });
    try {
      expect(await store.projects.list()).toEqual([]);
      // Another process writes: this one sees it only once its copy is a second old.
      await raw.projects.create({ slug: 'elsewhere', name: 'Elsewhere' });
      expect(await store.projects.list()).toEqual([]);
      now += 1000;
      expect((await store.projects.list()).map((p) => p.slug)).toEqual(['elsewhere']);
      // Its own writes show at once, in the list, in get() and in the settings' projectOrder.
      await store.settings.get();
      await store.projects.create({ slug: 'mine', name: 'Mine' });
      expect((await store.projects.list()).map((p) => p.slug)).toEqual(['elsewhere', 'mine']);
      expect(await store.projects.get('mine')).toMatchObject({ name: 'Mine' });
      expect((await store.settings.get()).projectOrder).toEqual(['elsewhere', 'mine']);
      // A caller cannot change what the next caller gets: the shared copy is frozen.
      const [first] = await store.projects.list();
      expect(() => Object.assign(first ?? {}, { name: 'changed' })).toThrow(TypeError);
      expect((await store.projects.get('elsewhere'))?.name).toBe('Elsewhere');
    } finally {
      await raw.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
