import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isLoopbackHost, type AccessMode, type AuthStatus, type SessionInfo, type TokenCreate, type TokenCreated, type TokenInfo, type TokenScope } from '@dash/contracts';
import type { ApiTokenRow, SessionRow, Store } from '@dash/db';
import type { Logger } from '../logger.ts';
import { fail } from '../errors.ts';
import { endpointRef } from '../push/adapter.ts';
import { PasswordHasher } from './passwords.ts';
import { newSessionToken, newSetupToken, parseSessionToken, sameSecret, sha256 } from './secrets.ts';
import { FailureThrottle } from './throttle.ts';
import { ApiTokens } from './tokens.ts';

/**
 * Who may open the dashboard (the Access class below). Over 400 lines on purpose: the password, the first-run setup
 * and the sessions share one state (the owner's password hash and its memo, the setup token, the throttle, the
 * "sign-ins ended" listeners), each changing what the others read; apart, they would hand that state to each other.
 * The API tokens, which need only the throttle and that signal, are tokens.ts.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Grafana's lifetimes: a session ends after 7 idle days, and after 30 days whatever happens. */
export const SESSION_IDLE_MS = 7 * DAY;
export const SESSION_MAX_MS = 30 * DAY;
/** How often a session's "last seen" is written: not on every request. */
const SESSION_TOUCH_MS = HOUR;
/** How long the owner's password hash is trusted before it is read again (a shell reset shows within it). */
const OWNER_MEMO_MS = 2_000;
const ENV_PASSWORD_META = 'authEnvPassword';

/** A person (or their script) the guards let in: how they are signed in. */
export type UserIdentity =
  | { via: 'open'; scope: 'write' }
  | { via: 'session'; scope: 'write'; sessionId: string }
  | { via: 'token'; scope: TokenScope; tokenId: string };

/** Who a request is, once the guards let it in: a user, or a cron holding BACKUP_SECRET (POST /api/backup only). */
export type Identity = UserIdentity | { via: 'backup'; scope: 'write' };

/** Where a request comes from. */
export interface ClientInfo {
  /** The client's address as the server sees it (or as a configured proxy says). */
  ip: string | undefined;
  userAgent: string | undefined;
}

/** What the server knows of the request that calls a procedure; no identity on the sign-in pages. */
export interface RequestInfo extends ClientInfo {
  identity: Identity | undefined;
}

/** A password from the environment; it wins over one set in the dashboard, on every start. */
export type EnvPassword =
  | { source: 'DASHBOARD_PASSWORD_FILE'; password: string }
  | { source: 'DASHBOARD_PASSWORD_HASH'; hash: string };

export interface AccessOptions {
  mode: AccessMode;
  /** The public origin (`ORIGIN`); in local mode, the loopback address the server listens on. */
  origin?: string | undefined;
  envPassword?: EnvPassword | undefined;
  /** Where the first-run setup token is written (owner-only), beside the generated credentials key. */
  dataDir?: string | undefined;
  now?: () => number;
}

/** A new browser session: the cookie's value and how long it may live. */
export interface NewSession {
  token: string;
  maxAgeSeconds: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Who may open the dashboard: the owner's password (from the environment or set in the dashboard),
 * browser sessions and API tokens, the first-run setup on a remote dashboard, and the throttle on
 * failed sign-ins. The request guards ask it who a request is; the auth procedures manage it. What an API token
 * is (its check, its last use, making and revoking it) is tokens.ts.
 */
export class Access {
  readonly hasher = new PasswordHasher(2);
  readonly throttle = new FailureThrottle();
  private readonly now: () => number;
  private envHash: string | undefined;
  private ownerMemo: { at: number; hash: Promise<string | undefined> } | undefined;
  private setupToken: string | undefined;
  private readonly apiTokens: ApiTokens;
  private readonly endedListeners = new Set<() => void>();

  private constructor(
    private readonly store: Store,
    private readonly log: Logger,
    readonly options: AccessOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.apiTokens = new ApiTokens({ store, log, now: this.now, throttle: this.throttle, ended: () => this.signInsEnded() });
  }

  /**
   * Opens access control over the store. A password from the environment is adopted here; when it
   * differs from the one adopted on the last start, every session ends (a rotated password must not
   * leave the old sign-ins open).
   */
  static async open(store: Store, log: Logger, options: AccessOptions): Promise<Access> {
    const access = new Access(store, log, options);
    await access.adoptEnvPassword();
    await store.auth.sessions.removeExpired(iso(access.now() - SESSION_IDLE_MS), iso(access.now() - SESSION_MAX_MS));
    await access.announceSetup();
    return access;
  }

