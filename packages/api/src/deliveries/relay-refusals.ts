import type { Clock } from '@dash/connectors';
import type { Store } from '@dash/db';
import type { Logger } from '../logger.ts';
import { fetchRelayRefusals, RelayError, type RelayTarget } from '../notifications/relay-client.ts';
import { RELAY_READ_AT } from './log.ts';

/** How often the relay's counts are read beside the polls: the counts are per hour, a minute late is fine. */
const EVERY_MS = 60_000;
/** A relay from before the counts (404) is asked again after this long: it may have been upgraded. */
const OLD_RELAY_MS = 60 * 60_000;
/** The relay keeps its counts 48 hours; each read asks for all of them, so a dashboard that was off catches up. */
const WINDOW_MS = 48 * 60 * 60_000;

/**
 * Brings the relay's refusal counts (what it turned away, per hour, integration and reason) into the store beside the
 * polls, at most once a minute. The relay's count of an hour is its total so far, so each is kept as the larger of
 * the stored and the read one: reads again, from this process or another, never add twice.
 */
export class RelayRefusals {
  private nextAt = 0;
  private failing = false;

  constructor(private readonly options: { store: Store; fetch: typeof fetch; clock: Clock; log: Logger }) {}

  /** Reads the counts when a minute has passed since the last read; a failure is logged once and never fails the poll. */
  async maybeRead(target: RelayTarget, signal?: AbortSignal): Promise<void> {
    const { store, clock, log } = this.options;
    const now = clock.now();
    if (now < this.nextAt) return;
    this.nextAt = now + EVERY_MS;
    try {
      const answer = await fetchRelayRefusals(target, { since: now - WINDOW_MS, fetch: this.options.fetch, ...(signal ? { signal } : {}) });
      await store.deliveries.countRefusals(
        answer.counts.map((count) => ({ ...count, source: 'relay' as const })),
        'max',
      );
      await store.meta.put(RELAY_READ_AT, now);
      if (this.failing) log.info('the relay’s refusal counts are read again');
      this.failing = false;
    } catch (error) {
      if (error instanceof RelayError && error.status === 404) {
        // A relay from before the counts: nothing to read until it is upgraded.
        this.nextAt = now + OLD_RELAY_MS;
        return;
      }
      // An unreachable relay is the poller's to tell (once per outage); anything else is told once here.
      const outage = error instanceof RelayError && (error.reason === 'unreachable' || error.reason === 'timeout');
      if (!this.failing && !outage) log.warn(`${(error as Error).message}; the deliveries page shows the last counts read`);
      this.failing = !outage;
    }
  }

  /** The settings changed (another relay, another secret): read at the next poll. */
  reset(): void {
    this.nextAt = 0;
  }
}
