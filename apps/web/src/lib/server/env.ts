import type { CliLocations } from '@dash/api';
import { isArgon2idHash, isLoopbackHost, parseInterval } from '@dash/contracts';
import { parseEnv, withoutBlanks, type RawEnv } from '@dash/contracts/env';
import { commaList, receiveSettingsFrom, type ReceiveSettings } from '@dash/webhooks';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);

const schema = z
  .object({
    /** The address the server listens on; loopback (with a loopback ORIGIN, if any) makes it a local dashboard. */
    HOST: z.string().default('127.0.0.1'),
    PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
    /** The public origin people open (adapter-node's own variable); required for a remote dashboard. */
    ORIGIN: z
      .url({ protocol: /^https?$/, error: 'ORIGIN must be an http(s) URL such as https://dash.example.com' })
      .refine((value) => new URL(value).origin === value.replace(/\/$/, ''), 'ORIGIN is an origin: scheme, host and port, no path')
      .transform((value) => new URL(value).origin)
      .optional(),
    /** More Host names to serve (comma-separated; `.example.com` also admits its subdomains). */
    DASHBOARD_ALLOWED_HOSTS: z.string().optional().transform(list),
    /** A file holding the password (Docker secrets); hashed in memory at start. */
    DASHBOARD_PASSWORD_FILE: z.string().optional(),
    /** The password as an argon2id PHC string. */
    DASHBOARD_PASSWORD_HASH: z
      .string()
      .refine(isArgon2idHash, 'DASHBOARD_PASSWORD_HASH must be an argon2id hash: $argon2id$v=19$m=…,t=…,p=…$salt$hash')
      .optional(),
    /**
     * `file:` (SQLite), `libsql://` (Turso), `postgres://` or `mysql://`: when set it decides the database at every
     * start (Settings → Database then only shows it); unset, the choice made there, or the embedded default.
     */
    DATABASE_URL: z.string().optional(),
    /** Turso's auth token for a `libsql://` URL. */
    DATABASE_AUTH_TOKEN: z.string().optional(),
    /** 32 bytes as hex or base64; when unset a key is generated once into DATA_DIR. */
    CREDENTIALS_KEY: z.string().optional(),
    DATA_DIR: z.string().default('./data'),
    /** Where drizzle-kit's migrations live (`sqlite/` and `pg/` inside). */
    MIGRATIONS_DIR: z.string().default('./drizzle'),
    /**
     * Redis for what several dashboard processes share (each upstream's rate window, one fetch per cache miss); unset,
     * they share through the database when it is Postgres or MySQL, and a SQLite dashboard keeps them in memory.
     */
    REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379' }).optional(),
    /** The relay's base for events (`<relay>/api`, or `<relay>/api/t/<tenant>`); `relayUrl` in settings overrides it. */
    WEBHOOK_RELAY_URL: z.url({ protocol: /^https?$/, error: 'WEBHOOK_RELAY_URL must be an http(s) URL such as https://relay.example.com/api' }).optional(),
    /** How long Settings → Webhooks keeps each webhook's body, in hours (0 keeps none; at most a week). */
    WEBHOOK_BODY_RETENTION_HOURS: z.coerce
      .number({ error: 'WEBHOOK_BODY_RETENTION_HOURS is a number of hours from 0 to 168' })
      .int('WEBHOOK_BODY_RETENTION_HOURS is a whole number of hours')
      .min(0, 'WEBHOOK_BODY_RETENTION_HOURS is a number of hours from 0 to 168')
      .max(168, 'WEBHOOK_BODY_RETENTION_HOURS is a number of hours from 0 to 168')
      .default(24),
    /** The relay's poll secret; one saved in settings overrides it. The relay's list for rotation (`new,old`) polls with the first. */
    RELAY_POLL_SECRET: z
      .string()
      .optional()
      .transform((value) => commaList(value)[0]),
    /** POST /api/backup's bearer secret (`new,old` during a rotation); unset, that route is off. */
    BACKUP_SECRET: z
      .string()
      .optional()
      .transform((value) => commaList(value)),
    /** How often the dashboard backs up on its own (`6h`, `30m`, `1d`); unset, never. */
    BACKUP_INTERVAL: z
      .string()
      .optional()
      .transform((value, check) => {
        if (value === undefined) return undefined;
        const ms = parseInterval(value);
        if (ms === undefined) {
          check.addIssue({ code: 'custom', message: 'BACKUP_INTERVAL is a duration of at least a minute: 30m, 6h, 1d or 1h30m' });
          return z.NEVER;
        }
        return { text: value.trim(), ms };
      }),
    /**
     * `off`: the metric history takes no daily snapshot and reads no provider's past days on its own (history then comes
     * from `POST /api/history/snapshot`, `/backfill` and imports); unset or `on`, it does.
     */
    HISTORY_SNAPSHOTS: z
      .string()
      .optional()
      .refine((value) => value === undefined || /^(on|off)$/i.test(value.trim()), 'HISTORY_SNAPSHOTS is on or off')
      .transform((value) => value?.trim().toLowerCase() !== 'off'),
    /** Email alerts through SendGrid: a key with Mail Send, a verified sender, and where alerts go (comma-separated). */
    SENDGRID_API_KEY: z.string().optional(),
    ALERT_EMAIL_FROM: z.email({ error: 'ALERT_EMAIL_FROM must be an email address (a verified sender in SendGrid)' }).optional(),
    ALERT_EMAIL_TO: z
      .string()
      .optional()
      .refine((value) => value === undefined || commaList(value).every((address) => z.email().safeParse(address).success), 'ALERT_EMAIL_TO must be email addresses, comma-separated'),
    /** SendGrid's API root: its own unless a proxy (or a test server) stands in. */
    SENDGRID_API_URL: z.url({ protocol: /^https?$/, error: 'SENDGRID_API_URL must be an http(s) URL such as https://api.sendgrid.com' }).optional(),
    /**
     * Web Push's VAPID key pair (RFC 8292), base64url as `npx web-push generate-vapid-keys` prints it; unset, a pair is
     * made on first use and kept in the store, sealed. Both or neither: every device is subscribed to the public key.
     */
    VAPID_PUBLIC_KEY: z
      .string()
      .refine((value) => /^B[A-Za-z0-9_-]{86}$/.test(value), 'VAPID_PUBLIC_KEY is an uncompressed P-256 public key: 87 base64url characters starting with B')
      .optional(),
    VAPID_PRIVATE_KEY: z
      .string()
      .refine((value) => /^[A-Za-z0-9_-]{43}$/.test(value), 'VAPID_PRIVATE_KEY is a P-256 private key: 43 base64url characters')
      .optional(),
    /** The contact push services may write to about our pushes: a `mailto:` or an `https:` URL; else the first ALERT_EMAIL_TO, else an https ORIGIN. */
    VAPID_SUBJECT: z
      .string()
      .refine((value) => /^(mailto:[^\s@]+@[^\s@]+|https:\/\/[^\s/]+.*)$/.test(value), 'VAPID_SUBJECT is a mailto: address or an https: URL (push services take nothing else)')
      .optional(),
    /**
     * `true`: a Web Push endpoint may be on loopback or a private, link-local or shared (CGNAT) address (tests, a push
     * service of your own on the LAN). Unset, only public addresses: a push endpoint is a browser's push service.
     */
    PUSH_ALLOW_PRIVATE_ENDPOINTS: z
      .string()
      .optional()
      .refine((value) => value === undefined || /^(true|false)$/i.test(value.trim()), 'PUSH_ALLOW_PRIVATE_ENDPOINTS is true or false')
      .transform((value) => value?.trim().toLowerCase() === 'true'),
    /** The chat services' roots (Slack's incoming webhooks, Discord's API, Telegram's Bot API): their own unless a proxy (or a test server) stands in. */
    CHAT_SLACK_URL: z.url({ protocol: /^https?$/, error: 'CHAT_SLACK_URL must be an http(s) URL such as https://hooks.slack.com' }).optional(),
    CHAT_DISCORD_URL: z.url({ protocol: /^https?$/, error: 'CHAT_DISCORD_URL must be an http(s) URL such as https://discord.com' }).optional(),
    CHAT_TELEGRAM_URL: z.url({ protocol: /^https?$/, error: 'CHAT_TELEGRAM_URL must be an http(s) URL such as https://api.telegram.org' }).optional(),
    /** Google's API root for a login imported from gcloud (the only place it is sent): its own unless a proxy (or a test server) stands in. */
    GOOGLE_API_URL: z.url({ protocol: /^https?$/, error: 'GOOGLE_API_URL must be an http(s) URL such as https://www.googleapis.com' }).optional(),
    /**
     * `true` behind a reverse proxy: a client's address (for the sign-in throttle and the sessions list) is the
     * right-most X-Forwarded-For hop, else the socket's. The relay's own variable, read the same way.
     */
    TRUST_PROXY: z
      .string()
      .optional()
      .refine((value) => value === undefined || /^(true|false)$/i.test(value.trim()), 'TRUST_PROXY is true or false')
      .transform((value) => value?.trim().toLowerCase() === 'true'),
    /** `1`: on an empty store, start straight into the demo (three made-up products on the local sandbox). */
    DEMO: z
      .enum(['0', '1', 'true', 'false'])
      .optional()
      .transform((value) => value === '1' || value === 'true'),
  })
  .superRefine((env, check) => {
    if (env.DASHBOARD_PASSWORD_FILE && env.DASHBOARD_PASSWORD_HASH) {
      check.addIssue({ code: 'custom', path: ['DASHBOARD_PASSWORD_HASH'], message: 'set DASHBOARD_PASSWORD_FILE or DASHBOARD_PASSWORD_HASH, not both' });
    }
    if (Boolean(env.VAPID_PUBLIC_KEY) !== Boolean(env.VAPID_PRIVATE_KEY)) {
      check.addIssue({ code: 'custom', path: [env.VAPID_PUBLIC_KEY ? 'VAPID_PRIVATE_KEY' : 'VAPID_PUBLIC_KEY'], message: 'set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY together (a pair), or neither' });
    }
    if (!isLoopbackHost(env.HOST) && !env.ORIGIN) {
      check.addIssue({
        code: 'custom',
        path: ['ORIGIN'],
        message:
          `the dashboard listens on HOST=${env.HOST}, beyond this machine, so it needs the address people open: ` +
          'set ORIGIN, e.g. ORIGIN=https://dash.example.com or ORIGIN=http://192.168.1.10:3000 (or HOST=127.0.0.1 to keep it local)',
      });
    }
    const foreign = env.DASHBOARD_ALLOWED_HOSTS.find((host) => !isLoopbackHost(host));
    if (foreign !== undefined && !env.ORIGIN) {
      check.addIssue({
        code: 'custom',
        path: ['ORIGIN'],
        message:
          `DASHBOARD_ALLOWED_HOSTS serves ${foreign}, beyond this machine (a proxy in front), so the dashboard is a remote one ` +
          'and needs the address people open: set ORIGIN, e.g. ORIGIN=https://dash.example.com',
      });
    }
  });