  private async adoptEnvPassword() {
    const env = this.options.envPassword;
    if (!env) return;
    const adopted = await this.store.meta.get(ENV_PASSWORD_META);
    const previous = typeof adopted === 'string' ? adopted : undefined;
    if (env.source === 'DASHBOARD_PASSWORD_HASH') {
      this.envHash = env.hash;
    } else if (previous && (await this.hasher.verify(previous, env.password))) {
      this.envHash = previous;
    } else {
      this.envHash = await this.hasher.hash(env.password);
    }
    if (previous !== this.envHash) {
      await this.store.meta.put(ENV_PASSWORD_META, this.envHash);
      const ended = await this.store.auth.sessions.removeAll();
      if (previous && ended > 0) this.log.info(`password from ${env.source} changed: ${ended} session(s) ended`);
    }
  }

  /** The owner's password hash: the environment's, else the stored one; read at most every 2 s. */
  private passwordHash(): Promise<string | undefined> {
    if (this.envHash) return Promise.resolve(this.envHash);
    if (!this.ownerMemo || this.now() - this.ownerMemo.at >= OWNER_MEMO_MS) {
      const hash = this.store.auth.owner().then((owner) => owner?.passwordHash);
      this.ownerMemo = { at: this.now(), hash };
      hash.catch(() => (this.ownerMemo = undefined));
    }
    return this.ownerMemo.hash;
  }

  private forgetOwner() {
    this.ownerMemo = undefined;
  }

  /** Every request must be signed in: always on a remote dashboard, once a password is set on a local one. */
  async required(): Promise<boolean> {
    return this.options.mode === 'remote' || (await this.passwordHash()) !== undefined;
  }

  /** A remote dashboard with no password yet: only the printed setup link opens it. */
  async setupRequired(): Promise<boolean> {
    if (this.options.mode !== 'remote' || (await this.passwordHash()) !== undefined) return false;
    await this.announceSetup();
    return true;
  }

  /** Prints the one-time setup link (and writes the token owner-only into the data directory) when setup is needed. */
  private async announceSetup() {
    if (this.options.mode !== 'remote' || this.setupToken || (await this.passwordHash()) !== undefined) return;
    this.setupToken = newSetupToken();
    const file = this.setupTokenFile();
    if (file) {
      writeFileSync(file, `${this.setupToken}\n`, { mode: 0o600 });
      chmodSync(file, 0o600);
    }
    const origin = this.options.origin ?? '';
    this.log.warn(
      `No password is set. Open ${origin}/setup?token=${this.setupToken} to choose one; only this link can.` +
        (file ? ` (The token is also in ${file}.)` : ''),
    );
  }

  private setupTokenFile() {
    return this.options.dataDir ? join(this.options.dataDir, 'setup-token') : undefined;
  }

  /**
   * Whether `token` is the current setup token (constant time). The right one always passes (256 random bits:
   * no throttle is needed to keep it from being guessed); a wrong one is a failed sign-in from `ip`, refused
   * with ThrottledError once that address is over its budget.
   */
  async checkSetupToken(token: string, ip: string | undefined): Promise<boolean> {
    if (this.setupToken !== undefined && sameSecret(token, this.setupToken)) return true;
    await this.throttle.check(ip);
    await this.throttle.failed(ip);
    return false;
  }

  /**
   * First-run setup: the first caller with the setup token whose password is stored wins; every other
   * one (concurrent or later) gets a conflict. Signs the winner in.
   */
  async setup(token: string, password: string, request: ClientInfo): Promise<NewSession> {
    const alreadySet = () => fail('CONFLICT', 'The password is already set; sign in instead.');
    const ownerNow = async () => {
      this.forgetOwner();
      return (await this.passwordHash()) !== undefined;
    };
    if (this.envHash || this.options.mode !== 'remote' || (await ownerNow())) throw alreadySet();
    if (!(await this.checkSetupToken(token, request.ip))) {
      // A setup that raced the winner finds the token spent: it lost the race, it did not forge a link.
      if (await ownerNow()) throw alreadySet();
      throw fail('FORBIDDEN', 'This setup link is not valid (any more). Use the newest link in the server log.');
    }
    const created = await this.store.auth.createOwner(await this.hasher.hash(password));
    this.forgetOwner();
    if (!created) throw alreadySet();
    this.setupToken = undefined;
    this.signInsEnded();
    const file = this.setupTokenFile();
    if (file) rmSync(file, { force: true });
    this.log.info('first-run setup done: the password is set');
    return this.startSession(request);
  }

  /**
   * Signs in with the password; throttled per client address (and only by that address's failures), even
   * when the password is right: a password may be guessable, so an attempt takes its point before it is checked.
   */
  async login(password: string, request: ClientInfo): Promise<NewSession> {
    const address = request.ip;
    await this.throttle.attempt(address);
    const hash = await this.passwordHash();
    if (hash === undefined) throw fail('BAD_REQUEST', 'No password is set yet.');
    if (!(await this.hasher.verify(hash, password))) throw fail('BAD_REQUEST', 'That password is not right.');
    await this.throttle.succeeded(address);
    if (!this.envHash && this.hasher.needsRehash(hash)) {
      await this.store.auth.changePassword(await this.hasher.hash(password), undefined);
      this.forgetOwner();
      this.signInsEnded();
    }
    return this.startSession(request);
  }

