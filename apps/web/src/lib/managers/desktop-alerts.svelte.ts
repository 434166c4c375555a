import type { Interruption } from '@dash/contracts';

/**
 * Interruptions from the live stream, shown where the user will see them: an in-app toast in the tab
 * they are looking at, a desktop notification (the Notification API) when no tab is looked at and they
 * allowed it. With several tabs open only one of them shows desktop notifications: the one holding the
 * `dash-desktop-alerts` Web Lock for its page's life (the next tab takes over when it closes); without
 * Web Locks, the tabs agree over a BroadcastChannel who shows each interruption. One notification per
 * thread: the interruption's `tag` (a recovery has its outage's, and replaces it).
 */

/** The permission, or why there is none to ask for. */
export type AlertPermission = NotificationPermission | 'unsupported' | 'insecure';

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

/** Where a click on a toast or a desktop notification leads: the bell's panel at that row. */
export type OpenTarget = (target: { notificationId: string | null; url: string | null }) => void;

const LOCK = 'dash-desktop-alerts';
const CHANNEL = 'dash-desktop-alerts';
/** How long the ids of interruptions already handled are kept (the tabs' local clocks only: the server's is never compared). */
const REMEMBER_MS = 120_000;
const TOAST_MS = 6_000;
/** How long the tab that shows desktop notifications waits to hear that a tab being looked at toasted it instead. */
const GRACE_MS = 400;

type Message = { type: 'handled'; id: string };

function readPermission(): AlertPermission {
  if (typeof window === 'undefined') return 'default';
  if (!window.isSecureContext) return 'insecure';
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.permission;
}

/** The tab the user is looking at: shown and focused. */
const attentive = () => document.visibilityState === 'visible' && document.hasFocus();

class DesktopAlerts {
  permission = $state<AlertPermission>('default');
  /** Toasts in this tab, oldest first. */
  toasts = $state<Toast[]>([]);
  /** Whether this tab is the one that shows desktop notifications. */
  leader = $state(false);
  private running = false;
  private usesLocks = false;
  private channel: BroadcastChannel | undefined;
  private lockAbort: AbortController | undefined;
  private releaseLock: (() => void) | undefined;
  private open: OpenTarget | undefined;
  /** Interruption ids this tab has dealt with, and those another tab said it showed (with when, to forget them). */
  private seen = new Map<string, number>();
  private handledElsewhere = new Map<string, number>();
  private toastTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly onVisible = () => {
    if (document.visibilityState === 'visible') this.sync();
  };

  /** Reads the permission again (the settings may have changed it). */
  sync(): void {
    this.permission = readPermission();
  }

  /** Asks for the permission: call it from a click only, never on load. */
  async enable(): Promise<AlertPermission> {
    this.sync();
    if (this.permission === 'unsupported' || this.permission === 'insecure') return this.permission;
    // Asked even when the permission changed meanwhile: the browser answers at once, without a prompt, when it is decided.
    try {
      this.permission = await Notification.requestPermission();
    } catch {
      this.sync();
    }
    return this.permission;
  }

  /** Starts in this tab (idempotent): the leader election and the tabs' channel. The returned function stops it. */
  start(open: OpenTarget): () => void {
    this.open = open;
    this.sync();
    if (this.running) return () => this.stop();
    this.running = true;
    document.addEventListener('visibilitychange', this.onVisible);
    if (typeof BroadcastChannel !== 'undefined') {
      this.channel = new BroadcastChannel(CHANNEL);
      this.channel.onmessage = (event: MessageEvent<Message>) => {
        if (event.data?.type === 'handled') this.handledElsewhere.set(event.data.id, Date.now());
      };
    }
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
    if (locks) {
      this.usesLocks = true;
      const abort = new AbortController();
      this.lockAbort = abort;
      // Held until the page goes (or stop): the next tab waiting for it becomes the leader then.
      locks
        .request(LOCK, { signal: abort.signal }, () => {
          this.leader = true;
          return new Promise<void>((resolve) => (this.releaseLock = resolve));
        })
        .catch(() => {
          // Aborted by stop() while waiting: another tab leads.
        });
    }
    return () => this.stop();
  }