/**
 * Remote unless everything says "this machine only": a HOST that is not loopback listens beyond it, and an ORIGIN or
 * a DASHBOARD_ALLOWED_HOSTS name that is not loopback means people reach it from elsewhere (a reverse proxy on the
 * same host, say), whatever HOST is. A remote dashboard always needs a password.
 */
function modeOf(env: { HOST: string; ORIGIN?: string; DASHBOARD_ALLOWED_HOSTS: string[] }): 'local' | 'remote' {
  if (!isLoopbackHost(env.HOST)) return 'remote';
  if (env.ORIGIN !== undefined && !isLoopbackHost(new URL(env.ORIGIN).hostname)) return 'remote';
  return env.DASHBOARD_ALLOWED_HOSTS.every(isLoopbackHost) ? 'local' : 'remote';
}

/** Where gcloud and the Google Workspace CLI keep their files: their own variables, or their defaults under the home directory. */
const cliSchema = z.object({
  CLOUDSDK_CONFIG: z.string().optional(),
  GOOGLE_APPLICATION_CREDENTIALS: z.string().optional(),
  GOOGLE_WORKSPACE_CLI_CREDENTIALS_FILE: z.string().optional(),
  GOOGLE_WORKSPACE_CLI_CONFIG_DIR: z.string().optional(),
  APPDATA: z.string().optional(),
});

