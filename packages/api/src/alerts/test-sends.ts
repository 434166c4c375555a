import { randomUUID } from 'node:crypto';
import type { Store } from '@dash/db';
import { RetryLaterError } from '../errors.ts';

/** How often a channel may send a test: each one is a real message (the briefing's also reads every upstream). */
export const TEST_SEND_EVERY_MS = 60_000;

/**
 * The test sends of every outgoing channel (the alerts' test email, the briefing's, the push test): at most one a
 * minute each, for every dashboard process on the database, so a loop (or a leaked token) cannot flood an inbox or the
 * upstreams. The turn is the store's lease (the one mechanism the processes already share: the relay poller's); this
 * process remembers its own turns only to say exactly when the next one is (another process's: within the minute).
 */
export class TestSends {
  private readonly last = new Map<string, number>();

  constructor(
    private readonly leases: Store['leases'],
    private readonly now: () => number,
  ) {}

  /** Takes `channel`'s turn now, or refuses with a 429 saying when the next one is. */
  async take(channel: string, name: string): Promise<void> {
    const now = this.now();
    // A new holder each time: the lease is taken only when no turn of the last minute holds it.
    if (await this.leases.acquire(`test-send:${channel}`, randomUUID(), TEST_SEND_EVERY_MS, new Date(now).toISOString())) {
      this.last.set(channel, now);
      return;
    }
    const last = this.last.get(channel);
    const wait = last !== undefined && now >= last ? last + TEST_SEND_EVERY_MS - now : TEST_SEND_EVERY_MS;
    const seconds = Math.max(1, Math.ceil(wait / 1000));
    throw new RetryLaterError(seconds, `One test ${name} a minute: try again in ${seconds} s.`);
  }
}
