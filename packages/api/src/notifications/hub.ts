import type { NotificationRow, Store } from '@dash/db';

export type HubListener = (rows: NotificationRow[]) => void;

/** How far back each store read looks again: a Postgres sequence number can commit after a larger one. */
const OVERLAP = 200;

/**
 * Tells live streams about inbox rows that changed. Rows this process wrote are published at once;
 * rows another dashboard process wrote (several on one Postgres) are found by reading the store's
 * change feed every `intervalMs` once started. Each (row, seq) is told once.
 */
export class NotificationHub {
  private readonly listeners = new Set<HubListener>();
  private highest = 0;
  private readonly told = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
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
  }

  /** Rows this process just committed. */
  publish(rows: readonly NotificationRow[]): void {
    this.tell(rows.filter((row) => this.fresh(row)));
  }

  private tell(rows: NotificationRow[]) {
    if (rows.length === 0) return;
    for (const listener of this.listeners) listener(rows);
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
      for (const row of await this.store.changedSince(Math.max(0, this.highest - OVERLAP), OVERLAP)) this.fresh(row);
    }
    if (!this.timer && !this.closing.signal.aborted) {
      this.timer = setInterval(() => void this.readStore(), this.intervalMs);
      this.timer.unref();
    }
  }

  private fresh(row: NotificationRow): boolean {
    const key = `${row.id}:${row.seq}`;
    if (this.told.has(key)) return false;
    this.told.set(key, row.seq);
    this.highest = Math.max(this.highest, row.seq);
    // Forget what is far enough behind that no overlapping read can return it again.
    if (this.told.size > 4 * OVERLAP) {
      for (const [told, seq] of this.told) if (seq < this.highest - 2 * OVERLAP) this.told.delete(told);
    }
    return true;
  }

  private async readStore() {
    if (this.reading) return;
    this.reading = true;
    try {
      const foreign = (await this.store.changedSince(Math.max(0, this.highest - OVERLAP), 500)).filter((row) => this.fresh(row));
      if (foreign.length > 0) this.onForeign(foreign);
      this.tell(foreign);
    } catch {
      // The store is away for a moment; the next tick reads again.
    } finally {
      this.reading = false;
    }
  }
}
