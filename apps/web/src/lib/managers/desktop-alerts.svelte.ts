import { httpUrl } from '@dash/contracts/names';
import type { Interruption } from '@dash/contracts';
import { closeOnDevice, readPermission, showOnDevice, showOnPage, type AlertPermission } from '$lib/desktop-notice';
import { Toasts, type Toast } from '$lib/managers/toasts.svelte';

/**
 * Interruptions from the live stream, shown where the user will see them, once. "In view" is
 * `document.visibilityState === 'visible'` in any tab of the dashboard, focused or not (a window on a
 * second monitor is in view): then a toast in each tab in view and no desktop notification. With no tab in
 * view, one desktop notification (the Notification API, when allowed) and no toast.
 *
 * One tab decides, the leader: the one holding the `dash-desktop-alerts` Web Lock for its page's life (the
 * next tab takes over when it closes); without Web Locks, every tab decides and the first to show one tells
 * the others. The tabs talk over a BroadcastChannel:
 * - Every tab says whether it is in view (`view`: when it starts, when that changes; `gone` when it goes).
 * - A tab in view toasts what its own stream brings, and says so (`handled`); every tab keeps the ids of what
 *   some tab showed, and never shows those again.
 * - A hidden tab hands what its own stream brings to the leader (`received`), so the leader hears of every
 *   interruption while any tab's stream is up, its own included or not; copies are one, by interruption id.
 * - The leader waits a moment (a tab in view toasting it is heard by then), then: shown already, nothing;
 *   in view itself, a toast; another tab in view, an `offer` to it; else one desktop notification.
 * - Every tab that gets an offer answers: `handled` (toasted), or `declined` (out of view by then). The leader
 *   waits for the answer of each tab it offered to, or for that tab to go (its `gone`, or its own lock, held
 *   for its life, coming free after a crash); when none took it, it decides again, with what it now knows.
 * - Every tab keeps what it heard of and no tab has shown yet: a tab that becomes the leader decides those,
 *   so an interruption the last leader had not yet shown when it went is not lost.
 * - A reconnect's replay (sent while this tab's stream was away) goes the same way when it was sent at most
 *   REMEMBER_MS ago, by the server's clock (its `at` against the `Date` of an answer from the server now: the
 *   browser's clock is never compared with the server's), and no tab has shown it. Within that bound any tab
 *   that showed it did so since, and every tab still remembers it, so a replay is never shown twice; an older
 *   one (a long outage, a laptop that slept) stays in the inbox and out of pop-ups.
 * So each interruption some stream brings is decided by one tab, and shown, as a toast or on the desktop,
 * until some tab says it was. One notification per thread: the interruption's `tag` (a recovery has its
 * outage's, and replaces it); when a tab in view toasts a thread instead, the leader closes that thread's
 * desktop notification, now out of date.
 *
 * One notice per device, with Web Push too: a desktop notification goes through the service worker's registration,
 * as a push does, with the push's tag; so a push of the same interruption (the worker stays silent only while a tab
 * is in view) replaces it rather than adding a second, and whichever comes second, finding the same words showing,
 * shows nothing (notice.ts `saysAlready`).
 *
 * Apart: the toasts in this tab (toasts.svelte.ts) and showing or closing a notice on the device (desktop-notice.ts).
 * What is left stays one file, over 400 lines: the protocol above is one state machine, each message and each decision
 * reading and writing the same maps (seen, handled, pending, considered, offers, the tabs in view), so a part of it
 * elsewhere would be read only beside the rest.
 */

/** Where a click on a toast or a desktop notification leads: the bell's panel at that row. */
export type OpenTarget = (target: { notificationId: string | null; url: string | null }) => void;

const LOCK = 'dash-desktop-alerts';
const CHANNEL = 'dash-desktop-alerts';
/**
 * How long the ids of interruptions already handled are kept (by the tabs' local clocks), and how old (by the server's
 * clock) a replay may be and still pop up: no older, or it could be one some tab showed and has forgotten.
 */
const REMEMBER_MS = 120_000;
/** How long one reading of the server's clock serves the replays that come with it (one reconnect's). */
const SERVER_TIME_MS = 2_000;
/** How long the tab that shows desktop notifications waits before deciding (a tab coming into view, or toasting it, is heard by then). */
const GRACE_MS = 400;
/** Without Web Locks, how long the leader waits for a tab in view to answer an offer before taking it as gone. */
const OFFER_MS = 3_000;
/** Each tab's own lock, held for its life: which tabs are still there. */
const tabLock = (tab: string) => `${LOCK}:tab:${tab}`;

