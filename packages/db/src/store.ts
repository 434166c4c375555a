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

  /** Small internal values such as the credentials key check; JSON-serialisable. */
  meta: {
    get(key: string): Promise<unknown>;
    put(key: string, value: unknown): Promise<void>;
  };

  close(): Promise<void>;
}
