import type { Project, ProjectCreate, ProjectPatch, Settings, SettingsUpdate } from '@dash/contracts';

/** What the dashboard keeps about itself and its upstreams: settings, projects, sealed credentials, the upstream cache, meta values. */

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

export type SettingsStore = {
  /** Defaults merged with what was stored; `projectOrder` lists every project in tab order. */
  get(): Promise<Settings>;
  /** Writes only the leaves the update names, in one transaction. Throws UnknownProjectsError. */
  update(update: SettingsUpdate): Promise<void>;
};

export type ProjectsStore = {
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

export type CredentialsStore = {
  /** Keys with stored credentials, sorted. */
  keys(): Promise<string[]>;
  /** The sealed (encrypted) values of a key; the store never sees them in clear. */
  getSealed(key: string): Promise<string | undefined>;
  putSealed(key: string, sealed: string): Promise<void>;
  remove(key: string): Promise<boolean>;
};

/** `api_cache`: upstream data by route and normalised parameters, with when it was fetched and until when it is fresh. */
export type CacheStore = {
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

/** Small internal values such as the credentials key check; JSON-serialisable. */
export type MetaStore = {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
  /**
   * Stores `value` only when `key` has none, in one atomic statement, and answers the value `key` then holds: of
   * processes claiming one key at once, every one gets the first claim's value (the installation id).
   */
  claim(key: string, value: unknown): Promise<unknown>;
};
