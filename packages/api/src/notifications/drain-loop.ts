import type { Clock } from '@dash/connectors';
import type { Logger } from '../logger.ts';

/**
 * The loop an outgoing channel's sender runs (`OutboxSender`, which email, push and chat extend, gives its `drainAll` and `nextAt`): drain what is due, then sleep until the next is due (at
 * least a second, at most a minute: another process may have queued something). One drain at a time; a kick during
 * one runs another after it, so nothing queued meanwhile waits for the next look.
 */
export abstract class DrainLoop {
  private draining: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly loop: {
      clock: Clock;
      log: Logger;
      /** How a failed drain is named in the log: "notification emails". */
      name: string;
    },
  ) {}

  /** Sends everything due now. */
  protected abstract drainAll(): Promise<void>;

  /** When something is next due (ms UTC), or undefined. */
  protected abstract nextAt(): Promise<number | undefined>;

  /** Drains now and then whenever the next send is due (or every minute). */
  start(): void {
    this.kick();
  }

  /** Something was queued: drain soon. */
  kick(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drainAll()
      .catch((error: unknown) => this.loop.log.warn(`${this.loop.name}: ${(error as Error).message}`))
      .finally(() => {
        this.draining = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        } else void this.scheduleNext();
      });
  }

  /** Sends what is due now, after any drain already running; answers when done. */
  async drain(): Promise<void> {
    while (this.draining) await this.draining;
    this.draining = this.drainAll().finally(() => (this.draining = undefined));
    await this.draining;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.draining;
  }

  private async scheduleNext(): Promise<void> {
    if (this.stopped) return;
    const next = await this.nextAt().catch(() => undefined);
    const wait = Math.min(Math.max((next ?? Infinity) - this.loop.clock.now(), 1_000), 60_000);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), wait);
    this.timer.unref();
  }
}
