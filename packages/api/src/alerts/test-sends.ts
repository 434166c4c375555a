import type { Store } from '@dash/db';
import { RetryLaterError } from '../errors.ts';
import { LeaseQuota } from './lease-quota.ts';

/** How often a channel may send a test: each one is a real message (the briefing's also reads every upstream). */
export const TEST_SEND_EVERY_MS = 60_000;

/**
 * The test sends of every outgoing channel (the alerts' test email, the briefing's, the push test): at most one a
 * minute each, for every dashboard process on the database, so a loop (or a leaked token) cannot flood an inbox or the
 * upstreams. The turn is the store's lease (LeaseQuota, with one turn a minute per channel).
 */
export class TestSends {
  private readonly quota: LeaseQuota;

  constructor(leases: Store['leases'], now: () => number) {
    this.quota = new LeaseQuota(leases, now);
  }

  /** Takes `channel`'s turn now, or refuses with a 429 saying when the next one is. */
  async take(channel: string, name: string): Promise<void> {
    const turn = await this.quota.take(`test-send:${channel}`, 1, TEST_SEND_EVERY_MS);
    if (!('waitMs' in turn)) return;
    const seconds = Math.max(1, Math.ceil(turn.waitMs / 1000));
    throw new RetryLaterError(seconds, `One test ${name} a minute: try again in ${seconds} s.`);
  }
}
