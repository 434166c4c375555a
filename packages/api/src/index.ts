import { systemClock, type Clock } from '@dash/connectors';
import { memoizeReads, type Store } from '@dash/db';
import { Access, type AccessOptions } from './auth/access.ts';
import type { Context, DemoProvider, Logger } from './context.ts';
import { CredentialsKeyMismatchError, CredentialVault } from './credentials/vault.ts';
import { DataCache } from './data/cache.ts';
import { Connections } from './data/connections.ts';

export { appRouter, createCaller, type AppRouter, type Caller } from './root.ts';
export type { Context, DemoProvider, Logger } from './context.ts';
export { resumeDemo, startDemo } from './router/demo.ts';
export { describeError } from './errors.ts';
export { logFailure } from './trpc.ts';
export { ttl } from './data/ttl.ts';
export { Access, type AccessOptions, type ClientInfo, type EnvPassword, type Identity, type NewSession, type RequestInfo } from './auth/access.ts';
export { ThrottledError } from './auth/throttle.ts';
export { CredentialsKeyMismatchError, CredentialVault, parseCredentialsKey, resolveCredentialsKey } from './credentials/vault.ts';

const KEY_CHECK = 'credentialsKeyCheck';

/**
 * Builds the procedures' context. A sealed marker written with the first key tells, at start, whether
 * the configured key is the one the stored credentials were sealed with.
 */
export async function createContext(options: {
  store: Store;
  credentialsKey: Buffer;
  log: Logger;
  /** How connectors reach upstreams; tests and the demo keep the default (real HTTP). */
  fetch?: typeof fetch;
  clock?: Clock;
  demo?: DemoProvider;
  /** Access control; a local dashboard with no password from the environment when absent. */
  access?: AccessOptions;
}): Promise<Context> {
  const { log } = options;
  const store = memoizeReads(options.store);
  const vault = new CredentialVault(options.credentialsKey);
  const check = await store.meta.get(KEY_CHECK);
  let credentialsKeyMatches = true;
  if (typeof check === 'string') {
    try {
      vault.open(KEY_CHECK, check);
    } catch (error) {
      if (!(error instanceof CredentialsKeyMismatchError)) throw error;
      credentialsKeyMatches = false;
      log.error(error.message);
    }
  } else {
    await store.meta.put(KEY_CHECK, vault.seal(KEY_CHECK, {}));
  }
  const clock = options.clock ?? systemClock;
  const connections = new Connections(store, vault, { clock, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const access = await Access.open(store, log, options.access ?? { mode: 'local' });
  return {
    store,
    vault,
    log,
    credentialsKeyMatches,
    data: { cache: new DataCache(store.cache, clock), connections },
    access,
    ...(options.demo ? { demo: options.demo } : {}),
  };
}
