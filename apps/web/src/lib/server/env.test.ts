import { homedir } from 'node:os';
import { readFileSync } from 'node:fs';
import { parseEnv as parseDotEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readEnv, unsupportedListener } from './env.ts';

/** `.env.example` exactly as a user copies it to `.env` or hands it to `docker run --env-file`. */
const example = parseDotEnv(readFileSync(new URL('../../../../../.env.example', import.meta.url), 'utf8'));

describe("the dashboard's environment", () => {
  const defaults = {
    HOST: '127.0.0.1',
    PORT: 3000,
    mode: 'local',
    // Without ORIGIN, the loopback address it listens on: OAuth redirect URIs start with it.
    publicOrigin: 'http://127.0.0.1:3000',
    DASHBOARD_ALLOWED_HOSTS: [],
    DASHBOARD_PASSWORD_FILE: undefined,
    // Unset: the database chosen in Settings → Database, or the embedded DATA_DIR/dashboard.db.
    DATABASE_URL: undefined,
    DATA_DIR: '/srv/dash/data',
    MIGRATIONS_DIR: '/srv/dash/drizzle',
    DEMO: false,
    WEBHOOK_RELAY_URL: undefined,
    WEBHOOK_BODY_RETENTION_HOURS: 24,
    RELAY_POLL_SECRET: undefined,
    BACKUP_SECRET: [],
    BACKUP_INTERVAL: undefined,
    HISTORY_SNAPSHOTS: true,
    SENDGRID_API_KEY: undefined,
    ALERT_EMAIL_FROM: undefined,
    ALERT_EMAIL_TO: undefined,
    SENDGRID_API_URL: undefined,
    // Unset: a VAPID pair is made on first use and kept in the store; the subject from the alert address or ORIGIN.
    VAPID_PUBLIC_KEY: undefined,
    VAPID_PRIVATE_KEY: undefined,
    VAPID_SUBJECT: undefined,
    // Unset: a push endpoint must be on a public address.
    PUSH_ALLOW_PRIVATE_ENDPOINTS: false,
    TRUST_PROXY: false,
    receive: { enabled: true, disabled: new Set(), secrets: { code_host: [], deploy_host: [], error_tracker: [], issue_tracker: [], uptime_monitor: [] } },
    cli: {
      home: homedir(),
      appData: undefined,
      CLOUDSDK_CONFIG: undefined,
      GOOGLE_APPLICATION_CREDENTIALS: undefined,
      GOOGLE_WORKSPACE_CLI_CREDENTIALS_FILE: undefined,
      GOOGLE_WORKSPACE_CLI_CONFIG_DIR: undefined,
    },
  };

  it('starts with every value of .env.example as written, its paths taken from the base directory', () => {
    expect(readEnv(example, '/srv/dash')).toEqual(defaults);
  });

  it('counts a variable set to the empty string as unset: the default applies, or nothing', () => {
    const env = readEnv({ DATABASE_URL: '', DATABASE_AUTH_TOKEN: '', CREDENTIALS_KEY: '  ', DATA_DIR: '', DEMO: '' }, '/srv/dash');
    expect(env).toEqual(defaults);
  });

  it('keeps absolute paths and remote database URLs as they are', () => {
    const env = readEnv({ DATABASE_URL: 'postgres://u:p@db:5432/dash', DATA_DIR: '/data', MIGRATIONS_DIR: '/app/drizzle' }, '/srv/dash');
    expect(env).toMatchObject({ DATABASE_URL: 'postgres://u:p@db:5432/dash', DATA_DIR: '/data', MIGRATIONS_DIR: '/app/drizzle' });
    expect(readEnv({ DATABASE_URL: 'file:/data/dashboard.db' }, '/srv/dash').DATABASE_URL).toBe('file:/data/dashboard.db');
    expect(readEnv({ DATABASE_URL: 'file:data/x.db' }, '/srv/dash').DATABASE_URL).toBe('file:/srv/dash/data/x.db');
  });

  it('is a local dashboard on a loopback address and a remote one elsewhere, which needs ORIGIN', () => {
    for (const HOST of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) expect(readEnv({ HOST }, '/').mode).toBe('local');
    expect(() => readEnv({ HOST: '0.0.0.0' }, '/')).toThrow(/ORIGIN: the dashboard listens on HOST=0\.0\.0\.0, beyond this machine, .*set ORIGIN, e\.g\. ORIGIN=https:\/\/dash\.example\.com/);
    const remote = readEnv({ HOST: '0.0.0.0', ORIGIN: 'https://dash.example.com/' }, '/');
    expect(remote).toMatchObject({ mode: 'remote', ORIGIN: 'https://dash.example.com' });
  });

  it('refuses an ORIGIN with a path or another scheme, and a password hash that is not argon2id', () => {
    expect(() => readEnv({ ORIGIN: 'https://dash.example.com/app' }, '/')).toThrow(/ORIGIN is an origin/);
    expect(() => readEnv({ ORIGIN: 'ftp://dash.example.com' }, '/')).toThrow(/ORIGIN must be an http\(s\) URL/);
    expect(() => readEnv({ DASHBOARD_PASSWORD_HASH: '$2b$10$abcdefghijklmnopqrstuv' }, '/')).toThrow(/DASHBOARD_PASSWORD_HASH must be an argon2id hash/);
    expect(() => readEnv({ DASHBOARD_PASSWORD_FILE: 'pw', DASHBOARD_PASSWORD_HASH: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g' }, '/')).toThrow(/not both/);
  });

  it('reads the relay to poll, with the first of a rotation list as the poll secret, and refuses a URL that is not http(s)', () => {
    const env = readEnv({ WEBHOOK_RELAY_URL: 'https://relay.example.com/api/t/acme', RELAY_POLL_SECRET: ' new-secret , old-secret' }, '/');
    expect(env).toMatchObject({ WEBHOOK_RELAY_URL: 'https://relay.example.com/api/t/acme', RELAY_POLL_SECRET: 'new-secret' });
    expect(() => readEnv({ WEBHOOK_RELAY_URL: 'relay.example.com' }, '/')).toThrow(/WEBHOOK_RELAY_URL must be an http\(s\) URL/);
  });

  it('reads the local webhook route\'s secrets and switches as the relay does, under either name', () => {
    const env = readEnv({ WEBHOOK_SECRET_GITHUB: 'gh-new,gh-old', RELAY_DISABLE_ERROR_TRACKER: 'true' }, '/');
    expect(env.receive.secrets.code_host).toEqual(['gh-new', 'gh-old']);
    expect([...env.receive.disabled]).toEqual(['error_tracker']);
    expect(readEnv({ RELAY_ENABLED: 'false' }, '/').receive.enabled).toBe(false);
  });

  it('takes the public origin from ORIGIN, else from the loopback bind (an IPv6 one in brackets)', () => {
    expect(readEnv({ ORIGIN: 'https://dash.example.com', HOST: '0.0.0.0' }, '/').publicOrigin).toBe('https://dash.example.com');
    expect(readEnv({ HOST: 'localhost', PORT: '4100' }, '/').publicOrigin).toBe('http://localhost:4100');
    expect(readEnv({ HOST: '::1' }, '/').publicOrigin).toBe('http://[::1]:3000');
    expect(readEnv({ HOST: '[::1]' }, '/').publicOrigin).toBe('http://[::1]:3000');
  });

  it('reads the extra allowed hosts as a lowercase list', () => {
    const env = readEnv({ DASHBOARD_ALLOWED_HOSTS: ' Dash.Internal, .example.com ,', ORIGIN: 'https://dash.example.com' }, '/');
    expect(env.DASHBOARD_ALLOWED_HOSTS).toEqual(['dash.internal', '.example.com']);
  });

  it('is remote on a loopback HOST when ORIGIN or an allowed host is beyond this machine (a reverse proxy in front)', () => {
    for (const HOST of ['127.0.0.1', '::1', 'localhost']) {
      expect(readEnv({ HOST, ORIGIN: 'https://dash.example.com' }, '/').mode).toBe('remote');
      expect(readEnv({ HOST, ORIGIN: 'http://192.168.1.10:3000' }, '/').mode).toBe('remote');
      expect(readEnv({ HOST, ORIGIN: 'https://dash.example.com', DASHBOARD_ALLOWED_HOSTS: 'localhost' }, '/').mode).toBe('remote');
      expect(readEnv({ HOST, ORIGIN: 'http://localhost:3000', DASHBOARD_ALLOWED_HOSTS: 'dash.example.com' }, '/').mode).toBe('remote');
      expect(readEnv({ HOST, ORIGIN: 'http://localhost:3000', DASHBOARD_ALLOWED_HOSTS: '.example.com' }, '/').mode).toBe('remote');
    }
    // Loopback all the way stays local: the address, ORIGIN and every allowed name.
    expect(readEnv({ HOST: '127.0.0.1', ORIGIN: 'http://localhost:3000', DASHBOARD_ALLOWED_HOSTS: 'dash.localhost,.localhost,127.0.0.2,[::1]' }, '/').mode).toBe('local');
    expect(readEnv({ HOST: '127.0.0.1', ORIGIN: 'http://[::1]:3000' }, '/').mode).toBe('local');
    // An allowed host beyond this machine without ORIGIN: remote, so the address people open is needed.
    expect(() => readEnv({ HOST: '127.0.0.1', DASHBOARD_ALLOWED_HOSTS: 'dash.example.com' }, '/')).toThrow(
      /ORIGIN: DASHBOARD_ALLOWED_HOSTS serves dash\.example\.com, beyond this machine .*set ORIGIN/,
    );
  });

  it("refuses adapter-node's other listeners (a Unix socket, socket activation), saying to use HOST and PORT", () => {
    expect(unsupportedListener({})).toBeUndefined();
    expect(unsupportedListener({ SOCKET_PATH: '', LISTEN_FDS: ' ' })).toBeUndefined();
    expect(unsupportedListener({ SOCKET_PATH: '/run/dash.sock' })).toMatch(/^SOCKET_PATH is adapter-node's, which this dashboard does not use: it listens on HOST and PORT/);
    expect(unsupportedListener({ LISTEN_PID: '1', LISTEN_FDS: '1' })).toMatch(/^LISTEN_PID and LISTEN_FDS are adapter-node's/);
  });

  it('turns the demo on with 1 or true and refuses anything else, naming the variable', () => {
    expect(readEnv({ DEMO: '1' }, '/').DEMO).toBe(true);
    expect(readEnv({ DEMO: 'true' }, '/').DEMO).toBe(true);
    expect(() => readEnv({ DEMO: 'yes' }, '/')).toThrow(/^Invalid environment: DEMO: /);
  });

  it('reads the backup secret as a rotation list and the interval as a duration, refusing what it cannot read', () => {
    expect(readEnv({ BACKUP_SECRET: 'new, old' }, '/').BACKUP_SECRET).toEqual(['new', 'old']);
    expect(readEnv({ BACKUP_INTERVAL: '6h' }, '/').BACKUP_INTERVAL).toEqual({ text: '6h', ms: 6 * 3_600_000 });
    expect(readEnv({ HISTORY_SNAPSHOTS: 'off' }, '/').HISTORY_SNAPSHOTS).toBe(false);
    expect(readEnv({ HISTORY_SNAPSHOTS: ' On ' }, '/').HISTORY_SNAPSHOTS).toBe(true);
    expect(() => readEnv({ HISTORY_SNAPSHOTS: 'no' }, '/')).toThrow(/HISTORY_SNAPSHOTS is on or off/);
    expect(readEnv({ WEBHOOK_BODY_RETENTION_HOURS: '0' }, '/').WEBHOOK_BODY_RETENTION_HOURS).toBe(0);
    expect(readEnv({ WEBHOOK_BODY_RETENTION_HOURS: '168' }, '/').WEBHOOK_BODY_RETENTION_HOURS).toBe(168);
    for (const bad of ['169', '-1', '1.5', 'a day']) expect(() => readEnv({ WEBHOOK_BODY_RETENTION_HOURS: bad }, '/'), bad).toThrow(/WEBHOOK_BODY_RETENTION_HOURS is a (whole )?number of hours/);
    expect(readEnv({ BACKUP_INTERVAL: '1h30m' }, '/').BACKUP_INTERVAL?.ms).toBe(90 * 60_000);
    expect(() => readEnv({ BACKUP_INTERVAL: 'every 6 hours' }, '/')).toThrow(/BACKUP_INTERVAL: BACKUP_INTERVAL is a duration of at least a minute/);
    expect(() => readEnv({ BACKUP_INTERVAL: '30s' }, '/')).toThrow(/BACKUP_INTERVAL/);
    expect(() => readEnv({ ALERT_EMAIL_TO: 'me@example.com, not-an-address' }, '/')).toThrow(/ALERT_EMAIL_TO must be email addresses/);
  });

  it('takes a VAPID pair together with a mailto: or https: subject, and refuses half a pair or another shape', () => {
    const publicKey = `B${'A'.repeat(86)}`;
    const privateKey = 'A'.repeat(43);
    expect(readEnv({ VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey, VAPID_SUBJECT: 'mailto:ops@example.com' }, '/')).toMatchObject({
      VAPID_PUBLIC_KEY: publicKey,
      VAPID_PRIVATE_KEY: privateKey,
      VAPID_SUBJECT: 'mailto:ops@example.com',
    });
    expect(readEnv({ VAPID_SUBJECT: 'https://dash.example.com' }, '/').VAPID_SUBJECT).toBe('https://dash.example.com');
    expect(() => readEnv({ VAPID_PUBLIC_KEY: publicKey }, '/')).toThrow(/VAPID_PRIVATE_KEY: set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY together/);
    expect(() => readEnv({ VAPID_PRIVATE_KEY: privateKey }, '/')).toThrow(/VAPID_PUBLIC_KEY: set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY together/);
    expect(() => readEnv({ VAPID_PUBLIC_KEY: 'A'.repeat(87), VAPID_PRIVATE_KEY: privateKey }, '/')).toThrow(/uncompressed P-256 public key/);
    expect(() => readEnv({ VAPID_SUBJECT: 'http://dash.example.com' }, '/')).toThrow(/VAPID_SUBJECT is a mailto: address or an https: URL/);
  });
});
