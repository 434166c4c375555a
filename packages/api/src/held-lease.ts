import { randomUUID } from 'node:crypto';
import type { Store } from '@dash/db';

/**
 * A named store lease one process takes for a job that must run in one process at a time (the briefing email, the
 * metric history's snapshot and backfill): taken, renewed every third of its time while the job runs (a job may wait
 * minutes on a rate limit), and given up after.
 */
export class HeldLease {
  constructor(
    private readonly leases: Store['leases'],
    private readonly name: string,
    private readonly ttlMs: number,
    private readonly now: () => number,
    /** This process; leases of one job share it, so a job under one lease may renew its own. */
    private readonly holder: string = randomUUID(),
  ) {}

  /** Takes it, or renews it when this process holds it; false when another process does. */
  acquire(): Promise<boolean> {
    return this.leases.acquire(this.name, this.holder, this.ttlMs, new Date(this.now()).toISOString());
  }

  /** `work` while holding the lease, renewed as it runs and given up after; undefined (and no work) when another process holds it. */
  async run<T>(work: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (!(await this.acquire())) return undefined;
    const renew = setInterval(() => void this.acquire().catch(() => undefined), this.ttlMs / 3);
    renew.unref();
    try {
      return { value: await work() };
    } finally {
      clearInterval(renew);
      await this.leases.release(this.name, this.holder).catch(() => undefined);
    }
  }
}