export type Env = z.infer<typeof schema> & {
  /** Local: bound to loopback and served only as loopback names, open until a password is set. Remote: a password always. */
  mode: 'local' | 'remote';
  /** The local webhook route's secrets (WEBHOOK_SECRET_<INTEGRATION>) and switches (RELAY_ENABLED, RELAY_DISABLE_<INTEGRATION>). */
  receive: ReceiveSettings;
  /** Where POST /api/auth/cli-import looks for a Google login on this computer. */
  cli: CliLocations;
  /** The address people open: ORIGIN, else the loopback address the server listens on (OAuth redirect URIs start with it). */
  publicOrigin: string;
};

/** The address the server listens on as a URL: `http://127.0.0.1:3000`, an IPv6 host in brackets. */
export function bindUrl(host: string, port: number): string {
  const bare = host.replace(/^\[|\]$/g, '');
  return `http://${bare.includes(':') ? `[${bare}]` : bare}:${port}`;
}

/** A `file:` URL with a relative path, which libSQL would take from the working directory. */
const relativeFileUrl = /^file:(?!\/)/;

/**
 * The dashboard's environment, read and validated once (`$env/dynamic/private` in the app, the
 * process's own in server.ts). A variable set to the empty string counts as unset; relative paths
 * (DATA_DIR, MIGRATIONS_DIR, a `file:` URL, DASHBOARD_PASSWORD_FILE) are made absolute from `base`.
 */
