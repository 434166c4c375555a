import { services, type ServiceName } from '@dash/contracts';
import {
  connectorFor,
  defaultGuardedFetch,
  sharedWindowLimiter,
  slidingWindowLimiter,
  unlimited,
  type Clock,
  type ConnectorContext,
  type RateLimit,
  type RateLimiter,
  type ServiceConnector,
  type TokenKeeper,
} from '@dash/connectors';
import type { Store } from '@dash/db';
import type { CredentialVault } from '../credentials/vault.ts';
import { memoryCoordination, type Coordination } from './shared.ts';

/** No credentials under the key the integration names: the user has not connected the service yet. */
export class MissingCredentialsError extends Error {
  constructor(
    readonly service: ServiceName,
    readonly key: string,
  ) {
    super(`Connect ${services[service].label} in settings: no credentials are stored under "${key}"`);
    this.name = 'MissingCredentialsError';
  }
}

export interface ConnectionOptions {
  /** How connectors reach upstreams; by default a fetch that refuses link-local and cloud-metadata addresses. */
  fetch?: typeof fetch;
  clock: Clock;
  /** Each service's published limit unless one is given here: a test or benchmark that shortens time in proportion. */
  rateLimits?: Partial<Record<ServiceName, RateLimit>> | undefined;
  /** How long a call waits for its turn on a limiter; see ConnectorContext.limiterWaitMs. */
  limiterWaitMs?: number;
  /** Where the limiters' windows are kept when several processes share them; this process's memory when absent. */
  coordination?: Coordination;
}

/**
 * Builds connector contexts from stored credentials. Limiters live here, one per credential key, so
 * every route, project and credential test on one account shares its upstream's limit (with every other
 * dashboard process too, when `coordination` keeps the windows in the database or Redis).
 */
export class Connections {
  constructor(
    private readonly store: Store,
    private readonly vault: CredentialVault,
    private readonly options: ConnectionOptions,
    private readonly limiters = new Map<string, RateLimiter>(),
  ) {}

  /** The same accounts and limiters for work nobody waits on (a backup): a call waits up to `limiterWaitMs` for its turn. */
  patient(limiterWaitMs: number): Connections {
    return new Connections(this.store, this.vault, { ...this.options, limiterWaitMs }, this.limiters);
  }

  get clock(): Clock {
    return this.options.clock;
  }

  limiterFor(connector: ServiceConnector, key: string): RateLimiter {
    let limiter = this.limiters.get(key);
    if (!limiter) {
      const rateLimit = this.options.rateLimits?.[connector.service] ?? connector.rateLimit;
      // Shared when other processes may call the same account: their calls count against the same published limit.
      const shared = rateLimit && (this.options.coordination ?? memoryCoordination).window(key, rateLimit);
      limiter = shared ? sharedWindowLimiter(shared, this.clock) : rateLimit ? slidingWindowLimiter(rateLimit, this.clock) : unlimited(this.clock);
      this.limiters.set(key, limiter);
    }
    return limiter;
  }

  /** The values stored under `key`, opened; undefined when none are. */
  async stored(key: string): Promise<Record<string, string> | undefined> {
    const sealed = await this.store.credentials.getSealed(key);
    return sealed === undefined ? undefined : this.vault.open(key, sealed);
  }

  /** Seals `values` and stores them under `key`, replacing what was there. */
  async save(key: string, values: Record<string, string>): Promise<void> {
    await this.store.credentials.putSealed(key, this.vault.seal(key, values));
  }

  /**
   * Where an OAuth refresh on the stored credential `key` writes: new tokens merged in (a standing "needs reconnect"
   * cleared), or the mark that the provider refused the refresh token, unless another refresh replaced it meanwhile.
   */
  private keeper(key: string): TokenKeeper {
    const change = async (next: (current: Record<string, string>) => Record<string, string> | undefined) => {
      const current = await this.stored(key);
      // Removed meanwhile: nothing to update.
      const values = current && next(current);
      if (values) await this.save(key, values);
    };
    return {
      save: (values) =>
        change((current) => {
          const { reconnect: _cleared, ...rest } = { ...current, ...values };
          return rest;
        }),
      refused: (reason, refreshToken) => change((current) => (current.refreshToken === refreshToken ? { ...current, reconnect: reason } : undefined)),
    };
  }

  /** A context over the given values (a credentials test) or the stored ones under `key`. */
  async context(
    service: ServiceName,
    key: string,
    options: { values?: Record<string, string>; baseUrl?: string; signal?: AbortSignal | undefined } = {},
  ): Promise<ConnectorContext> {
    const connector = connectorFor(service);
    let values = options.values;
    if (!values) {
      values = await this.stored(key);
      if (!values) throw new MissingCredentialsError(service, key);
    }
    return {
      credentials: values,
      baseUrl: (options.baseUrl ?? values.baseUrl ?? connector.defaultBaseUrl).replace(/\/+$/, ''),
      fetch: this.options.fetch ?? defaultGuardedFetch,
      clock: this.clock,
      limiter: this.limiterFor(connector, key),
      ...(options.signal ? { signal: options.signal } : {}),
      // Only stored values are worth keeping a refresh's tokens for.
      ...(options.values ? {} : { tokens: this.keeper(key) }),
      ...(this.options.limiterWaitMs === undefined ? {} : { limiterWaitMs: this.options.limiterWaitMs }),
    };
  }
}
