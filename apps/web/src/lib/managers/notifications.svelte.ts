import { TRPCClientError } from '@trpc/client';
import type { Interruption, Notification, NotificationStreamEvent } from '@dash/contracts';
import { api } from '$lib/services/trpc';
import { describeError } from '$lib/utils/errors';
import { isoNow } from '$lib/utils/format';

/** Waits before opening the stream again after it ended: doubling from the first to the last. */
const RETRY_FIRST_MS = 1_000;
const RETRY_LAST_MS = 60_000;
/** A stream that stayed open this long was healthy: the next reconnect starts from the first wait again. */
const HEALTHY_MS = 60_000;

/** A 401 (the sign-in guard's own JSON, which carries no tRPC data): the client is already sending the page to sign in. */
const signedOut = (error: unknown) => error instanceof TRPCClientError && error.meta?.response instanceof Response && error.meta.response.status === 401;

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
  /**
   * Interruptions from the stream (a toast, a desktop notification); the inbox itself has nothing to do with them.
   * `replayed`: sent while this tab's stream was away (a reconnect's replay), for the desktop alerts to judge.
   */
  onInterrupt: ((interrupt: Interruption, replayed: boolean) => void) | undefined;
  private stop: (() => void) | undefined;
  /** The seq of the last event seen: a reconnect resumes after it. */
  private lastEventId: number | undefined;

  /**
   * `seq`: the stream's position when the page was made. The first stream starts after it, so whatever happens between
   * the page and its stream (or while a stream that has brought nothing yet is away) is replayed, not lost.
   */
  constructor(unread: number, seq?: number) {
    this.unread = unread;
    this.lastEventId = seq;
  }

  /**
   * Starts listening (idempotent); call `disconnect` when the page goes. The server ends the stream when
   * this tab's sign-in ends (or it restarts); then a cheap call finds out which: signed out, the page goes
   * to sign in (the client's 401 handling); otherwise it opens again after a wait that doubles up to a minute.
   */
  connect(): void {
    if (this.stop) return;
    let stopped = false;
    let subscription: { unsubscribe(): void } | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let wait = RETRY_FIRST_MS;
    let openedAt = 0;
    const open = () => {
      openedAt = Date.now();
      const input = this.lastEventId === undefined ? undefined : { lastEventId: this.lastEventId };
      subscription = api.notifications.stream.subscribe(input, {
        onData: (envelope) => {
          if (/^\d+$/.test(envelope.id)) this.lastEventId = Number(envelope.id);
          this.receive(envelope.data);
        },
        onComplete: () => void reopen(),
        onError: () => void reopen(),
      });
    };
    const reopen = async () => {
      subscription?.unsubscribe();
      if (stopped) return;
      if (Date.now() - openedAt >= HEALTHY_MS) wait = RETRY_FIRST_MS;
      try {
        await api.auth.status.query();
      } catch (error) {
        // Signed out: the page is on its way to sign in; nothing to reopen.
        if (signedOut(error)) return;
      }
      if (stopped) return;
      timer = setTimeout(open, wait);
      wait = Math.min(wait * 2, RETRY_LAST_MS);
    };
    open();
    this.stop = () => {
      stopped = true;
      clearTimeout(timer);
      subscription?.unsubscribe();
    };
  }

  disconnect(): void {
    this.stop?.();
    this.stop = undefined;
  }

  private receive(event: NotificationStreamEvent) {
    if (event.kind === 'interrupt') {
      this.onInterrupt?.(event.interrupt, event.replayed);
      return;
    }
    this.unread = event.unreadCount;
    if (event.kind === 'reset') {
      if (this.loaded) void this.load();
      return;
    }
    if (!this.loaded) return;
    const row = event.notification;
    const rest = this.items.filter((item) => item.id !== row.id);
    // In its place: a read or a recovery changes a row but does not move it. A snoozed row goes until it wakes.
    if (this.shows(row)) this.items = [row, ...rest].sort((a, b) => b.createdSeq - a.createdSeq);
    else this.items = rest;
  }

  /** Whether a row belongs in the list: not snoozed, and it matches the filters. */
  private shows(row: Notification): boolean {
    return row.snoozedUntil === null && this.matches(row);
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
      this.items = page.notifications.filter((item) => item.snoozedUntil === null);
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
      this.items = [...this.items, ...page.notifications.filter((item) => !known.includes(item.id) && item.snoozedUntil === null)];
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

  /** Snoozes rows until `until` (ISO 8601): they leave the list at once, and come back unread then. */
  async snooze(ids: string[], until: string): Promise<boolean> {
    const before = this.items;
    this.items = this.items.filter((item) => !ids.includes(item.id));
    this.error = undefined;
    try {
      const { unreadCount } = await api.notifications.snooze.mutate({ ids, until });
      this.unread = unreadCount;
      return true;
    } catch (error) {
      // Back where they were, unless the stream changed the list meanwhile.
      const listed = this.items.map((item) => item.id);
      this.items = [...this.items, ...before.filter((item) => ids.includes(item.id) && !listed.includes(item.id))].sort((a, b) => b.createdSeq - a.createdSeq);
      this.error = describeError(error).message;
      return false;
    }
  }

  /** Mutes a row's subject until `until` (ISO 8601), or ends its mute (null); the rows of that subject show it. */
  async mute(subjectKey: string, until: string | null): Promise<boolean> {
    this.error = undefined;
    try {
      const { mutes } = await api.notifications.mute.mutate({ subjectKey, until });
      const endOf = (subjectKey: string) => mutes.find((mute) => mute.subjectKey === subjectKey)?.until ?? null;
      this.items = this.items.map((item) => (item.subjectKey === null ? item : { ...item, mutedUntil: endOf(item.subjectKey) }));
      return true;
    } catch (error) {
      this.error = describeError(error).message;
      return false;
    }
  }
}
