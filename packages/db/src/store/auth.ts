/** Who may open the dashboard: the owner's password hash, browser sessions and API tokens. */

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

/** Who may open the dashboard: the owner's password, browser sessions and API tokens. */
export type AuthStore = {
  owner(): Promise<OwnerRow | undefined>;
  /**
   * Inserts the owner unless there is one, in one statement: true when this call created it, so of
   * any number of concurrent first-run setups exactly one gets true.
   */
  createOwner(passwordHash: string): Promise<boolean>;
  /**
   * Replaces the owner's password and ends every session but `keepSessionId`, in one transaction; false when there is
   * no owner. With `removeDevices` (a password change, not a rehash) every Web Push device goes in that transaction too:
   * a browser signed out keeps no push subscription, and the owner adds their devices again.
   */
  changePassword(passwordHash: string, keepSessionId?: string, removeDevices?: boolean): Promise<boolean>;
  /**
   * Removes the owner, every session and every Web Push device in one transaction (the shell's password reset): as
   * after a password change, no browser keeps getting alerts, and the owner adds their devices again.
   */
  removeOwner(): Promise<void>;

  sessions: {
    create(session: SessionRow): Promise<void>;
    get(id: string): Promise<SessionRow | undefined>;
    /** Most recently seen first. */
    list(): Promise<SessionRow[]>;
    touch(id: string, lastSeenAt: string): Promise<void>;
    remove(id: string): Promise<boolean>;
    /**
     * Removes every session but `exceptId`; answers how many went. With `removeDevices` ("sign out everywhere") every
     * Web Push device goes in the same transaction.
     */
    removeAll(exceptId?: string, removeDevices?: boolean): Promise<number>;
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
