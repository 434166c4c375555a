import type { Project, ProjectCreate, ProjectPatch, Settings, SettingsUpdate } from '@dash/contracts';

/** A project slug that is already taken. */
export class ProjectExistsError extends Error {
  constructor(readonly slug: string) {
    super(`A project with the slug "${slug}" already exists`);
    this.name = 'ProjectExistsError';
  }
}

/** `projectOrder` named slugs that are not projects. */
export class UnknownProjectsError extends Error {
  constructor(readonly slugs: string[]) {
    super(`projectOrder names unknown projects: ${slugs.join(', ')}`);
    this.name = 'UnknownProjectsError';
  }
}

export interface CacheEntry {
  key: string;
  route: string;
  value: unknown;
  /** ISO 8601. */
  fetchedAt: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** The dashboard's one owner: the password hash (an argon2id PHC string). There is at most one row. */
export interface OwnerRow {
  passwordHash: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
}

/** A signed-in browser. The cookie holds `<id>.<secret>`; only SHA-256(secret) is stored. */
export interface SessionRow {
  id: string;
  /** Hex SHA-256 of the session's secret. */
  secretHash: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601; bumped at most hourly while the session is used. */
  lastSeenAt: string;
  userAgent: string | null;
  ip: string | null;
}

/** An API token for scripts and the typed client; only SHA-256 of its secret is stored. */
export interface ApiTokenRow {
  id: string;
  name: string;
  /** Hex SHA-256 of the token's secret. */
  secretHash: string;
  scope: 'read' | 'write';
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601, or null when never used. */
  lastUsedAt: string | null;
  /** ISO 8601, or null for a token that does not expire. */
  expiresAt: string | null;
}

/** Severity of a notification, as the webhook parsers give it. */
import type { NotificationSeverity } from '@dash/contracts';
export type { NotificationSeverity };

/** One event to store in the inbox: a relay event (or one from the local webhook route) plus its project. */
export interface IncomingEvent {
  /** Unique per real-world event; the dedup key (it already names its source: `github:…`, `vercel:…`). */
  sourceEventId: string;
  integration: string;
  /** `pr.merged`, `deploy.error`, `monitor.down`, … */
  type: string;
  /** Same thing changing state (a monitor, a deploy target, a Sentry issue); absent for stateless events. */
  subjectKey: string | null;
  /** `trigger` opens the subject's thread (or joins the open one), `resolve` closes it; null: a thread of its own. */
  transition: 'trigger' | 'resolve' | null;
  severity: NotificationSeverity;
  title: string;
  url: string | null;
  /** The dashboard project it belongs to, or null when none matched. */
  projectSlug: string | null;
  /** ISO 8601, upstream. */
  occurredAt: string;
  /** ISO 8601, when the relay (or the local route) received it. */
  receivedAt: string;
  /** The relay's id for it, when it came through the relay. */
  relayEventId: string | null;
}

/** An inbox row: one event, or one subject's occurrence from trigger to resolve (an outage and its recovery). */
export interface NotificationRow {
  id: string;
  /**
   * Global and increasing, bumped on every change of the row: the live stream's event id. Seqs become visible in
   * increasing order on both dialects (writers that assign them are serialised until they commit), and a seq is
   * never handed out twice, even after its row was pruned: once a reader has seen seq N, every later change has a
   * bigger one, so `changedSince(N)` needs no overlap. There may be gaps.
   */
  seq: number;
  /** The seq the row was created with: its place in the list (newest first), which reading or folding never moves. */
  createdSeq: number;
  integration: string;
  /** The type of the event that opened it. */
  type: string;
  subjectKey: string | null;
  /** `open` until its resolve arrives; `resolved` after; `info` for stateless events. */
  status: 'open' | 'resolved' | 'info';
  /** The highest severity of its events. */
  severity: NotificationSeverity;
  /** The opening event's title. */
  title: string;
  url: string | null;
  projectSlug: string | null;
  eventCount: number;
  /** ISO 8601: the first and the latest event's `occurredAt`, when it resolved, when it was received, when read. */
  firstAt: string;
  lastAt: string;
  resolvedAt: string | null;
  receivedAt: string;
  readAt: string | null;
}

export interface NotificationQuery {
  /** Newest first (by createdSeq); at most this many. */
  limit: number;
  /** Only rows with a smaller createdSeq (the next page). */
  beforeSeq?: number | undefined;
  unread?: boolean | undefined;
  projectSlug?: string | undefined;
  integration?: string | undefined;
}

export interface IngestResult {
  /** Events stored; the rest were duplicates within the dedup window. */
  stored: number;
  duplicates: number;
  /** Every row the batch created or changed, as it now is (for the live stream), in seq order. */
  changed: NotificationRow[];
}

/**
 * Everything the dashboard stores, behind one interface with an implementation per dialect
 * (SQLite/libSQL and Postgres). Each method is atomic on its own.
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres';

  settings: {
    /** Defaults merged with what was stored; `projectOrder` lists every project in tab order. */
    get(): Promise<Settings>;
    /** Writes only the leaves the update names, in one transaction. Throws UnknownProjectsError. */
    update(update: SettingsUpdate): Promise<void>;
  };

  projects: {
    /** In tab order. */
    list(): Promise<Project[]>;
    get(slug: string): Promise<Project | undefined>;
    /** Appends the project to the tab order. Throws ProjectExistsError. */
    create(input: ProjectCreate): Promise<Project>;
    /** Replaces each integration the patch names (`null` removes it); undefined when there is no such project. */
    update(slug: string, patch: ProjectPatch): Promise<Project | undefined>;
    /** Removes the project (and so its place in the tab order); false when there was none. */
    remove(slug: string): Promise<boolean>;
  };

  credentials: {
    /** Keys with stored credentials, sorted. */
    keys(): Promise<string[]>;
    /** The sealed (encrypted) values of a key; the store never sees them in clear. */
    getSealed(key: string): Promise<string | undefined>;
    putSealed(key: string, sealed: string): Promise<void>;
    remove(key: string): Promise<boolean>;
  };

  /** `api_cache`: upstream data by route and normalised parameters, with when it was fetched and until when it is fresh. */
  cache: {
    get(key: string): Promise<CacheEntry | undefined>;
    put(entry: CacheEntry): Promise<void>;
    /** Removes every entry, or those of one route; answers how many went. */
    clear(route?: string): Promise<number>;
    /**
     * Makes the entries of `route` whose key holds the parameter `part` (`name=value`, as the key writes it) expire at
     * `at` (ISO 8601) unless they already have; they stay as the STALE fallback. Answers how many changed.
     */
    expire(route: string, part: string, at: string): Promise<number>;
  };

  /** Who may open the dashboard: the owner's password, browser sessions and API tokens. */
  auth: {
    owner(): Promise<OwnerRow | undefined>;
    /**
     * Inserts the owner unless there is one, in one statement: true when this call created it, so of
     * any number of concurrent first-run setups exactly one gets true.
     */
    createOwner(passwordHash: string): Promise<boolean>;
    /** Replaces the owner's password and ends every session but `keepSessionId`, in one transaction; false when there is no owner. */
    changePassword(passwordHash: string, keepSessionId?: string): Promise<boolean>;
    /** Removes the owner and every session in one transaction (the shell's password reset). */
    removeOwner(): Promise<void>;

    sessions: {
      create(session: SessionRow): Promise<void>;
      get(id: string): Promise<SessionRow | undefined>;
      /** Most recently seen first. */
      list(): Promise<SessionRow[]>;
      touch(id: string, lastSeenAt: string): Promise<void>;
      remove(id: string): Promise<boolean>;
      /** Removes every session but `exceptId`; answers how many went. */
      removeAll(exceptId?: string): Promise<number>;
      /** Removes sessions last seen before `seenBefore` or created before `createdBefore`; answers how many went. */
      removeExpired(seenBefore: string, createdBefore: string): Promise<number>;
    };

    tokens: {
      create(token: ApiTokenRow): Promise<void>;
      get(id: string): Promise<ApiTokenRow | undefined>;
      /** Newest first. */
      list(): Promise<ApiTokenRow[]>;
      touch(id: string, lastUsedAt: string): Promise<void>;
      remove(id: string): Promise<boolean>;
    };
  };

  /** The inbox: events from the relay and the local webhook route, folded into rows. */
  notifications: {
    /**
     * Stores a batch in ONE transaction, together with the relay cursor when given, so a crash never
     * loses or doubles an event. Each event first claims its sourceEventId for `dedupWindowMs` (a claim
     * that has expired is taken again; a live one makes the event a duplicate, skipped); then it folds:
     * `trigger` joins the subject's open row or opens one, `resolve` closes the open row (or becomes a
     * resolved row of its own), null is a row of its own. Concurrent ingests of one event store it once.
     * A duplicate within the batch is a duplicate too. `now` (ISO 8601) starts the claims; `dedupWindowMs` >= 0.
     * A joined or resolved row keeps its read state: a read row that changes stays read (its seq still moves).
     */
    ingest(
      events: IncomingEvent[],
      options: { now: string; dedupWindowMs: number; cursor?: { relayUrl: string; since: number } | undefined },
    ): Promise<IngestResult>;
    /** The relay cursor stored with the last batch from this relay URL (`since` for its next poll). */
    cursor(relayUrl: string): Promise<number | undefined>;
    list(query: NotificationQuery): Promise<NotificationRow[]>;
    /** Rows changed after `seq` (those whose seq is bigger), oldest change first, at most `limit`: a live stream's replay. */
    changedSince(seq: number, limit: number): Promise<NotificationRow[]>;
    /** The biggest seq of the rows there are (0 when there are none): where a live stream starts. */
    latestSeq(): Promise<number>;
    unreadCount(): Promise<number>;
    /** Marks the unread ones of the rows read (bumping their seq); answers the rows that changed, in seq order. */
    markRead(target: { ids: string[] } | { all: true }, at: string): Promise<NotificationRow[]>;
    /**
     * Retention: removes rows read before `readBefore` and unread rows received before `unreadBefore`, with their
     * events; answers how many rows went. Dedup claims outlive their rows (a late copy of a pruned row's event is
     * still a duplicate) until they expire: prune also drops the claims that expired by the earlier cut-off, so the
     * cut-offs must not lie in the future.
     */
    prune(readBefore: string, unreadBefore: string): Promise<number>;
    /** Removes the rows of these projects with their events and dedup claims (the demo went away); answers how many rows went. */
    removeForProjects(slugs: readonly string[]): Promise<number>;
  };

  /** Named leases, so that of several dashboard processes on one database one does a job at a time (the relay poller). */
  leases: {
    /**
     * Takes or renews `name` for `holder` until `now + ttlMs` when it is free, expired (its end <= `now`) or already
     * the holder's, in one atomic statement; false otherwise. `now` is ISO 8601.
     */
    acquire(name: string, holder: string, ttlMs: number, now: string): Promise<boolean>;
    /** Gives it up, when `holder` holds it. */
    release(name: string, holder: string): Promise<void>;
  };

  /** Small internal values such as the credentials key check; JSON-serialisable. */
  meta: {
    get(key: string): Promise<unknown>;
    put(key: string, value: unknown): Promise<void>;
  };

  close(): Promise<void>;
}
