import { randomUUID } from 'node:crypto';
import type { Clock } from '@dash/connectors';
import type { Logger } from '../logger.ts';
import { DrainLoop } from './drain-loop.ts';

/** A queued send as every send table has it (emails, push sends, chat sends). */
export interface QueuedSend {
  id: string;
  attempts: number;
  /** When a queued one is next tried (ms UTC). */
  dueAt: number;
  error: string | null;
}

/** How a claimed send ended, as every send table's `settle` takes it; a table adds its own fields (a status, the provider's id). */
export interface SettleOutcome {
  state: string;
  attempts: number;
  dueAt: number;
  error: string | null;
  sentAt: number | null;
}

/** What a table's settle takes besides what the outbox sender fills in itself. */
export type OwnFields<O extends SettleOutcome> = Omit<O, keyof SettleOutcome>;

/** A send table's operations, as each outbox's store has them (emails, push sends, chat sends: `sendQueue` in @dash/db). */
export interface SendQueue<R extends QueuedSend, O extends SettleOutcome> {
  claim(holder: string, now: number, leaseMs: number, limit: number): Promise<R[]>;
  hold(id: string, holder: string, now: number, leaseMs: number): Promise<boolean>;
  settle(id: string, holder: string, outcome: O): Promise<void>;
  nextDue(): Promise<number | null>;
}

/**
 * How one send went, as a channel's sender says it: `sent`; `retry` not before `afterMs` (the service's own hint, 0
 * for none), after the sender's back-off; `gone` (the destination no longer exists), `refused` (for good, or not to be
 * sent at all) and `skipped` (nothing to send there) settle it for good; `wait` queues it until `until` without using
 * up a try. `fields` are the table's own (a status, the provider's id). `retrying` runs just before a retry is queued,
 * `settled` and `gaveUp` (a retry with no try left) just after the row is settled.
 */
export type SendResult<F> =
  | { kind: 'sent'; fields: F }
  | { kind: 'retry'; afterMs: number; reason: string; fields: F; retrying?: () => Promise<void>; gaveUp?: (attempts: number) => void }
  | { kind: 'gone' | 'refused' | 'skipped'; reason: string; fields: F; settled?: () => Promise<void> | void }
  | { kind: 'wait'; until: number; fields: F };

const finalState = { gone: 'gone', refused: 'failed', skipped: 'skipped' } as const;

export interface OutboxSettings<R extends QueuedSend, O extends SettleOutcome> {
  clock: Clock;
  log: Logger;
  /** How a failed drain is named in the log: "notification emails". */
  name: string;
  queue: SendQueue<R, O>;
  /** A claim lasts this long: a process that dies mid-send leaves the row to another after it. */
  leaseMs: number;
  /** At most this many rows a claim. */
  batch: number;
  /** After a `retry`: tried again after each of these in turn (or the service's hint, if later), then failed. */
  retryMs: readonly number[];
}

/**
 * The one claim -> hold -> send -> settle loop of every outbox (email, push, chat): claims due rows under a lease (one
 * process sends each; each claim its own holder, so two drains never share a row), sends each only while its claim
 * still holds (`sendWhileHeld`), and settles it from what the channel's `send` answered, owning the tries and the
 * back-off between them. A channel's sender says only how to send one row (`send`), what a claim reads once
 * (`claimContext`), and any cap on how many may go (`room`, `capFreesAt`).
 */
export abstract class OutboxSender<R extends QueuedSend, O extends SettleOutcome, C = undefined> extends DrainLoop {
  constructor(private readonly outbox: OutboxSettings<R, O>) {
    super(outbox);
  }

  /** Sends one claimed row (its claim renewed just before) and says how it went. */
  protected abstract send(row: R, context: C): Promise<SendResult<OwnFields<O>>>;

  /** What the sends of one claim read once (a provider's configuration, a cache). */
  protected claimContext(): Promise<C> {
    return Promise.resolve(undefined as C);
  }

  /** How many may go now (a cap per hour); no limit by default. */
  protected room(_now: number): Promise<number> {
    return Promise.resolve(Infinity);
  }

  /** When a cap lets the next one go, or undefined when it holds nothing back. */
  protected capFreesAt(): Promise<number | undefined> {
    return Promise.resolve(undefined);
  }

  protected async nextAt(): Promise<number> {
    const [due, blocked] = await Promise.all([this.outbox.queue.nextDue(), this.capFreesAt()]);
    return Math.max(due ?? Infinity, blocked ?? 0);
  }

  protected async drainAll(): Promise<void> {
    const { queue, clock, leaseMs, batch } = this.outbox;
    for (;;) {
      const now = clock.now();
      const limit = Math.min(batch, await this.room(now));
      if (limit <= 0) return;
      const holder = randomUUID();
      const claimed = await queue.claim(holder, now, leaseMs, limit);
      if (claimed.length === 0) return;
      const context = await this.claimContext();
      await sendWhileHeld(queue, claimed, { holder, clock, leaseMs }, (row) => this.sendOne(row, holder, context));
      if (claimed.length < limit) return;
    }
  }

  private async sendOne(row: R, holder: string, context: C): Promise<void> {
    const { queue, clock } = this.outbox;
    const attempts = row.attempts + 1;
    const result = await this.send(row, context);
    const now = clock.now();
    const settle = (outcome: Pick<SettleOutcome, 'state' | 'error'> & Partial<SettleOutcome>) =>
      queue.settle(row.id, holder, { attempts, dueAt: row.dueAt, sentAt: null, ...result.fields, ...outcome } as O);
    switch (result.kind) {
      case 'sent':
        await settle({ state: 'delivered', error: null, sentAt: now });
        return;
      case 'wait':
        await settle({ state: 'queued', attempts: row.attempts, dueAt: result.until, error: row.error });
        return;
      case 'retry': {
        const later = this.outbox.retryMs[attempts - 1];
        if (later === undefined) {
          await settle({ state: 'failed', error: result.reason });
          result.gaveUp?.(attempts);
          return;
        }
        await result.retrying?.();
        await settle({ state: 'queued', dueAt: now + Math.max(later, result.afterMs), error: result.reason });
        return;
      }
      case 'gone':
      case 'refused':
      case 'skipped':
        await settle({ state: finalState[result.kind], error: result.reason });
        await result.settled?.();
        return;
    }
  }
}

/**
 * How every outbox's sender goes through what it claimed: each send in turn, and only while this holder's claim on it
 * still holds, renewed for a whole lease just before the send (so the send, at most its request's 15 s and the pace
 * kept per destination, ends well inside it). A batch that outlived its first lease (20 sends to a receiver answering
 * in 8 s) may have been claimed in part by another process meanwhile: what this one no longer holds, it leaves to that
 * one, never sending it too. (A recovery behind its outage is never claimed before it: `leaseDue` in @dash/db.)
 */
async function sendWhileHeld<R extends { id: string }>(
  queue: Pick<SendQueue<QueuedSend, SettleOutcome>, 'hold'>,
  claimed: readonly R[],
  lease: { holder: string; clock: Clock; leaseMs: number },
  send: (row: R) => Promise<void>,
): Promise<void> {
  for (const row of claimed) if (await queue.hold(row.id, lease.holder, lease.clock.now(), lease.leaseMs)) await send(row);
}
