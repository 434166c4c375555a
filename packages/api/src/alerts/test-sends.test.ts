import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '@dash/db';
import { afterEach, describe, expect, it } from 'vitest';
import { RetryLaterError } from '../errors.ts';
import { migrationsDir } from '../testing.ts';
import { TEST_SEND_EVERY_MS, TestSends } from './test-sends.ts';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('test sends', () => {
  it('give each channel one turn a minute across the processes of one database, and say when the next one is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dash-test-sends-'));
    cleanup.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    // Two processes: each its own connection to the same database file.
    const stores = [await openStore({ url: `file:${join(dir, 'dashboard.db')}`, migrationsDir }), await openStore({ url: `file:${join(dir, 'dashboard.db')}`, migrationsDir })];
    for (const store of stores) cleanup.push(() => store.close());
    let now = Date.parse('2026-11-23T12:00:00Z');
    const [first, second] = stores.map((store) => new TestSends(store.leases, () => now));

    await first!.take('briefing', 'briefing email');
    // The other process within the minute: refused, at most a minute to wait.
    await expect(second!.take('briefing', 'briefing email')).rejects.toMatchObject({ retryAfterSeconds: 60 });
    // Another channel has its own turn.
    await second!.take('alerts', 'email');
    now += 20_000;
    // This process knows its own turn: exactly 40 s left.
    const refused = await first!.take('briefing', 'briefing email').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RetryLaterError);
    expect(refused).toMatchObject({ retryAfterSeconds: 40, message: 'One test briefing email a minute: try again in 40 s.' });
    now += TEST_SEND_EVERY_MS;
    await second!.take('briefing', 'briefing email');
  });
});
