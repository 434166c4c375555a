import type { Sandbox, SandboxServiceName } from '@dash/sandbox';
import { sandboxTokens } from '@dash/sandbox';
import type { Clock, ConnectorContext } from './context.ts';
import { slidingWindowLimiter, unlimited, type RateLimit } from './limiter.ts';

/**
 * A clock for tests: sleeping moves time forward at once, and every sleep is recorded, so back-off
 * and rate limiting are asserted without waiting for them.
 */
export function testClock(start = Date.now()): Clock & { slept: number[]; advance(ms: number): void } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    advance(ms) {
      now += ms;
    },
    sleep(ms, signal) {
      signal?.throwIfAborted();
      slept.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

/** A context whose calls go to one fake upstream of the sandbox with its demo token (or the given values). */
export function sandboxContext(
  sandbox: Sandbox,
  service: SandboxServiceName,
  options: { credentials?: Record<string, string>; clock?: Clock; rateLimit?: RateLimit; timeoutMs?: number } = {},
): ConnectorContext {
  const clock = options.clock ?? testClock();
  // Services signed another way (App Store Connect's keys, Google's OAuth) pass their credentials.
  const token: string = (sandboxTokens as Record<string, string>)[service] ?? '';
  return {
    credentials: options.credentials ?? { apiToken: token, apiKey: token, secretKey: token, token, authToken: token, personalToken: token },
    baseUrl: sandbox.services[service].baseUrl,
    fetch: globalThis.fetch,
    clock,
    limiter: options.rateLimit ? slidingWindowLimiter(options.rateLimit, clock) : unlimited(clock),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  };
}

/** A context whose calls go to a server that answers only from the provider's description (`useDescribedUpstream`). */
export function describedContext(upstream: { baseUrl: string }, credentials: Record<string, string>, now?: number): ConnectorContext {
  const clock = testClock(now);
  return { credentials, baseUrl: upstream.baseUrl, fetch: globalThis.fetch, clock, limiter: unlimited(clock) };
}

/** The UTC day (`YYYY-MM-DD`) `daysAgo` days before `now`; a negative count is a day ahead. */
export const dayBefore = (now: number, daysAgo: number): string => new Date(now - daysAgo * 86_400_000).toISOString().slice(0, 10);
