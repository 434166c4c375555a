import { randomUUID } from 'node:crypto';
import { LimiterBusyError, slidingWindowLimiter, type Clock, type RateLimiter, type Turn } from '@dash/connectors';
import type { Store } from '@dash/db';
import type { Logger } from '../logger.ts';
import type { RelayRefusals } from '../deliveries/relay-refusals.ts';
import type { Inbox } from './inbox.ts';
import { fetchRelayPage, RelayError, type RelayTarget } from './relay-client.ts';

/**
 * The relay admits 20 polls a minute per address; a held long-poll counts once, and not at all when an event
 * woke it (the relay says so and the turn is given back here too). The window is a second longer than the
 * relay's: it stamps polls as they arrive, so two sent just over a minute apart may land just under one.
 */
const POLLS_PER_MINUTE = 20;
const POLL_WINDOW_MS = 61_000;
const PAGE = 500;
const INTERVAL_MS = 15_000;
/** Long enough to see new events at once, short enough to renew the lease in time. */
const WAIT_SECONDS = 20;
const LEASE = 'relay-poller';
const LEASE_MS = 30_000;
const BACKOFF_MS = [15_000, 30_000, 60_000, 120_000, 300_000];

export interface PollerStatus {
  configured: boolean;
  /** `polling`: this process polls; `standby`: another dashboard process holds the poller's lease. */
  state: 'stopped' | 'polling' | 'standby' | 'backing_off';
  /** Whether the relay held the last empty poll open (`wait=`), so events arrive within about a second. */
  longPoll: boolean;
  lastPollAt: string | null;
  lastSuccessAt: string | null;
  lastError: string | null;
  /** Events this process stored from the relay since midnight UTC. */
  eventsToday: number;
  relayTimestamp: number | null;
}

export type PollOutcome = { configured: false } | { configured: true; eventCount: number; relayTimestamp: number };

export interface RelayPollerOptions {
  store: Store;
  inbox: Inbox;
  /** The relay URL and secret as configured now (settings over the environment), or undefined. */
  target: () => Promise<RelayTarget | undefined>;
  log: Logger;
  clock: Clock;
  fetch: typeof fetch;
  /** Milliseconds between polls when the relay does not hold them open. */
  intervalMs?: number;
  /** Reads the relay's refusal counts beside the polls (issue 53). */
  refusals?: RelayRefusals;
}

/**
 * Brings the relay's events into the inbox: `pollNow()` for the explicit call, and a background loop
 * in the dashboard's server process. One process of several on one database polls (a lease it renews
 * on every turn; another takes over within 30 s of its death); an unreachable relay is retried with
 * back-off and logged once per outage; the relay's poll limit is never exceeded.
 */
export class RelayPoller {
  private readonly holder = randomUUID();
  private readonly limiter: RateLimiter;
  private readonly intervalMs: number;
  private running: AbortController | undefined;
  private looping: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | undefined;
  /** The background turn's poll, which `wake()` cuts short (a held long-poll would otherwise keep an old URL for 20 s). */
  private current: AbortController | undefined;
  private turn: Promise<unknown> = Promise.resolve();
  private failures = 0;
  private day = '';
  private readonly state: PollerStatus = {
    configured: false,
    state: 'stopped',
    longPoll: true,
    lastPollAt: null,
    lastSuccessAt: null,
    lastError: null,
    eventsToday: 0,
    relayTimestamp: null,
  };

  constructor(private readonly options: RelayPollerOptions) {
    this.limiter = slidingWindowLimiter({ limit: POLLS_PER_MINUTE, windowMs: POLL_WINDOW_MS }, options.clock);
    this.intervalMs = options.intervalMs ?? INTERVAL_MS;
  }

  status(): PollerStatus {
    return { ...this.state };
  }

  /** Polls now, until the relay has no more; one poll of this process at a time. */
  pollNow(): Promise<PollOutcome> {
    // A long poll the loop holds open would keep this call waiting up to 20 s: end it (the loop starts a new one after).
    this.current?.abort();
    const run = this.turn.then(async () => {
      const target = await this.options.target();
      this.state.configured = target !== undefined;
      if (!target) return { configured: false as const };
      try {
        return (await this.drain(target, 0, undefined, 15_000)).outcome;
      } catch (error) {
        // Settings show why "Poll now" failed too.
        this.state.lastError = error instanceof Error ? error.message : String(error);
        throw error;
      }
    });
    this.turn = run.catch(() => undefined);
    return run;
  }

  /** Starts the background loop (idempotent). */
  start(): void {
    if (this.running) return;
    const controller = new AbortController();
    this.running = controller;
    this.looping = this.loop(controller.signal);
  }

  /** Stops the loop and gives the lease up. */
  async stop(): Promise<void> {
    const controller = this.running;
    this.running = undefined;
    controller?.abort();
    this.wake();
    // Released once the loop is over: a turn that was reading its settings would otherwise take the lease again.
    await this.looping;
    await this.options.store.leases.release(LEASE, this.holder).catch(() => undefined);
  }

  /** The relay settings changed: look at them again now instead of at the next turn. */
  wake(): void {
    this.options.refusals?.reset();
    this.current?.abort();
    this.wakeUp?.();
  }

