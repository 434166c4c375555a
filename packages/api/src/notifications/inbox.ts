import type { IngestResult, NotificationRow, Store } from '@dash/db';
import type { RelayEvent } from '@dash/webhooks';
import type { Logger } from '../context.ts';
import type { DataCache } from '../data/cache.ts';
import { NotificationHub } from './hub.ts';
import { projectRefs, staleRoutes, toIncoming } from './resolve.ts';

const DAY = 86_400_000;

export interface InboxOptions {
  /** The same sourceEventId within this window is one notification (7 days: GitHub redelivers for 3). */
  dedupWindowMs?: number;
  /** Retention: read rows go after this long, unread ones after `unreadRetentionMs`. */
  readRetentionMs?: number;
  unreadRetentionMs?: number;
  now?: () => number;
}

/** The cached data (route, project) these rows' events made stale, each once. */
function staleData(rows: readonly NotificationRow[]): { route: string; slug: string }[] {
  const targets = new Map<string, { route: string; slug: string }>();
  for (const { projectSlug: slug, integration, type } of rows) {
    if (slug) for (const route of staleRoutes({ integration, type })) targets.set(`${route}\n${slug}`, { route, slug });
  }
  return [...targets.values()];
}

/**
 * Where every event from the relay and from the local webhook route goes: matched to its project,
 * stored once (deduplicated, folded into its row, with the relay cursor in the same transaction), the
 * cached data it makes stale expired, and the changed rows told to live streams. The policy layer
 * (preferences, quiet hours, interruptions) reads `changed` after this and decides what interrupts.
 */
export class Inbox {
  readonly hub: NotificationHub;
  private readonly now: () => number;
  private readonly dedupWindowMs: number;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly cache: DataCache,
    private readonly log: Logger,
    private readonly options: InboxOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.dedupWindowMs = options.dedupWindowMs ?? 7 * DAY;
    this.hub = new NotificationHub(store.notifications, 1_000, (rows) => {
      for (const { route, slug } of staleData(rows)) cache.forget(route, slug);
    });
  }

  /**
   * Stores a batch (one transaction, with `cursor` when it came from a relay poll). Batches of this
   * process run one after another, so the relay poller and the local route never race each other here.
   */
  ingest(events: readonly RelayEvent[], cursor?: { relayUrl: string; since: number }): Promise<IngestResult> {
    const run = this.queue.then(() => this.ingestNow(events, cursor));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async ingestNow(events: readonly RelayEvent[], cursor?: { relayUrl: string; since: number }): Promise<IngestResult> {
    const refs = projectRefs(await this.store.projects.list());
    const incoming = events.map((event) => toIncoming(event, refs));
    const result = await this.store.notifications.ingest(incoming, {
      now: new Date(this.now()).toISOString(),
      dedupWindowMs: this.dedupWindowMs,
      cursor,
    });
    if (result.changed.length > 0) {
      await this.expireStaleData(result.changed);
      this.hub.publish(result.changed);
    }
    return result;
  }

  /** The next read of what these rows' events changed asks the upstream; the cached value stays as a fallback. */
  private async expireStaleData(rows: readonly NotificationRow[]) {
    for (const { route, slug } of staleData(rows)) {
      try {
        await this.cache.expire(route, slug);
      } catch (error) {
        // The notification is stored; a cache that stays fresh a little longer is no reason to fail.
        this.log.warn(`could not expire ${route} for ${slug}: ${(error as Error).message}`);
      }
    }
  }

  /** The daily retention job: read rows after 90 days, unread after 180, with their events. */
  async prune(): Promise<number> {
    const now = this.now();
    const removed = await this.store.notifications.prune(
      new Date(now - (this.options.readRetentionMs ?? 90 * DAY)).toISOString(),
      new Date(now - (this.options.unreadRetentionMs ?? 180 * DAY)).toISOString(),
    );
    if (removed > 0) this.log.info(`notifications: ${removed} old row(s) removed`);
    return removed;
  }
}
