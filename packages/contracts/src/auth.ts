import { z } from 'zod';

/** Long enough to resist guessing, with no composition rules (NIST SP 800-63B); the cap keeps hashing bounded. */
export const passwordSchema = z
  .string()
  .min(12, 'Use at least 12 characters')
  .max(1024, 'Use at most 1024 characters');

/** Local: bound to this machine's loopback, open until a password is set. Remote: any other bind, a password always. */
export const accessModes = ['local', 'remote'] as const;
export type AccessMode = (typeof accessModes)[number];

/** `localhost`, `*.localhost`, 127.0.0.0/8 and ::1: names and addresses that never leave this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** An argon2id PHC string, the only kind of password hash the dashboard writes or accepts. */
export const isArgon2idHash = (value: string) => /^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.test(value);

export const tokenScopes = ['read', 'write'] as const;
export type TokenScope = (typeof tokenScopes)[number];

/** What the settings page and the layout need to know about access; never a secret. */
export const authStatusSchema = z.object({
  mode: z.enum(accessModes),
  /** A password is set (in the store or by the environment): every request must sign in. */
  passwordSet: z.boolean(),
  /** The password comes from DASHBOARD_PASSWORD_FILE or DASHBOARD_PASSWORD_HASH and cannot be changed here. */
  managedBy: z.enum(['DASHBOARD_PASSWORD_FILE', 'DASHBOARD_PASSWORD_HASH']).nullable(),
  /** How this request is signed in: a browser session, an API token, or not at all because none is needed. */
  via: z.enum(['session', 'token', 'open']),
  /** The public origin is plain http on an address other than this machine: passwords cross the network in clear. */
  plainHttp: z.boolean(),
});
export type AuthStatus = z.infer<typeof authStatusSchema>;

export const passwordChangeSchema = z.object({
  /** Needed once a password is set; not when setting the first one on a local dashboard. */
  currentPassword: z.string().max(1024).optional(),
  newPassword: passwordSchema,
});
export type PasswordChange = z.infer<typeof passwordChangeSchema>;

export const sessionInfoSchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
  /** The session this request came with. */
  current: z.boolean(),
});
export type SessionInfo = z.infer<typeof sessionInfoSchema>;

export const sessionListSchema = z.object({ sessions: z.array(sessionInfoSchema) });

export const sessionIdInput = z.object({ id: z.string().min(1).max(64) });

/**
 * Sessions ended; `devicesRemoved` when every Web Push device went too ("sign out everywhere"): a browser signed out
 * keeps no push subscription, and the owner adds their devices again.
 */
export const signedOutSchema = z.object({ ok: z.literal(true), ended: z.number().int(), devicesRemoved: z.boolean() });

/** An owner action's confirmation: the dashboard password again, needed once one is set. */
export const ownerPasswordSchema = z.string().max(1024).optional();

export const tokenCreateSchema = z.object({
  name: z.string().trim().min(1, 'Name the token after what will use it').max(80),
  scope: z.enum(tokenScopes),
  /** Omitted: the token does not expire. */
  expiresInDays: z.number().int().min(1).max(3650).optional(),
  /** The dashboard password, once one is set: making a token is the owner's. */
  password: ownerPasswordSchema,
});
export type TokenCreate = z.infer<typeof tokenCreateSchema>;

export const tokenInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** `fdb_<id>_…`: the token's visible start, enough to recognise it, not to use it. */
  hint: z.string(),
  scope: z.enum(tokenScopes),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  expired: z.boolean(),
});
export type TokenInfo = z.infer<typeof tokenInfoSchema>;

/** The one answer that carries the token itself; it is never shown again. */
export const tokenCreatedSchema = tokenInfoSchema.extend({ token: z.string() });
export type TokenCreated = z.infer<typeof tokenCreatedSchema>;

export const tokenListSchema = z.object({ tokens: z.array(tokenInfoSchema) });

export const tokenIdInput = z.object({ id: z.string().min(1).max(64) });

export const removedSchema = z.object({ ok: z.literal(true), removed: z.boolean() });

/** POST /api/auth/cli-import: the Google credential came from this file on the dashboard's computer. */
export const cliImportResultSchema = z.object({
  imported: z.literal(true),
  /** The file it was read from. */
  source: z.string(),
  /** The Google account, when the file names it. */
  account: z.string().nullable(),
});
export type CliImportResult = z.infer<typeof cliImportResultSchema>;

/** The providers whose accounts connect with OAuth (GET /api/auth/{provider}/redirect). */
export const oauthProviderSchema = z.enum(['google', 'github']);
export type OAuthProviderName = z.infer<typeof oauthProviderSchema>;

/** One stored Google or GitHub credential as settings shows it: never a token, only what it is and how it stands. */
export const oauthConnectionSchema = z.object({
  key: z.string(),
  provider: oauthProviderSchema,
  /** The OAuth client's id and secret are saved: "Connect" can start. */
  clientSaved: z.boolean(),
  /** How it signs in: an OAuth connection, a pasted refresh token (Google), a personal access token (GitHub), or not yet. */
  via: z.enum(['oauth', 'refresh_token', 'token', 'none']),
  /** Who the provider says the tokens belong to. */
  account: z.string().nullable(),
  scopes: z.array(z.string()),
  /** When the stored access token expires (it is refreshed before); null when it does not expire or none is stored. */
  expiresAt: z.string().nullable(),
  /** A refresh token is stored: access tokens renew themselves. */
  refreshable: z.boolean(),
  /** The provider refused the refresh token (invalid_grant): why; null while it works. */
  needsReconnect: z.string().nullable(),
  connectedAt: z.string().nullable(),
});
export type OAuthConnection = z.infer<typeof oauthConnectionSchema>;

export const oauthConnectionsSchema = z.object({
  connections: z.array(oauthConnectionSchema),
  /** The redirect URI to register with each provider; null while the dashboard does not know its public address. */
  redirectUris: z.object({ google: z.string().nullable(), github: z.string().nullable() }),
});
export type OAuthConnections = z.infer<typeof oauthConnectionsSchema>;

/** GET /api/auth/{provider}/redirect's query (the provider from the path). */
export const oauthStartInput = z.strictObject({
  provider: oauthProviderSchema,
  credKey: z.string().min(1, 'credKey names the credential holding the OAuth client (e.g. "google")').max(64),
  scopes: z
    .string()
    .max(1000)
    .regex(/^[\x21\x23-\x5B\x5D-\x7E ]*$/, 'scopes are space-separated scope names (RFC 6749 §3.3)')
    .optional(),
});
export type OAuthStart = z.infer<typeof oauthStartInput>;

/** Where to send the browser, and the sealed flow for the route to set as its cookie. */
export const oauthStartedSchema = z.object({ location: z.string(), cookie: z.string(), maxAgeSeconds: z.number() });
export type OAuthStarted = z.infer<typeof oauthStartedSchema>;

/** GET /api/auth/{provider}/callback as the route hands it on: the provider's query and the flow cookie, if sent. */
export const oauthFinishInput = z.strictObject({
  provider: oauthProviderSchema,
  query: z.record(z.string(), z.string()),
  cookie: z.string().optional(),
});
export type OAuthFinish = z.infer<typeof oauthFinishInput>;

/** How a callback ended: `/settings/connections?oauth=success`, or `?oauth=error&reason=<code>` the Connections page puts into words. */
export const oauthOutcomeSchema = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('success'), account: z.string().nullable() }),
  z.object({ outcome: z.literal('error'), reason: z.string() }),
]);
export type OAuthOutcome = z.infer<typeof oauthOutcomeSchema>;