export function readEnv(raw: RawEnv, base: string): Env {
  const env = parseEnv(schema, raw, 'environment');
  const cli = cliSchema.parse(withoutBlanks(raw));
  return {
    ...env,
    cli: {
      home: homedir(),
      appData: cli.APPDATA,
      CLOUDSDK_CONFIG: cli.CLOUDSDK_CONFIG,
      GOOGLE_APPLICATION_CREDENTIALS: cli.GOOGLE_APPLICATION_CREDENTIALS,
      GOOGLE_WORKSPACE_CLI_CREDENTIALS_FILE: cli.GOOGLE_WORKSPACE_CLI_CREDENTIALS_FILE,
      GOOGLE_WORKSPACE_CLI_CONFIG_DIR: cli.GOOGLE_WORKSPACE_CLI_CONFIG_DIR,
      googleBaseUrl: env.GOOGLE_API_URL,
    },
    mode: modeOf(env),
    // Without ORIGIN the bind is loopback (checked above): its own address, an IPv6 one in brackets.
    publicOrigin: env.ORIGIN?.replace(/\/$/, '') ?? bindUrl(env.HOST, env.PORT),
    receive: receiveSettingsFrom(withoutBlanks(raw)),
    DATABASE_URL:
      env.DATABASE_URL !== undefined && relativeFileUrl.test(env.DATABASE_URL) ? `file:${resolve(base, env.DATABASE_URL.slice('file:'.length))}` : env.DATABASE_URL,
    DATA_DIR: resolve(base, env.DATA_DIR),
    MIGRATIONS_DIR: resolve(base, env.MIGRATIONS_DIR),
    DASHBOARD_PASSWORD_FILE: env.DASHBOARD_PASSWORD_FILE && resolve(base, env.DASHBOARD_PASSWORD_FILE),
  };
}

/**
 * adapter-node's other ways to listen (a Unix socket, systemd's socket activation), which the dashboard does not
 * take: it listens on HOST and PORT, and its mode and guards come from that address. A message when one is set.
 */
export function unsupportedListener(raw: RawEnv): string | undefined {
  const set = ['SOCKET_PATH', 'LISTEN_PID', 'LISTEN_FDS'].filter((name) => withoutBlanks(raw)[name] !== undefined);
  if (set.length === 0) return undefined;
  return (
    `${set.join(' and ')} ${set.length === 1 ? 'is' : 'are'} adapter-node's, which this dashboard does not use: it listens on HOST and PORT ` +
    '(its access mode comes from that address). Unset it and set HOST (and PORT), e.g. HOST=127.0.0.1 behind a reverse proxy on this machine, with ORIGIN set.'
  );
}
