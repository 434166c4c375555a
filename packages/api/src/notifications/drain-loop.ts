import type { Clock } from '@dash/connectors';
import type { Logger } from '../logger.ts';

/**
 * The loop an outgoing channel's sender runs (email, push, chat; each extends it with its `drainAll` and `nextAt`): drain what is due, then sleep until the next is due (at
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

/** A send table's claim operations, as each outbox's store has them (emails, push sends, chat sends). */
export interface ClaimQueue<R extends { id: string }> {
  claim(holder: string, now: number, leaseMs: number, limit: number): Promise<R[]>;
  hold(id: string, holder: string, now: number, leaseMs: number): Promise<boolean>;
}

/**
 * How every outbox's sender goes through what it claimed: each send in turn, and only while this holder's claim on it
 * still holds, renewed for a whole lease just before the send (so the send, at most its request's 15 s and the pace
 * kept per destination, ends well inside it). A batch that outlived its first lease (20 sends to a receiver answering
 * in 8 s) may have been claimed in part by another process meanwhile: what this one no longer holds, it leaves to that
 * one, never sending it too. (A recovery behind its outage is never claimed before it: `leaseDue` in @dash/db.)
 */
export async function sendWhileHeld<R extends { id: string }>(
  queue: ClaimQueue<R>,
  claimed: readonly R[],
  lease: { holder: string; clock: Clock; leaseMs: number },
  send: (row: R) => Promise<void>,
): Promise<void> {
  for (const row of claimed) if (await queue.hold(row.id, lease.holder, lease.clock.now(), lease.leaseMs)) await send(row);
}

