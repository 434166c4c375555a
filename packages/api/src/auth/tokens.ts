import type { TokenCreate, TokenCreated, TokenInfo } from '@dash/contracts';
import type { ApiTokenRow, Store } from '@dash/db';
import type { Logger } from '../logger.ts';
import { newApiToken, parseApiToken, sameSecret, sha256, tokenHint } from './secrets.ts';
import type { FailureThrottle } from './throttle.ts';

/**
 * The API tokens (read or write) scripts sign in with: the check of a bearer value (a bad one is a failed sign-in,
 * throttled as the login), their "last used" time, written now and then, and making, listing and revoking them.
 * Who may manage them is Access's to say (access.ts); this holds what a token is.
 */

const DAY = 86_400_000;
/** How often a token's "last used" is written: not on every request. */
const TOKEN_TOUCH_MS = 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** What the tokens use of Access: the store, the log, the clock, the sign-in throttle, and the "sign-ins ended" signal. */
export interface ApiTokensOptions {
  store: Store;
  log: Logger;
  now: () => number;
  throttle: FailureThrottle;
  /** A token was revoked: live streams ask at once whether their sign-in still holds. */
  ended: () => void;
}

export class ApiTokens {
  private readonly touched = new Map<string, number>();

  constructor(private readonly options: ApiTokensOptions) {}

  /**
   * The API token an `Authorization: Bearer` value carries, when valid and unexpired. It is looked up first
   * (one read by id and a hash): a valid token always passes, whoever else failed from wherever, since its
   * 256 random bits cannot be guessed and a throttle would only let others lock it out. A bad one is a failed
   * sign-in from `ip` (ThrottledError once that address is over its budget). A good token does not clear
   * the address's failures: a read token must not buy more password guesses.
   */
  async check(bearer: string, ip: string | undefined): Promise<ApiTokenRow | undefined> {
    const { store, throttle } = this.options;
    const parsed = parseApiToken(bearer);
    const row = parsed && (await store.auth.tokens.get(parsed.id));
    const valid = row && parsed && sameSecret(row.secretHash, sha256(parsed.secret)) && !this.expired(row);
    if (!valid) {
      await throttle.check(ip);
      await throttle.failed(ip);
      return undefined;
    }
    const now = this.options.now();
    if (now - (this.touched.get(row.id) ?? 0) >= TOKEN_TOUCH_MS) {
      this.touched.set(row.id, now);
      await store.auth.tokens.touch(row.id, iso(now));
    }
    return row;
  }

  /** Whether a token let in earlier is still stored and unexpired (read-only). */
  async stillValid(id: string): Promise<boolean> {
    const row = await this.options.store.auth.tokens.get(id);
    return row !== undefined && !this.expired(row);
  }

  async create(input: TokenCreate): Promise<TokenCreated> {
    const { id, secretHash, token } = newApiToken();
    const hint = tokenHint(id);
    const createdAt = this.options.now();
    const row: ApiTokenRow = {
      id,
      name: input.name,
      secretHash,
      scope: input.scope,
      createdAt: iso(createdAt),
      lastUsedAt: null,
      expiresAt: input.expiresInDays ? iso(createdAt + input.expiresInDays * DAY) : null,
    };
    await this.options.store.auth.tokens.create(row);
    this.options.log.info(`API token "${input.name}" (${hint}, ${input.scope}) created`);
    return { ...this.info(row), token };
  }

  async list(): Promise<TokenInfo[]> {
    return (await this.options.store.auth.tokens.list()).map((row) => this.info(row));
  }

  async revoke(id: string): Promise<boolean> {
    this.touched.delete(id);
    const removed = await this.options.store.auth.tokens.remove(id);
    if (removed) {
      this.options.ended();
      this.options.log.info(`API token ${id} revoked`);
    }
    return removed;
  }

  private expired(row: ApiTokenRow) {
    return row.expiresAt !== null && Date.parse(row.expiresAt) <= this.options.now();
  }

  private info(row: ApiTokenRow): TokenInfo {
    return {
      id: row.id,
      name: row.name,
      hint: tokenHint(row.id),
      scope: row.scope,
      createdAt: row.createdAt,
      lastUsedAt: row.lastUsedAt,
      expiresAt: row.expiresAt,
      expired: this.expired(row),
    };
  }
}
