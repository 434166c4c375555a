import type { EventNotices, EventWatch, WakeReason } from './types.ts';

/** How a store follows one events key: on Redis, SUBSCRIBE and UNSUBSCRIBE of its channel. */
export interface Subscriptions {
  subscribe(eventsKey: string): Promise<void>;
  unsubscribe(eventsKey: string): Promise<void>;
}

class Watch implements EventWatch {
  /** A notice arrived while nobody was waiting for one: the next `next()` returns at once. */
  #pending = false;
  #wake: ((reason: WakeReason) => void) | undefined;
  #stopped = false;

  constructor(
    private readonly board: { ended: boolean; remove(watch: Watch): void },
    readonly eventsKey: string,
  ) {}

  get ended(): boolean {
    return this.board.ended;
  }

  notify(reason: 'stored' | 'ended') {
    if (this.#wake) this.#wake(reason);
    else if (reason === 'stored') this.#pending = true;
  }

  next(ms: number, signal?: AbortSignal): Promise<WakeReason> {
    if (this.board.ended) return Promise.resolve('ended');
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve('stored');
    }
    if (signal?.aborted) return Promise.resolve('aborted');
    if (this.#wake) return Promise.reject(new Error('A watch waits for one notice at a time'));
    return new Promise((resolve) => {
      const finish = (reason: WakeReason) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#wake = undefined;
        resolve(reason);
      };
      const onAbort = () => finish('aborted');
      const timer = setTimeout(finish, Math.max(0, ms), 'timeout');
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#wake = finish;
    });
  }

  stop() {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#wake?.('ended');
    this.board.remove(this);
  }
}

/**
 * The watches of one process, by events key. With `subscriptions`, a key is subscribed while it has a
 * watch and unsubscribed when its last one stops; one change at a time per key, each re-checking what
 * is wanted when the last finished, so a watch that arrives while the key is being unsubscribed still
 * gets a live subscription before `watch()` resolves. Without, notices come only from `notify`.
 */
export function noticeBoard(subscriptions?: Subscriptions) {
  const watches = new Map<string, Set<Watch>>();
  const subscribed = new Set<string>();
  const syncing = new Map<string, Promise<void>>();
  const board = {
    ended: false,
    remove(watch: Watch) {
      const set = watches.get(watch.eventsKey);
      if (!set?.delete(watch)) return;
      if (set.size > 0) return;
      watches.delete(watch.eventsKey);
      // Nobody waits on the outcome; a failure leaves a subscription that the next reconnect or close clears.
      if (subscriptions && !board.ended) sync(watch.eventsKey).catch(() => {});
    },
  };

  function sync(eventsKey: string): Promise<void> {
    const running = syncing.get(eventsKey);
    if (running) return running;
    // Begun a microtask later, so it is in `syncing` before it first looks; it leaves `syncing` in the
    // same step as it finds nothing left to do (or fails), so nobody joins a run that has stopped looking.
    const run = Promise.resolve().then(async () => {
      try {
        for (;;) {
          const wanted = !board.ended && watches.has(eventsKey);
          if (wanted === subscribed.has(eventsKey)) {
            syncing.delete(eventsKey);
            return;
          }
          if (wanted) {
            await subscriptions!.subscribe(eventsKey);
            subscribed.add(eventsKey);
          } else {
            subscribed.delete(eventsKey);
            await subscriptions!.unsubscribe(eventsKey);
          }
        }
      } catch (error) {
        syncing.delete(eventsKey);
        throw error;
      }
    });
    syncing.set(eventsKey, run);
    return run;
  }

  const notices: EventNotices = {
    async watch(eventsKey) {
      const watch = new Watch(board, eventsKey);
      if (board.ended) return watch;
      let set = watches.get(eventsKey);
      if (!set) watches.set(eventsKey, (set = new Set()));
      set.add(watch);
      if (subscriptions) {
        try {
          await sync(eventsKey);
        } catch (error) {
          watch.stop();
          // Closing destroys the subscriber under a pending SUBSCRIBE: that watch has simply ended.
          if (board.ended) return watch;
          throw error;
        }
      }
      return watch;
    },
    watching(eventsKey) {
      if (eventsKey !== undefined) return watches.get(eventsKey)?.size ?? 0;
      let count = 0;
      for (const set of watches.values()) count += set.size;
      return count;
    },
    end() {
      board.ended = true;
      for (const set of watches.values()) for (const watch of set) watch.notify('ended');
    },
  };

  return {
    notices,
    /** Events were stored under `eventsKey`: wakes its watches. */
    notify(eventsKey: string) {
      for (const watch of watches.get(eventsKey) ?? []) watch.notify('stored');
    },
    /** Wakes every watch, to read again: after a reconnect, when notices may have been lost. */
    notifyAll() {
      for (const set of watches.values()) for (const watch of set) watch.notify('stored');
    },
  };
}