  private async startSession(request: ClientInfo): Promise<NewSession> {
    const { id, secretHash, token } = newSessionToken();
    const at = iso(this.now());
    await this.store.auth.sessions.create({
      id,
      secretHash,
      createdAt: at,
      lastSeenAt: at,
      userAgent: request.userAgent?.slice(0, 300) ?? null,
      ip: request.ip ?? null,
    });
    return { token, maxAgeSeconds: SESSION_IDLE_MS / 1000 };
  }

  /**
   * The session a cookie names, when it is valid and within its idle and absolute lifetimes. `renew`
   * is set when its last-seen time was just moved on, so the cookie's own lifetime should be too.
   */
  async session(cookie: string): Promise<{ sessionId: string; renew?: NewSession } | undefined> {
    const parsed = parseSessionToken(cookie);
    if (!parsed) return undefined;
    const row = await this.store.auth.sessions.get(parsed.id);
    if (!row || !sameSecret(row.secretHash, sha256(parsed.secret))) return undefined;
    const now = this.now();
    const created = Date.parse(row.createdAt);
    const seen = Date.parse(row.lastSeenAt);
    if (now - seen > SESSION_IDLE_MS || now - created > SESSION_MAX_MS) {
      await this.store.auth.sessions.remove(row.id);
      return undefined;
    }
    if (now - seen < SESSION_TOUCH_MS) return { sessionId: row.id };
    await this.store.auth.sessions.touch(row.id, iso(now));
    const left = Math.min(SESSION_IDLE_MS, created + SESSION_MAX_MS - now);
    return { sessionId: row.id, renew: { token: cookie, maxAgeSeconds: Math.floor(left / 1000) } };
  }

  /**
   * Whether a sign-in let in earlier still holds: its session is stored and within its lifetimes, its token
   * is neither revoked nor expired, the open local dashboard still has no password. Read-only (it moves no
   * last-seen time) and cheap: every live stream asks it every 2 s, so a sign-out in another process shows.
   */
  async stillValid(identity: Identity): Promise<boolean> {
    switch (identity.via) {
      case 'session': {
        const row = await this.store.auth.sessions.get(identity.sessionId);
        const now = this.now();
        return row !== undefined && now - Date.parse(row.lastSeenAt) <= SESSION_IDLE_MS && now - Date.parse(row.createdAt) <= SESSION_MAX_MS;
      }
      case 'token':
        return this.apiTokens.stillValid(identity.tokenId);
      case 'open':
        return !(await this.required());
      case 'backup':
        return true;
    }
  }

  /**
   * Calls `listener` each time this process ends sign-ins (a sign-out, sessions ended, a password set or
   * changed, a token revoked), so live streams ask `stillValid` at once; answers the function that stops it.
   */
  onSignInsEnded(listener: () => void): () => void {
    this.endedListeners.add(listener);
    return () => this.endedListeners.delete(listener);
  }

  private signInsEnded() {
    for (const listener of this.endedListeners) listener();
  }

  /** The API token an `Authorization: Bearer` value carries, when valid and unexpired (see ApiTokens.check). */
  token(bearer: string, ip: string | undefined): Promise<ApiTokenRow | undefined> {
    return this.apiTokens.check(bearer, ip);
  }

  async status(identity: UserIdentity): Promise<AuthStatus> {
    const origin = this.options.origin ? new URL(this.options.origin) : undefined;
    return {
      mode: this.options.mode,
      passwordSet: (await this.passwordHash()) !== undefined,
      managedBy: this.options.envPassword?.source ?? null,
      via: identity.via,
      plainHttp: origin?.protocol === 'http:' && !isLoopbackHost(origin.hostname),
    };
  }

  /**
   * Lets an owner action through (moving or importing the database; managing the password, sessions and
   * tokens): a signed-in session, or the open local dashboard, never an API token or BACKUP_SECRET; once a
   * password is set, `password` must be it (a wrong one counts as a failed sign-in, throttled as the login).
   */
  async confirmOwner(identity: Identity | undefined, password: string | undefined, client: ClientInfo): Promise<void> {
    if (!identity) throw fail('UNAUTHORIZED', 'Sign in first.');
    if (identity.via === 'token' || identity.via === 'backup') {
      throw fail('FORBIDDEN', 'Only the owner can do this, from a signed-in browser: an API token (or BACKUP_SECRET) cannot.');
    }
    const hash = await this.passwordHash();
    if (hash === undefined) return;
    if (!password) throw fail('FORBIDDEN', 'Confirm this with the dashboard password (the password field).');
    await this.throttle.attempt(client.ip);
    if (!(await this.hasher.verify(hash, password))) throw fail('FORBIDDEN', 'That password is not right.');
    await this.throttle.succeeded(client.ip);
  }

