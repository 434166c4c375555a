import type { Notification, NotificationStreamEvent } from '@dash/contracts';
import { api } from '$lib/services/trpc';
import { describeError } from '$lib/utils/errors';
import { isoNow } from '$lib/utils/format';

export interface InboxFilter {
  unread: boolean;
  project: string;
  integration: string;
}

/**
 * The inbox as the page sees it: the unread count (live from the stream), and, while the panel is
 * open, the newest notifications with paging and filters. New and changed rows arrive through one
 * subscription per tab, which resumes where it stopped after a reconnect.
 */
export class InboxState {
  unread = $state(0);
  items = $state<Notification[]>([]);
  loading = $state(false);
  error = $state<string | undefined>();
  nextBefore = $state<number | null>(null);
  filter = $state<InboxFilter>({ unread: false, project: '', integration: '' });
  /** Whether the list has been loaded at least once (an empty inbox vs one not asked yet). */
  loaded = $state(false);
  private stop: (() => void) | undefined;

  constructor(unread: number) {
    this.unread = unread;
  }

  /** Starts listening (idempotent); call `disconnect` when the page goes. */
  connect(): void {
    if (this.stop) return;
    const subscription = api.notifications.stream.subscribe(undefined, {
      onData: (envelope) => this.receive(envelope.data),
    });
    this.stop = () => subscription.unsubscribe();
  }

  disconnect(): void {
    this.stop?.();
    this.stop = undefined;
  }

  private receive(event: NotificationStreamEvent) {
    this.unread = event.unreadCount;
    if (event.kind === 'reset') {
      if (this.loaded) void this.load();
      return;
    }
    if (!this.loaded) return;
    const row = event.notification;
    const rest = this.items.filter((item) => item.id !== row.id);
    // In its place: a read or a recovery changes a row but does not move it.
    if (this.matches(row)) this.items = [row, ...rest].sort((a, b) => b.createdSeq - a.createdSeq);
    else this.items = rest;
  }

  private matches(row: Notification): boolean {
    const { unread, project, integration } = this.filter;
    return (!unread || row.readAt === null) && (!project || row.project === project) && (!integration || row.integration === integration);
  }

  private query(before?: number) {
    const { unread, project, integration } = this.filter;
    return { limit: 30, ...(unread ? { unread: true } : {}), ...(project ? { project } : {}), ...(integration ? { integration } : {}), ...(before ? { before } : {}) };
  }

  async load(): Promise<void> {
    this.loading = true;
    this.error = undefined;
    try {
      const page = await api.notifications.list.query(this.query());
      this.items = page.notifications;
      this.unread = page.unreadCount;
      this.nextBefore = page.nextBefore;
      this.loaded = true;
    } catch (error) {
      this.error = describeError(error).message;
    } finally {
      this.loading = false;
    }
  }

  async more(): Promise<void> {
    if (this.nextBefore === null) return;
    this.loading = true;
    try {
      const page = await api.notifications.list.query(this.query(this.nextBefore));
      const known = this.items.map((item) => item.id);
      this.items = [...this.items, ...page.notifications.filter((item) => !known.includes(item.id))];
      this.nextBefore = page.nextBefore;
    } catch (error) {
      this.error = describeError(error).message;
    } finally {
      this.loading = false;
    }
  }

  async markRead(target: { ids: string[] } | { all: true }): Promise<void> {
    try {
      const { unreadCount } = await api.notifications.markRead.mutate(target);
      this.unread = unreadCount;
      const at = isoNow();
      const marked = (item: Notification) => item.readAt === null && ('all' in target || target.ids.includes(item.id));
      this.items = this.items.map((item) => (marked(item) ? { ...item, readAt: at } : item)).filter((item) => this.matches(item));
    } catch (error) {
      this.error = describeError(error).message;
    }
  }
}