type Message =
  /** A tab showed this interruption: a toast (in view) or a desktop notification. */
  | { type: 'handled'; id: string; tag: string; toast: boolean }
  /** A tab is in view or not; `gone` when it goes. */
  | { type: 'view'; tab: string; inView: boolean }
  | { type: 'gone'; tab: string }
  /** A new tab asks the others whether they are in view. */
  | { type: 'ask' }
  /** A hidden tab hands the leader what its own stream brought (the leader's own may be down). */
  | { type: 'received'; interrupt: Interruption }
  /** The leader hands an interruption to the tabs in view, to toast; each answers `handled`, or `declined` when it is no longer in view. */
  | { type: 'offer'; interrupt: Interruption }
  | { type: 'declined'; id: string; tab: string };

/** This tab is in view: shown on a screen, focused or not. */
const inView = () => document.visibilityState === 'visible';

class DesktopAlerts {
  permission = $state<AlertPermission>('default');
  /** Toasts in this tab (hold, resume and dismiss are theirs; activate and reveal, below, lead somewhere). */
  readonly toasts = new Toasts();
  /** Whether this tab is the one that shows desktop notifications. */
  leader = $state(false);
  private running = false;
  private usesLocks = false;
  private channel: BroadcastChannel | undefined;
  private lockAbort: AbortController | undefined;
  private releaseLock: (() => void) | undefined;
  private open: OpenTarget | undefined;
  /** Interruption ids this tab's stream brought or an offer gave it, and those some tab showed (with when, to forget them). */
  private seen = new Map<string, number>();
  private handled = new Map<string, number>();
  /** Interruptions a hidden tab took in that no tab has shown yet: the leader decides each once; a tab that becomes the leader, those left. */
  private pending = new Map<string, { interrupt: Interruption; at: number }>();
  /** The ids this tab, as the leader, has decided or is about to. */
  private considered = new Map<string, number>();
  /** Interruption ids this tab toasted. */
  private toasted = new Map<string, number>();
  /** The other tabs now in view, by their id. */
  private othersInView = new Set<string>();
  /** The leader's offers still open: the tabs it offered each to that have neither answered nor gone. */
  private offers = new Map<string, { interrupt: Interruption; waiting: Set<string>; abort: AbortController }>();
  private readonly tab = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  /** Desktop notifications this tab shows, by thread tag. */
  private shown = new Map<string, Notification>();
  /** This tab's interruptions, one after the other: one behind a replay waits while the server's clock is read. */
  private queue: Promise<void> = Promise.resolve();
  private serverTime: { asked: number; now: Promise<number> } | undefined;
  private readonly onVisible = () => {
    if (inView()) this.sync();
    this.announce();
  };
  private readonly onPageHide = () => this.post({ type: 'gone', tab: this.tab });
  private readonly onPageShow = (event: PageTransitionEvent) => {
    if (event.persisted) this.announce();
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
    window.addEventListener('pagehide', this.onPageHide);
    window.addEventListener('pageshow', this.onPageShow);
    if (typeof BroadcastChannel !== 'undefined') {
      this.channel = new BroadcastChannel(CHANNEL);
      this.channel.onmessage = (event: MessageEvent<Message>) => this.receive(event.data);
    }
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
    if (locks) {
      this.usesLocks = true;
      const abort = new AbortController();
      this.lockAbort = abort;
      // This tab's own lock first, then its word to the others: whoever hears it can already see it is there.
      locks
        .request(tabLock(this.tab), { signal: abort.signal }, () => {
          this.announce();
          this.post({ type: 'ask' });
          return new Promise<void>((resolve) => abort.signal.addEventListener('abort', () => resolve()));
        })
        .catch(() => {
          // Aborted by stop().
        });
      // Held until the page goes (or stop): the next tab waiting for it becomes the leader then.
      locks
        .request(LOCK, { signal: abort.signal }, () => {
          this.leader = true;
          // What the last leader left undecided (it went meanwhile).
          for (const { interrupt } of this.pending.values()) this.consider(interrupt);
          return new Promise<void>((resolve) => (this.releaseLock = resolve));
        })
        .catch(() => {
          // Aborted by stop() while waiting: another tab leads.
        });
    } else {
      this.announce();
      this.post({ type: 'ask' });
    }
    return () => this.stop();
  }

  private receive(message: Message | undefined) {
    switch (message?.type) {
      case 'handled':
        this.shownBySome(message.id);
        if (message.toast) this.closeOutdated(message.tag);
        break;
      case 'view':
        if (message.inView) this.othersInView.add(message.tab);
        else this.othersInView.delete(message.tab);
        break;
      case 'gone':
        this.othersInView.delete(message.tab);
        for (const id of [...this.offers.keys()]) this.answered(id, message.tab);
        break;
      case 'ask':
        this.announce();
        break;
      case 'received':
        this.remember(message.interrupt);
        if (this.leads()) this.consider(message.interrupt);
        break;
      case 'offer':
        this.remember(message.interrupt);
        // Toasted here whether this tab's own stream brought it already, brings it later, or never does; out of view, handed back.
        if (this.toasted.has(message.interrupt.id) || inView()) {
          this.seen.set(message.interrupt.id, Date.now());
          this.show(message.interrupt);
        } else {
          this.post({ type: 'declined', id: message.interrupt.id, tab: this.tab });
        }
        break;
      case 'declined':
        this.answered(message.id, message.tab);
        break;
    }
  }

