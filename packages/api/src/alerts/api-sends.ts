import type { Store } from '@dash/db';
import type { Identity } from '../auth/access.ts';
import { RetryLaterError } from '../errors.ts';
import { LeaseQuota } from './lease-quota.ts';

/**
 * POST /api/alerts/send may send at most this many emails an hour per caller (each API token; the owner, signed in or
 * on the open local dashboard, is one caller of its own) and this many in all. A monitoring script that emails on each
 * change of state (down, then up) gets five outages an hour, or a report every six minutes; a runaway loop or a leaked
 * write token gets 10 emails into the owner's inbox an hour instead of one a request, and any number of tokens 30.
 */
export const API_SENDS_PER_CALLER = 10;
export const API_SENDS_PER_INSTALLATION = 30;
export const API_SEND_WINDOW_MS = 3_600_000;

/** The caller an API send is counted for: its token, or the owner. */
const callerOf = (identity: Identity | undefined) =>
  identity?.via === 'token'
    ? { key: `token:${identity.tokenId}`, who: 'per API token' }
    : { key: 'owner', who: 'for the owner (signed in, or the local dashboard)' };

/**
 * The limit of POST /api/alerts/send (health alerts and custom emails alike), for every dashboard process on the
 * database: a turn of the caller's, then one of the installation's, each the store's lease for an hour (LeaseQuota).
 * Refused by the installation's cap, the caller's turn is given back.
 */
export class ApiSends {
  private readonly quota: LeaseQuota;

  constructor(
    leases: Store['leases'],
    private readonly now: () => number,
  ) {
    this.quota = new LeaseQuota(leases, now);
  }

  /** Takes a turn for `identity`'s caller and the installation, or refuses with a 429 saying the limit and when to come back. */
  async take(identity: Identity | undefined): Promise<void> {
    const caller = callerOf(identity);
    const own = await this.quota.take(`alerts-send:${caller.key}`, API_SENDS_PER_CALLER, API_SEND_WINDOW_MS);
    if ('waitMs' in own) throw this.refusal(`At most ${API_SENDS_PER_CALLER} emails an hour ${caller.who} through POST /api/alerts/send`, own.waitMs);
    const all = await this.quota.take('alerts-send:installation', API_SENDS_PER_INSTALLATION, API_SEND_WINDOW_MS);
    if ('waitMs' in all) {
      await own.release();
      throw this.refusal(`At most ${API_SENDS_PER_INSTALLATION} emails an hour in all through POST /api/alerts/send`, all.waitMs);
    }
  }

  private refusal(limit: string, waitMs: number) {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    const at = new Date(this.now() + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return new RetryLaterError(seconds, `${limit}: try again in ${seconds} s (at ${at}).`);
  }
}
