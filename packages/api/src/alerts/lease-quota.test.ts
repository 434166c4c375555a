import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '@dash/db';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { migrationsDir, testDatabases, type DatabaseKind } from '../testing.ts';
import { LeaseQuota, type Turn } from './lease-quota.ts';

const HOUR = 3_600_000;
const databases = testDatabases();
afterAll(() => databases.drop());
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Two processes' quotas: each its own connection to one new database of `kind`, on one clock. */
async function twoProcesses(kind: DatabaseKind, now: () => number) {
  const dir = mkdtempSync(join(tmpdir(), 'dash-lease-quota-'));
  cleanup.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
  const { databaseUrl, drop } = await databases.fresh(kind, dir);
  cleanup.push(drop);
  const url = databaseUrl ?? `file:${join(dir, 'data', 'dashboard.db')}`;
  const stores = [await openStore({ url, migrationsDir, migrate: false }), await openStore({ url, migrationsDir, migrate: false })];
  for (const store of stores) cleanup.push(() => store.close());
  return stores.map((store) => new LeaseQuota(store.leases, now));
}

describe.each(['SQLite', 'Postgres', 'MySQL'] as const)('a lease quota on %s', (kind) => {
  it('grants exactly N of many concurrent turns across two processes, frees one released, and each after its window', async () => {
    let now = Date.parse('2026-12-07T09:00:00Z');
    const [first, second] = await twoProcesses(kind, () => now);
    const takes = await Promise.all(Array.from({ length: 8 }, (_, n) => (n % 2 ? first! : second!).take('alerts-send:owner', 3, HOUR)));
    const turns = takes.filter((take): take is Turn => !('waitMs' in take));
    expect(turns).toHaveLength(3);
    // Another key has its own turns.
    expect('waitMs' in (await first!.take('alerts-send:token:t1', 3, HOUR))).toBe(false);

    // A turn given back is free again, to either process; then the quota is full again.
    await turns[0]!.release();
    expect('waitMs' in (await second!.take('alerts-send:owner', 3, HOUR))).toBe(false);
    expect(await first!.take('alerts-send:owner', 3, HOUR)).toEqual({ waitMs: expect.any(Number) as number });

    now += 10 * 60_000;
    // It says at most the window; the process whose turns they are knows: 50 minutes.
    const waits = [await first!.take('alerts-send:owner', 3, HOUR), await second!.take('alerts-send:owner', 3, HOUR)].map((take) => ('waitMs' in take ? take.waitMs : 0));
    expect(Math.min(...waits)).toBe(50 * 60_000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(HOUR);

    now += 50 * 60_000;
    const again = await Promise.all(Array.from({ length: 5 }, (_, n) => (n % 2 ? first! : second!).take('alerts-send:owner', 3, HOUR)));
    expect(again.filter((take) => !('waitMs' in take))).toHaveLength(3);
  });
});