  /** Tells the other tabs whether this one is in view. */
  private announce() {
    this.post({ type: 'view', tab: this.tab, inView: inView() });
  }

  private stop() {
    if (!this.running) return;
    this.running = false;
    this.post({ type: 'gone', tab: this.tab });
    document.removeEventListener('visibilitychange', this.onVisible);
    window.removeEventListener('pagehide', this.onPageHide);
    window.removeEventListener('pageshow', this.onPageShow);
    this.lockAbort?.abort();
    this.releaseLock?.();
    this.releaseLock = undefined;
    this.leader = false;
    this.channel?.close();
    this.channel = undefined;
    this.othersInView.clear();
    for (const id of [...this.offers.keys()]) this.settle(id);
    this.toasts.clear();
  }

  /**
   * An interruption from this tab's stream, in order: a toast in view; hidden, it goes to the leader (this tab, or
   * over the channel). `replayed`: sent while the stream was away, shown only when recent and not shown already.
   */
  handle(interrupt: Interruption, replayed = false): void {
    this.queue = this.queue
      .then(async () => {
        if (replayed && !(await this.recent(interrupt))) return;
        if (this.running) this.take(interrupt, replayed);
      })
      // Reported, and the next one still goes.
      .catch((error: unknown) => reportError(error));
  }

  private take(interrupt: Interruption, replayed: boolean) {
    const now = Date.now();
    this.forget(now);
    if (this.seen.has(interrupt.id)) return;
    this.seen.set(interrupt.id, now);
    // Shown while this tab's stream was away (by a tab whose stream was not).
    if (replayed && this.handled.has(interrupt.id)) return;
    if (inView()) {
      this.show(interrupt);
      return;
    }
    this.remember(interrupt);
    if (this.leads()) this.consider(interrupt);
    else this.post({ type: 'received', interrupt });
  }

  /** Whether a replay was sent at most REMEMBER_MS ago, by the server's clock alone. */
  private async recent(interrupt: Interruption): Promise<boolean> {
    return (await this.serverNow()) - Date.parse(interrupt.at) <= REMEMBER_MS;
  }

  /** The server's time (the `Date` of an answer from it; NaN without one), read once for the replays of one reconnect. */
  private serverNow(): Promise<number> {
    const asked = Date.now();
    if (!this.serverTime || asked - this.serverTime.asked > SERVER_TIME_MS) {
      const now = fetch('/healthz', { cache: 'no-store' }).then(
        (response) => Date.parse(response.headers.get('date') ?? ''),
        () => Number.NaN,
      );
      this.serverTime = { asked, now };
    }
    return this.serverTime.now;
  }

  /** Only the leader shows desktop notifications; without Web Locks, whoever claims it first. */
  private leads(): boolean {
    return this.leader || !this.usesLocks;
  }

  /** Kept until some tab shows it, in case this tab becomes the leader before then. */
  private remember(interrupt: Interruption) {
    if (!this.handled.has(interrupt.id) && !this.pending.has(interrupt.id)) this.pending.set(interrupt.id, { interrupt, at: Date.now() });
  }

  /** The leader decides each interruption once, after a grace in which a tab in view toasting it is heard. */
  private consider(interrupt: Interruption) {
    if (this.considered.has(interrupt.id)) return;
    this.considered.set(interrupt.id, Date.now());
    const delay = GRACE_MS + (this.usesLocks ? 0 : Math.random() * 250);
    setTimeout(() => void this.decide(interrupt), delay);
  }

  /** Some tab (this one or another) showed it: nothing is left to decide or to offer. */
  private shownBySome(id: string) {
    this.handled.set(id, Date.now());
    this.pending.delete(id);
    this.settle(id);
  }

  /** The leader's choice for an interruption no tab has shown: a toast where a tab is in view, else the desktop. */
  private async decide(interrupt: Interruption) {
    const settled = () => this.handled.has(interrupt.id) || this.offers.has(interrupt.id) || !this.running;
    if (settled()) return;
    if (inView()) return this.show(interrupt);
    const inViewNow = await this.anotherInView();
    if (settled()) return;
    if (inViewNow) return this.offer(interrupt);
    if (!(await this.notify(interrupt))) return;
    this.shownBySome(interrupt.id);
    this.post({ type: 'handled', id: interrupt.id, tag: interrupt.tag, toast: false });
  }

