import { RetryLaterError } from '../errors.ts';

/** How often a channel may send a test: each one is a real message (the briefing's also reads every upstream). */
export const TEST_SEND_EVERY_MS = 60_000;

/**
 * The test sends of every outgoing channel (the alerts' test email, the briefing's, and those to come): at most one a
 * minute each, in this process, so a loop (or a leaked token) cannot flood an inbox or the upstreams.
 */
export class TestSends {
  private readonly last = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** Takes `channel`'s turn now, or refuses with a 429 saying when the next one is. */
  take(channel: string, name: string): void {
    const now = this.now();
    const last = this.last.get(channel);
    if (last !== undefined && now - last < TEST_SEND_EVERY_MS && now >= last) {
      const seconds = Math.max(1, Math.ceil((last + TEST_SEND_EVERY_MS - now) / 1000));
      throw new RetryLaterError(seconds, `One test ${name} a minute: try again in ${seconds} s.`);
    }
    this.last.set(channel, now);
  }
}
