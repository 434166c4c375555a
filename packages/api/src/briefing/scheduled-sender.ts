import type { Clock } from '@dash/connectors';
import type { Store } from '@dash/db';
import { HeldLease } from '../held-lease.ts';
import type { Logger } from '../logger.ts';
import { Ticker } from '../ticker.ts';
import { LEASE_MS, POLL_MS, sleepMs } from './once-a-day.ts';

/**
 * What the briefing email's sender (mailer.ts) and the courier to the other destinations (courier.ts) share of running
 * in a process: a named lease (held `LEASE_MS` at a time, renewed while it works), a ticker that looks at once, again
 * when kicked, and then when the next send is due (`POLL_MS` apart at most), and a stop that waits for the look under
 * way and cuts short what it waits on. Each sender says what a look does and when the next one has something to do.
 */
export abstract class ScheduledSender<Outcome> {
  protected readonly lease: HeldLease;
  /** Aborted by `stop()`: what a look waits on (a composition, a refresh) ends early. */
  protected readonly abort = new AbortController();
  protected readonly ticker: Ticker<Outcome>;

  constructor(
    deps: { store: Pick<Store, 'leases'>; clock: Clock; log: Logger },
    private readonly job: {
      /** The store lease only one process holds at a time. */
      lease: string;
      /** How the log names it. */
      label: string;
      /** Why what a stop cuts short was not sent. */
      stopped: string;
    },
  ) {
    this.lease = new HeldLease(deps.store.leases, job.lease, LEASE_MS, () => deps.clock.now());
    this.ticker = new Ticker({
      look: () => this.look(),
      wait: async () => sleepMs(await this.nextDue(), deps.clock.now()),
      fallbackMs: POLL_MS,
      failed: (error) => deps.log.warn(`${job.label}: ${error.message}`),
    });
  }

  /** Sends what is due now, under the lease. */
  protected abstract look(): Promise<Outcome>;

  /** The next instant a look has something to do, or null while nothing is scheduled. */
  protected abstract nextDue(): Promise<number | null>;

  /** Looks now, and then whenever the next send is due (at least every `POLL_MS`). */
  start(): void {
    this.ticker.start();
  }

  /** A schedule changed in this process: look again now. */
  kick(): void {
    this.ticker.kick();
  }

  async stop(): Promise<void> {
    // Stopped first (a look under way sees it), then what it waits on is cut short.
    const stopping = this.ticker.stop();
    this.abort.abort(new Error(this.job.stopped));
    await stopping;
  }

  /** One look (shared with one under way in this process). */
  tick(): Promise<Outcome> {
    return this.ticker.tick();
  }
}