  private async loop(signal: AbortSignal) {
    while (!signal.aborted) {
      let pauseMs = this.intervalMs;
      try {
        const target = await this.options.target();
        if (signal.aborted) break;
        this.state.configured = target !== undefined;
        if (!target) {
          this.state.state = 'stopped';
          pauseMs = Number.POSITIVE_INFINITY;
        } else if (!(await this.renewLease())) {
          this.state.state = 'standby';
          pauseMs = LEASE_MS / 3;
        } else {
          // The relay's refusal counts, beside the polls: at most once a minute, and without waiting for them (a slow
          // answer there never holds up a poll; it never fails one either).
          void this.options.refusals?.maybeRead(target, signal);
          const started = this.options.clock.now();
          const current = new AbortController();
          this.current = current;
          const run = this.turn.then(() => this.drain(target, WAIT_SECONDS, AbortSignal.any([signal, current.signal]), Number.POSITIVE_INFINITY, true));
          this.turn = run.catch(() => undefined);
          let outcome: PollOutcome;
          try {
            ({ outcome } = await run);
          } catch (error) {
            // Woken by a settings change: not a failure, just a new turn with the new settings.
            if (current.signal.aborted && !signal.aborted) continue;
            throw error;
          } finally {
            this.current = undefined;
          }
          this.recovered();
          this.state.state = 'polling';
          // A relay that held the poll open already waited for news: ask again at once. One that
          // answered an empty page at once does not hold polls (or is stopping): wait the interval.
          const heldOpen = outcome.configured && (outcome.eventCount > 0 || this.options.clock.now() - started >= (WAIT_SECONDS * 1000) / 2);
          this.state.longPoll = heldOpen;
          pauseMs = heldOpen ? 0 : this.intervalMs;
        }
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof RelayError && error.reason === 'rate_limited') {
          // Not an outage: the relay counted differently. Its Retry-After holds the next turn back, no longer.
          this.limiter.pauseFor(error.retryAfterMs ?? 60_000);
          this.state.lastError = error.message;
          pauseMs = 0;
        } else {
          pauseMs = this.failed(error);
        }
      }
      await this.pause(pauseMs, signal);
    }
    this.state.state = 'stopped';
  }

  /**
   * Reads pages until the relay has no more, each stored with its cursor in one transaction; the
   * first may be held open by the relay for `waitSeconds`. Every page takes a turn within the relay's
   * poll limit, waiting at most `maxWaitMs` for it.
   */
  private async drain(
    target: RelayTarget,
    waitSeconds: number,
    signal: AbortSignal | undefined,
    maxWaitMs: number,
    leased = false,
  ): Promise<{ outcome: PollOutcome }> {
    const { store, inbox, clock } = this.options;
    let since = (await store.notifications.cursor(target.url)) ?? 0;
    let eventCount = 0;
    let wait = waitSeconds;
    for (let first = true; ; first = false) {
      // A long drain keeps the lease: another process would poll the same pages (harmless, deduplicated, but wasted).
      if (leased && !first && !(await this.renewLease())) return { outcome: { configured: true, eventCount, relayTimestamp: since } };
      let turn: Turn;
      try {
        turn = await this.limiter.take(signal, maxWaitMs);
      } catch (error) {
        if (error instanceof LimiterBusyError) throw new RelayError('rate_limited', `The relay allows ${POLLS_PER_MINUTE} polls a minute; the next is free in ${Math.ceil(error.waitMs / 1000)} s`, error.waitMs);
        throw error;
      }
      this.state.lastPollAt = new Date(clock.now()).toISOString();
      const answer = await fetchRelayPage(target, { since, limit: PAGE, waitSeconds: wait, fetch: this.options.fetch, ...(signal ? { signal } : {}) });
      if (!answer.counted) this.limiter.refund(turn);
      const { stored } = await inbox.ingest(answer.events, { relayUrl: target.url, since: answer.timestamp });
      this.countToday(stored);
      eventCount += answer.events.length;
      since = answer.timestamp;
      this.state.relayTimestamp = answer.timestamp;
      this.state.lastSuccessAt = new Date(clock.now()).toISOString();
      this.state.lastError = null;
      if (answer.events.length < PAGE) return { outcome: { configured: true, eventCount, relayTimestamp: answer.timestamp } };
      wait = 0;
    }
  }

  private renewLease(): Promise<boolean> {
    return this.options.store.leases.acquire(LEASE, this.holder, LEASE_MS, new Date(this.options.clock.now()).toISOString());
  }

  private countToday(stored: number) {
    const today = new Date(this.options.clock.now()).toISOString().slice(0, 10);
    if (today !== this.day) {
      this.day = today;
      this.state.eventsToday = 0;
    }
    this.state.eventsToday += stored;
  }

  /** One log line when an outage begins; back-off grows to 5 minutes. */
  private failed(error: unknown): number {
    const message = error instanceof Error ? error.message : String(error);
    this.state.lastError = message;
    this.state.state = 'backing_off';
    if (this.failures === 0) this.options.log.warn(`relay poll failed: ${message}; retrying quietly with back-off`);
    this.failures++;
    const backoff = BACKOFF_MS[Math.min(this.failures - 1, BACKOFF_MS.length - 1)] ?? INTERVAL_MS;
    return Math.max(backoff, error instanceof RelayError ? (error.retryAfterMs ?? 0) : 0);
  }

  private recovered() {
    if (this.failures > 0) this.options.log.info(`relay polled again after ${this.failures} failed attempt(s)`);
    this.failures = 0;
  }

  /** Sleeps, cut short by `wake()` (settings changed) or by stopping. */
  private async pause(ms: number, signal: AbortSignal) {
    if (ms <= 0 || signal.aborted) return;
    const woken = new AbortController();
    this.wakeUp = () => woken.abort();
    try {
      if (Number.isFinite(ms)) await this.options.clock.sleep(ms, AbortSignal.any([signal, woken.signal]));
      else await new Promise<void>((resolve) => AbortSignal.any([signal, woken.signal]).addEventListener('abort', () => resolve(), { once: true }));
    } catch {
      // Woken or stopped: either way, the loop looks again.
    } finally {
      this.wakeUp = undefined;
    }
  }
}
