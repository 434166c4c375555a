import { randomUUID } from 'node:crypto';
import type { DeliveryRow, NotificationRow, Store } from '@dash/db';

/** Rows that changed, and interruptions that were sent (`sent` may be empty). */
export type HubListener = (rows: NotificationRow[], sent: DeliveryRow[]) => void;

/** How far back each store read looks again: a Postgres sequence number can commit after a larger one. */
const OVERLAP = 200;

/**
 * Tells live streams about inbox rows that changed and interruptions that were sent. What this process wrote is
 * published at once; what another dashboard process wrote (several on one database) is found by reading the
 * store's change feed every `intervalMs` once started. Each (row, seq) and each interruption is told once.
 */
export class NotificationHub {
  private readonly listeners = new Set<HubListener>();
  private highest = 0;
  private readonly told = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
  /** An announcement came while a read was under way: read once more after it. */
  private again = false;
  private unlisten: (() => Promise<void>) | undefined;
  /** This hub, in its announcements: it does not read the feed again for its own. */
  private readonly id = randomUUID();
  private readonly closing = new AbortController();

  constructor(
    private readonly store: Store['notifications'],
    private readonly intervalMs = 1_000,
    /** Rows another process wrote, before listeners hear of them (this process's copies of what they made stale go). */
    private readonly onForeign: HubListener = () => {},
  ) {}

  /** Listens until the returned function is called. */
  subscribe(listener: HubListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Aborts when the process is shutting down: live streams end (cleanly, so the server can close) instead of holding it open. */
  get closed(): AbortSignal {
    return this.closing.signal;
  }

  /** Ends every live stream (they watch `closed`) and stops reading the store. */
  close(): void {
    this.closing.abort();
    clearInterval(this.timer);
    this.timer = undefined;
    void this.unlisten?.().catch(() => undefined);
    this.unlisten = undefined;
  }

  /** Rows (and interruptions) this process just committed; other processes on the database are told to read the feed. */
  publish(rows: readonly NotificationRow[], sent: readonly DeliveryRow[] = []): void {
    if (rows.length > 0 || sent.length > 0) void this.store.changes?.announce(this.id).catch(() => undefined);
    this.tell(
      rows.filter((row) => this.fresh(row)),
      sent.filter((delivery) => this.fresh(delivery)),
    );
  }

  private tell(rows: NotificationRow[], sent: DeliveryRow[]) {
    if (rows.length === 0 && sent.length === 0) return;
    for (const listener of this.listeners) listener(rows, sent);
  }

  /**
   * Where the feed stands, and from then on reading it every `intervalMs` (a timer that holds no process open):
   * streams replay from the store up to here, then listen; rows other processes write reach them, and this
   * process's cached copies of what those rows made stale go, whether or not anyone listens.
   */
  async start(): Promise<void> {
    if (this.highest === 0) {
      this.highest = Math.max(this.highest, await this.store.latestSeq());
      // What the first overlapping read will see again is old news, not changes to tell.
      const from = Math.max(0, this.highest - OVERLAP);
      for (const row of await this.store.changedSince(from, OVERLAP)) this.fresh(row);
      for (const delivery of await this.store.sentSince(from, OVERLAP)) this.fresh(delivery);
    }
    if (!this.timer && !this.closing.signal.aborted) {
      this.timer = setInterval(() => void this.readStore(), this.intervalMs);
      this.timer.unref();
      // Where the database announces commits (Postgres), another process's change is read at once; the timer stays
      // for what an announcement could miss (a reconnect).
      this.unlisten = await this.store.changes?.listen((from) => from !== this.id && void this.readStore()).catch(() => undefined);
      if (this.closing.signal.aborted) void this.unlisten?.().catch(() => undefined);
    }
  }

  /** A row (id, seq) or a sent interruption (`sent:` id) not told yet; it is told from now on. */
  private fresh(item: NotificationRow | DeliveryRow): boolean {
    const seq = item.seq ?? 0;
    const key = 'purpose' in item ? `sent:${item.id}` : `${item.id}:${seq}`;
    if (this.told.has(key)) return false;
    this.told.set(key, seq);
    this.highest = Math.max(this.highest, seq);
    // Forget what is far enough behind that no overlapping read can return it again.
    if (this.told.size > 4 * OVERLAP) {
      for (const [told, seq] of this.told) if (seq < this.highest - 2 * OVERLAP) this.told.delete(told);
    }
    return true;
  }

  private async readStore(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    this.again = false;
    try {
      const from = Math.max(0, this.highest - OVERLAP);
      const [rows, sent] = await Promise.all([this.store.changedSince(from, 500), this.store.sentSince(from, 500)]);
      const foreign = rows.filter((row) => this.fresh(row));
      if (foreign.length > 0) this.onForeign(foreign, []);
      this.tell(
        foreign,
        sent.filter((delivery) => this.fresh(delivery)),
      );
    } catch {
      // The store is away for a moment; the next tick reads again.
    } finally {
      this.reading = false;
    }
    if (this.again) await this.readStore();
  }
}