  /** Hands an interruption to the tabs in view, and waits for their answers: the first `handled` settles it; when every one has declined or gone, the leader decides again. */
  private offer(interrupt: Interruption) {
    const waiting = new Set(this.othersInView);
    const abort = new AbortController();
    this.offers.set(interrupt.id, { interrupt, waiting, abort });
    this.post({ type: 'offer', interrupt });
    for (const tab of waiting) void this.gone(tab, abort.signal).then((gone) => gone && this.answered(interrupt.id, tab));
  }

  /** A tab offered an interruption declined it or went without answering. */
  private answered(id: string, tab: string) {
    const offer = this.offers.get(id);
    if (!offer?.waiting.delete(tab) || offer.waiting.size > 0) return;
    this.settle(id);
    void this.decide(offer.interrupt);
  }

  private settle(id: string) {
    this.offers.get(id)?.abort.abort();
    this.offers.delete(id);
  }

  /**
   * Whether the tab went, said or not (a crash): its own lock comes free; false once the offer is settled. Without Web
   * Locks there is no telling, so a tab that has not answered within OFFER_MS is taken as gone.
   */
  private async gone(tab: string, signal: AbortSignal): Promise<boolean> {
    try {
      if (this.usesLocks) await navigator.locks.request(tabLock(tab), { signal }, () => undefined);
      else await new Promise((resolve) => setTimeout(resolve, OFFER_MS));
      return !signal.aborted;
    } catch {
      // Settled meanwhile: answered, or this tab stopped.
      return false;
    }
  }

  /** A toast in this tab (in view), once per interruption, and the word to the others. */
  private show(interrupt: Interruption) {
    if (!this.toasted.has(interrupt.id)) {
      this.toasted.set(interrupt.id, Date.now());
      this.toasts.add(interrupt);
      this.closeOutdated(interrupt.tag);
      // The same for the device's notices of the thread: closed once, by the tab that toasts it, not by every tab that hears so.
      closeOnDevice(interrupt.tag);
    }
    this.shownBySome(interrupt.id);
    this.post({ type: 'handled', id: interrupt.id, tag: interrupt.tag, toast: true });
  }

  /** Whether another tab is in view; tabs that went without saying so (a crash: their lock is gone) are forgotten. */
  private async anotherInView(): Promise<boolean> {
    if (this.othersInView.size === 0 || !this.usesLocks) return this.othersInView.size > 0;
    try {
      const { held = [] } = await navigator.locks.query();
      const alive = new Set(held.map((lock) => lock.name));
      for (const tab of this.othersInView) if (!alive.has(tabLock(tab))) this.othersInView.delete(tab);
    } catch {
      // No answer: the tabs are taken at their word.
    }
    return this.othersInView.size > 0;
  }

  /** A thread toasted in a tab in view: its desktop notification from this tab says something no longer true. */
  private closeOutdated(tag: string) {
    this.shown.get(tag)?.close();
    this.shown.delete(tag);
  }

  /** A desktop notification, when allowed (desktop-notice.ts: the device's, else the page's own); whether it is showing. */
  private async notify(interrupt: Interruption): Promise<boolean> {
    this.sync();
    if (this.permission !== 'granted') return false;
    if (await showOnDevice(interrupt)) return true;
    const shown = showOnPage(interrupt);
    if (!shown) return false;
    this.shown.set(interrupt.tag, shown);
    shown.onclose = () => {
      if (this.shown.get(interrupt.tag) === shown) this.shown.delete(interrupt.tag);
    };
    shown.onclick = (event) => {
      event.preventDefault();
      window.focus();
      shown.close();
      this.open?.({ notificationId: interrupt.notificationId, url: null });
    };
    return true;
  }

  /** A click on a toast: the row's page when it has one, else the bell at its row. */
  activate(toast: Toast): void {
    this.toasts.dismiss(toast.id);
    // Only an http(s) page opens (the URL is an upstream's, from a webhook).
    const href = httpUrl(toast.url);
    if (href) window.open(href, '_blank', 'noopener,noreferrer');
    else this.open?.({ notificationId: toast.notificationId, url: null });
  }

  /** The bell at the toast's row. */
  reveal(toast: Toast): void {
    this.toasts.dismiss(toast.id);
    this.open?.({ notificationId: toast.notificationId, url: null });
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
    for (const map of [this.seen, this.handled, this.toasted, this.considered]) {
      if (map.size < 200) continue;
      for (const [id, at] of map) if (now - at > REMEMBER_MS) map.delete(id);
    }
    // Never shown (no permission, say): by now not worth a new leader's while.
    for (const [id, { at }] of this.pending) if (now - at > REMEMBER_MS) this.pending.delete(id);
  }
}

/** This tab's one instance (the bell starts it; the settings read and ask for the permission through it). */
export const desktopAlerts = new DesktopAlerts();