  /**
   * Sets the first password of a local dashboard (no current one needed: it is open), or changes it
   * (the current one needed); every other session ends, and a change removes every push device (`devicesRemoved`).
   * Answers a new session when the caller had none (the local dashboard was open), so setting a password does not
   * lock its setter out.
   */
  async changePassword(
    input: { currentPassword?: string | undefined; newPassword: string },
    identity: UserIdentity,
    request: ClientInfo,
  ): Promise<{ session: NewSession | undefined; devicesRemoved: boolean }> {
    if (this.envHash) throw fail('CONFLICT', `The password is managed by ${this.options.envPassword?.source}; change it there and restart.`);
    if (identity.via === 'token') throw fail('FORBIDDEN', 'Change the password from a signed-in browser, not with an API token.');
    const hash = await this.passwordHash();
    if (hash === undefined) {
      if (this.options.mode === 'remote') throw fail('CONFLICT', 'Set the first password with the setup link in the server log.');
      const created = await this.store.auth.createOwner(await this.hasher.hash(input.newPassword));
      this.forgetOwner();
      if (!created) throw fail('CONFLICT', 'A password was just set elsewhere; sign in with it.');
      this.signInsEnded();
      this.log.info('password set: the dashboard now asks for it');
      return { session: await this.startSession(request), devicesRemoved: false };
    }
    const address = request.ip;
    await this.throttle.attempt(address);
    if (!(await this.hasher.verify(hash, input.currentPassword ?? ''))) throw fail('BAD_REQUEST', 'The current password is not right.');
    await this.throttle.succeeded(address);
    const keep = identity.via === 'session' ? identity.sessionId : undefined;
    // Every push device goes with the sessions, in the store's one transaction: a browser signed out keeps no push.
    await this.store.auth.changePassword(await this.hasher.hash(input.newPassword), keep, true);
    this.forgetOwner();
    this.signInsEnded();
    this.log.info('password changed: every other session ended, every push device removed');
    return { session: keep ? undefined : await this.startSession(request), devicesRemoved: true };
  }

  /**
   * Ends this session. `endpoint` is this browser's push subscription, which the page unsubscribed before signing out:
   * its device goes too, so the next person at a shared computer gets no alert titles. Answers whether one went.
   */
  async logout(identity: UserIdentity, endpoint?: string): Promise<boolean> {
    if (identity.via !== 'session') return false;
    const removed = endpoint ? await this.store.push.removeEndpoint(endpointRef(endpoint)) : undefined;
    if (removed !== undefined) this.log.info(`push device "${removed}" removed: its browser signed out`);
    if (await this.store.auth.sessions.remove(identity.sessionId)) this.signInsEnded();
    return removed !== undefined;
  }

  async sessions(identity: UserIdentity): Promise<SessionInfo[]> {
    const current = identity.via === 'session' ? identity.sessionId : undefined;
    return (await this.store.auth.sessions.list()).map((row: SessionRow) => ({
      id: row.id,
      createdAt: row.createdAt,
      lastSeenAt: row.lastSeenAt,
      userAgent: row.userAgent,
      ip: row.ip,
      current: row.id === current,
    }));
  }

  /**
   * Ends every session, or every other one (`keepCurrent`); answers how many ended. Every session ("sign out
   * everywhere") removes every push device too, in the same transaction: the owner adds them again.
   */
  async endSessions(identity: UserIdentity, { keepCurrent }: { keepCurrent: boolean }): Promise<number> {
    const keep = keepCurrent && identity.via === 'session' ? identity.sessionId : undefined;
    const ended = await this.store.auth.sessions.removeAll(keep, !keepCurrent);
    if (ended > 0) this.signInsEnded();
    return ended;
  }

  async endSession(id: string): Promise<boolean> {
    const removed = await this.store.auth.sessions.remove(id);
    if (removed) this.signInsEnded();
    return removed;
  }

  async createToken(input: TokenCreate, identity: UserIdentity): Promise<TokenCreated> {
    assertManagesTokens(identity);
    return this.apiTokens.create(input);
  }

  tokens(): Promise<TokenInfo[]> {
    return this.apiTokens.list();
  }

  async revokeToken(id: string, identity: UserIdentity): Promise<boolean> {
    assertManagesTokens(identity);
    return this.apiTokens.revoke(id);
  }
}

/** Tokens are made and revoked from a signed-in browser (or the open local dashboard), never by a token. */
function assertManagesTokens(identity: UserIdentity) {
  if (identity.via === 'token') throw fail('FORBIDDEN', 'Manage API tokens from a signed-in browser, not with an API token.');
}
