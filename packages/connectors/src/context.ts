import type { Clock } from './clock.ts';
import type { RateLimiter } from './limiter.ts';

export { systemClock, type Clock } from './clock.ts';

/**
 * Everything a connector may use, handed in by the caller: it never reads env, never picks its own
 * clock, and shares its service's rate limiter with every other call on the same account.
 */
export interface ConnectorContext {
  /** The stored credential's values, in clear, for this call only. */
  credentials: Readonly<Record<string, string>>;
  /** The service's API root without a trailing slash: the credential's `baseUrl` or the real one. */
  baseUrl: string;
  fetch: typeof fetch;
  clock: Clock;
  limiter: RateLimiter;
  signal?: AbortSignal;
  /** Per attempt; 15 s when absent. */
  timeoutMs?: number;
  /**
   * How long a request may wait for its turn on the rate limiter: MAX_LIMITER_WAIT_MS (a person is waiting) when
   * absent; longer for work nobody waits on (a backup), which would rather wait than fail.
   */
  limiterWaitMs?: number;
  /** Where an OAuth refresh keeps what it learned; absent for values not stored (a credentials test, an import's proof). */
  tokens?: TokenKeeper;
}

/** The stored credential's side of an OAuth refresh (the API's Connections writes it). */
export interface TokenKeeper {
  /** Merges a refresh's new values (access token, expiry, a rotated refresh token, scopes) into the stored credential. */
  save(values: Record<string, string>): Promise<void>;
  /** The provider refused `refreshToken` for good (invalid_grant): the connection needs a reconnect, unless it was replaced meanwhile. */
  refused(reason: string, refreshToken: string): Promise<void>;
}
