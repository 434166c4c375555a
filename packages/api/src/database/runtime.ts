import type { Store } from '@dash/db';
import type { Logger } from '../logger.ts';
import { DatabaseManager, type DatabaseManagerOptions } from './manager.ts';

/** What the database procedures reach: the manager, and a fresh context over the same store (after an import). */
export interface DatabaseHandle {
  manager: DatabaseManager;
  reload(): Promise<void>;
}

interface Stoppable {
  stop(): Promise<void>;
}

/** What the runtime does with a context it retires: stops its jobs and lets the inbox finish its writes (and logs). */
export interface ServedContext {
  notifications: { inbox: { close(): void; idle(): Promise<void> }; poller: Stoppable; emails: Stoppable; pushes: Stoppable; chats: Stoppable };
  briefing: Stoppable;
  briefingCourier: Stoppable;
  history: Stoppable;
  metricAlerts: Stoppable;
  backup: Stoppable;
  log: Logger;
}

export interface RuntimeOptions<C extends ServedContext> {
  database: DatabaseManagerOptions;
  /** Builds the context over a store (the app's `createContext` with its options), `database` handed in. */
  build: (store: Store, database: DatabaseHandle) => Promise<C>;
  /** How long a retired context's store stays open for the requests still using it. */
  graceMs?: number;
}

/**
 * The dashboard's one current context. A switch to another database, or an import, replaces it with a new context
 * built over the store (so every cache, connection, scheduler and live stream starts from what that store holds,
 * exactly as after a restart, without one); requests already running finish on the old one, whose live streams end
 * (browsers reconnect to the new one), whose poller and scheduler stop, and whose store closes after `graceMs`.
 */
export class Runtime<C extends ServedContext> {
  #context: C;
  #store: Store;
  private readonly retiring = new Set<Promise<void>>();

  private constructor(
    private readonly options: RuntimeOptions<C>,
    private readonly handle: DatabaseHandle,
    context: C,
    store: Store,
  ) {
    this.#context = context;
    this.#store = store;
  }

  static async start<C extends ServedContext>(options: RuntimeOptions<C>): Promise<Runtime<C>> {
    const { manager, store } = await DatabaseManager.start(options.database);
    let runtime: Runtime<C> | undefined;
    const handle: DatabaseHandle = {
      manager,
      reload: async () => runtime?.replace(runtime.#store),
    };
    try {
      runtime = new Runtime(options, handle, await options.build(store, handle), store);
    } catch (error) {
      await store.close();
      throw error;
    }
    const started = runtime;
    manager.onSwitch((next) => started.replace(next));
    return runtime;
  }

  get context(): C {
    return this.#context;
  }

  get store(): Store {
    return this.#store;
  }

  /** Serves from `store` (the current one again after an import) through a new context. */
  async replace(store: Store): Promise<void> {
    const old = { context: this.#context, store: this.#store };
    this.#context = await this.options.build(store, this.handle);
    this.#store = store;
    const retired = this.retire(old.context, old.store === store ? undefined : old.store);
    this.retiring.add(retired);
    void retired.finally(() => this.retiring.delete(retired));
  }

  private async retire(context: C, store: Store | undefined): Promise<void> {
    context.notifications.inbox.close();
    await Promise.all([context.notifications.poller.stop(), context.notifications.emails.stop(), context.notifications.pushes.stop(), context.notifications.chats.stop(), context.briefing.stop(), context.briefingCourier.stop(), context.history.stop(), context.metricAlerts.stop(), context.backup.stop()]);
    await context.notifications.inbox.idle();
    if (!store) return;
    await new Promise((resolve) => setTimeout(resolve, this.options.graceMs ?? 5_000).unref());
    await store.close().catch((error: unknown) => context.log.warn(`closing the previous database failed: ${(error as Error).message}`));
  }

  /** Stops the current context and closes its store (and waits for retired ones). */
  async close(): Promise<void> {
    const { inbox, poller, emails, pushes, chats } = this.#context.notifications;
    inbox.close();
    await Promise.all([poller.stop(), emails.stop(), pushes.stop(), chats.stop(), this.#context.briefing.stop(), this.#context.briefingCourier.stop(), this.#context.history.stop(), this.#context.metricAlerts.stop(), this.#context.backup.stop()]);
    await inbox.idle();
    await Promise.all(this.retiring);
    await this.#store.close();
  }
}
