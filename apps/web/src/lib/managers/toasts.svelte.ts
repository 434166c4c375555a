import type { Interruption } from '@dash/contracts';

/** How long a toast stays up, unless it is held (hovered or focused). */
const TOAST_MS = 6_000;

export interface Toast {
  /** The interruption's id. */
  id: string;
  tag: string;
  title: string;
  body: string;
  severity: Interruption['severity'];
  url: string | null;
  notificationId: string | null;
}

/**
 * The toasts in one tab, oldest first: one per thread (a recovery replaces its outage's in place), the last four, each
 * gone TOAST_MS after it came unless held. Which interruptions become toasts is desktop-alerts.svelte.ts's say.
 */
export class Toasts {
  list = $state<Toast[]>([]);
  /** Each toast's timer: bookkeeping, never shown, so a plain Map. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  private timers = new Map<string, ReturnType<typeof setTimeout>>();

  /** The interruption as a toast, replacing its thread's. */
  add(interrupt: Interruption): void {
    const toast: Toast = {
      id: interrupt.id,
      tag: interrupt.tag,
      title: interrupt.title,
      body: interrupt.body,
      severity: interrupt.severity,
      url: interrupt.url,
      notificationId: interrupt.notificationId,
    };
    // One per thread: a recovery replaces its outage's toast in place.
    const replaced = this.list.find((t) => t.tag === toast.tag);
    if (replaced) this.clearTimer(replaced.id);
    this.list = replaced ? this.list.map((t) => (t.tag === toast.tag ? toast : t)) : [...this.list.slice(-3), toast];
    this.timers.set(
      toast.id,
      setTimeout(() => this.dismiss(toast.id), TOAST_MS),
    );
  }

  /** Keeps a toast up (while it is hovered or focused); `resume` starts its time again. */
  hold(id: string): void {
    this.clearTimer(id);
  }

  resume(id: string): void {
    if (!this.list.some((t) => t.id === id) || this.timers.has(id)) return;
    this.timers.set(
      id,
      setTimeout(() => this.dismiss(id), TOAST_MS),
    );
  }

  dismiss(id: string): void {
    this.clearTimer(id);
    this.list = this.list.filter((t) => t.id !== id);
  }

  /** Every toast gone at once (the tab stops showing interruptions). */
  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.list = [];
  }

  private clearTimer(id: string) {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }
}