  private stop() {
    if (!this.running) return;
    this.running = false;
    document.removeEventListener('visibilitychange', this.onVisible);
    this.lockAbort?.abort();
    this.releaseLock?.();
    this.releaseLock = undefined;
    this.leader = false;
    this.channel?.close();
    this.channel = undefined;
    for (const timer of this.toastTimers.values()) clearTimeout(timer);
    this.toastTimers.clear();
    this.toasts = [];
  }

  /** An interruption from the live stream. */
  handle(interrupt: Interruption): void {
    const now = Date.now();
    this.forget(now);
    if (this.seen.has(interrupt.id)) return;
    this.seen.set(interrupt.id, now);
    if (attentive()) {
      this.toast(interrupt);
      this.post({ type: 'handled', id: interrupt.id });
      return;
    }
    // Only the leader shows desktop notifications; without Web Locks, whoever claims it first.
    if (this.usesLocks && !this.leader) return;
    const delay = GRACE_MS + (this.usesLocks ? 0 : Math.random() * 250);
    setTimeout(() => {
      if (this.handledElsewhere.has(interrupt.id)) return;
      if (attentive()) {
        this.toast(interrupt);
        this.post({ type: 'handled', id: interrupt.id });
        return;
      }
      if (this.notify(interrupt)) this.post({ type: 'handled', id: interrupt.id });
    }, delay);
  }

  /** A desktop notification, when allowed; whether one was shown. */
  private notify(interrupt: Interruption): boolean {
    this.sync();
    if (this.permission !== 'granted') return false;
    const options: NotificationOptions & { renotify?: boolean } = {
      body: interrupt.body,
      tag: interrupt.tag,
      renotify: interrupt.renotify,
      requireInteraction: interrupt.requireInteraction,
      data: { id: interrupt.id, notificationId: interrupt.notificationId, url: interrupt.url },
    };
    try {
      const shown = new Notification(interrupt.title, options);
      shown.onclick = (event) => {
        event.preventDefault();
        window.focus();
        shown.close();
        this.open?.({ notificationId: interrupt.notificationId, url: null });
      };
      return true;
    } catch {
      // Some browsers (Chrome on Android) only notify through a service worker: the inbox still has it.
      return false;
    }
  }

  private toast(interrupt: Interruption) {
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
    const replaced = this.toasts.find((t) => t.tag === toast.tag);
    if (replaced) this.clearTimer(replaced.id);
    this.toasts = replaced ? this.toasts.map((t) => (t.tag === toast.tag ? toast : t)) : [...this.toasts.slice(-3), toast];
    this.toastTimers.set(
      toast.id,
      setTimeout(() => this.dismiss(toast.id), TOAST_MS),
    );
  }

  /** Keeps a toast up (while it is hovered or focused); `resume` starts its time again. */
  hold(id: string): void {
    this.clearTimer(id);
  }

  resume(id: string): void {
    if (!this.toasts.some((t) => t.id === id) || this.toastTimers.has(id)) return;
    this.toastTimers.set(
      id,
      setTimeout(() => this.dismiss(id), TOAST_MS),
    );
  }

  dismiss(id: string): void {
    this.clearTimer(id);
    this.toasts = this.toasts.filter((t) => t.id !== id);
  }

  /** A click on a toast: the row's page when it has one, else the bell at its row. */
  activate(toast: Toast): void {
    this.dismiss(toast.id);
    if (toast.url) window.open(toast.url, '_blank', 'noopener,noreferrer');
    else this.open?.({ notificationId: toast.notificationId, url: null });
  }

  /** The bell at the toast's row. */
  reveal(toast: Toast): void {
    this.dismiss(toast.id);
    this.open?.({ notificationId: toast.notificationId, url: null });
  }

  private clearTimer(id: string) {
    clearTimeout(this.toastTimers.get(id));
    this.toastTimers.delete(id);
  }

  private post(message: Message) {
    try {
      this.channel?.postMessage(message);
    } catch {
      // A closed channel: this tab is going away.
    }
  }

  /** Ids are kept a while: a copy of an interruption (another tab's message) comes within moments, never later. */
  private forget(now: number) {
    for (const map of [this.seen, this.handledElsewhere]) {
      if (map.size < 200) continue;
      for (const [id, at] of map) if (now - at > REMEMBER_MS) map.delete(id);
    }
  }
}

/** This tab's one instance (the bell starts it; the settings read and ask for the permission through it). */
export const desktopAlerts = new DesktopAlerts();
