import {
  cachedCaller,
  createCaller,
  createContext,
  CredentialVault,
  installationOf,
  redisCoordination,
  resolveCredentialsKey,
  resumeDemo,
  Runtime,
  startDemo,
  type Caller,
  type Context,
  type DemoProvider,
  type EnvPassword,
  type Logger,
  type RedisCoordination,
  type RequestInfo,
} from '@dash/api';
import { demoSetup, demoUpstreamsOf, startSandbox, type Sandbox } from '@dash/sandbox';
import { dev } from '$app/environment';
import { env as rawEnv } from '$env/dynamic/private';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readEnv, type Env } from './env.ts';

// `vite dev` runs in apps/web: relative paths name the same files there as under `npm start` (the repo root).
const pathsBase = dev ? fileURLToPath(new URL('../../../../..', import.meta.url)) : process.cwd();

const log: Logger = {
  info: (message) => console.log(`[dashboard] ${message}`),
  warn: (message) => console.warn(`[dashboard] ${message}`),
  error: (message) => console.error(`[dashboard] ${message}`),
};

let sandbox: Promise<Sandbox> | undefined;

/** The demo's upstreams: the sandbox's fake services, started in this process the first time they are needed. */
const demo: DemoProvider = {
  async setup() {
    sandbox ??= startSandbox().then((started) => {
      log.info('demo: sandbox upstreams started on 127.0.0.1');
      return started;
    });
    const { services } = await sandbox;
    const upstreams = demoUpstreamsOf({ services });
    return demoSetup(upstreams);
  },
};

// server.ts is stopping: end the live streams first, so their connections can close.
process.once('dashboard:stopping', () => {
  void runtime?.then((started) => started.context.notifications.inbox.close()).catch(() => undefined);
});

// adapter-node's graceful stop: the sandbox's servers and the store would otherwise keep the process alive. Done,
// it says so ('dashboard:stopped'), and server.ts exits then.
process.once('sveltekit:shutdown', () => {
  void (async () => {
    try {
      const started = await runtime?.catch(() => undefined);
      clearInterval(pruning);
      await started?.close();
      await (await coordination?.catch(() => undefined))?.close();
      await (await sandbox)?.close();
    } catch (error) {
      log.error(`stopping: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      (process.emit.bind(process) as (event: string) => boolean)('dashboard:stopped');
    }
  })();
});

let pruning: ReturnType<typeof setInterval> | undefined;

/**
 * Retention, at start and then hourly, in whichever database serves then: the deliveries log's bodies after their day
 * (and its rows after 30 days) every hour, notifications once a day.
 */
function pruneHourly(started: Runtime<Context>) {
  let hours = 0;
  const prune = () => {
    const { inbox, deliveries } = started.context.notifications;
    void deliveries.prune().catch((error: unknown) => log.warn(`deliveries retention failed: ${(error as Error).message}`));
    if (hours++ % 24 === 0) void inbox.prune().catch((error: unknown) => log.warn(`notification retention failed: ${(error as Error).message}`));
  };
  prune();
  pruning = setInterval(prune, 60 * 60 * 1000);
  pruning.unref();
}

let env: Env | undefined;

/** The environment, read and validated once. */
export function serverEnv(): Env {
  env ??= readEnv(rawEnv, pathsBase);
  return env;
}

/** DASHBOARD_PASSWORD_FILE's password (its last line break dropped, as `echo` writes it) or DASHBOARD_PASSWORD_HASH. */
function envPassword(env: Env): EnvPassword | undefined {
  if (env.DASHBOARD_PASSWORD_HASH) return { source: 'DASHBOARD_PASSWORD_HASH', hash: env.DASHBOARD_PASSWORD_HASH };
  if (!env.DASHBOARD_PASSWORD_FILE) return undefined;
  let password: string;
  try {
    password = readFileSync(env.DASHBOARD_PASSWORD_FILE, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new Error(`DASHBOARD_PASSWORD_FILE: cannot read ${env.DASHBOARD_PASSWORD_FILE} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (password.length < 12) throw new Error(`DASHBOARD_PASSWORD_FILE: the password in ${env.DASHBOARD_PASSWORD_FILE} is shorter than 12 characters`);
  return { source: 'DASHBOARD_PASSWORD_FILE', password };
}

/** Redis for what the dashboard processes share, when REDIS_URL names one (one client for every context). */
let coordination: Promise<RedisCoordination> | undefined;

async function start(): Promise<Runtime<Context>> {
  const env = serverEnv();
  if (env.REDIS_URL) {
    coordination ??= redisCoordination(env.REDIS_URL).catch((error: unknown) => {
      coordination = undefined;
      throw error;
    });
    log.info(`shared rate limits and cache fetches: Redis at ${new URL(env.REDIS_URL).host}`);
  }
  const { key, source } = resolveCredentialsKey({ configured: env.CREDENTIALS_KEY, dataDir: env.DATA_DIR });
  if (source !== 'env') log.info(`credentials key: ${source === 'generated' ? 'generated into' : 'read from'} ${resolve(env.DATA_DIR, 'credentials.key')}`);
  const started = await Runtime.start({
    database: {
      dataDir: env.DATA_DIR,
      baseDir: pathsBase,
      migrationsDir: env.MIGRATIONS_DIR,
      vault: new CredentialVault(key),
      log,
      env: env.DATABASE_URL === undefined ? undefined : { url: env.DATABASE_URL, authToken: env.DATABASE_AUTH_TOKEN },
    },
    // Every context (the first, and a new one after a database switch or an import) polls and resumes the demo.
    async build(store, database) {
      const ctx = await createContext({
        store,
        credentialsKey: key,
        log,
        demo,
        database,
        access: { mode: env.mode, origin: env.publicOrigin, envPassword: envPassword(env), dataDir: env.DATA_DIR },
        relay: { url: env.WEBHOOK_RELAY_URL, secret: env.RELAY_POLL_SECRET, receive: env.receive, bodyRetentionMs: env.WEBHOOK_BODY_RETENTION_HOURS * 3_600_000 },
        backup: { interval: env.BACKUP_INTERVAL, httpEnabled: env.BACKUP_SECRET.length > 0 },
        historyKeeper: env.HISTORY_SNAPSHOTS,
        cliLocations: env.cli,
        // Keyed by this database's installation id: another dashboard on the same Redis keeps to its own keys.
        ...(coordination ? { coordination: (await coordination).scope(await installationOf(store)) } : {}),
        email: { SENDGRID_API_KEY: env.SENDGRID_API_KEY, ALERT_EMAIL_FROM: env.ALERT_EMAIL_FROM, ALERT_EMAIL_TO: env.ALERT_EMAIL_TO, SENDGRID_API_URL: env.SENDGRID_API_URL },
        push: { VAPID_PUBLIC_KEY: env.VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY: env.VAPID_PRIVATE_KEY, VAPID_SUBJECT: env.VAPID_SUBJECT, PUSH_ALLOW_PRIVATE_ENDPOINTS: env.PUSH_ALLOW_PRIVATE_ENDPOINTS },
        chat: { CHAT_SLACK_URL: env.CHAT_SLACK_URL, CHAT_DISCORD_URL: env.CHAT_DISCORD_URL, CHAT_TELEGRAM_URL: env.CHAT_TELEGRAM_URL },
      });
      ctx.notifications.poller.start();
      if (await resumeDemo(ctx)) log.info('demo: resumed; its credentials point at this process’s sandbox');
      return ctx;
    },
  });
  const { manager } = started.context.database ?? {};
  const status = manager?.status();
  if (status) log.info(`store: ${status.serving.provider} (${status.serving.description}), from ${status.source === 'env' ? 'DATABASE_URL' : status.source === 'dashboard' ? 'the choice made in Settings → Database' : 'the default'}`);
  pruneHourly(started);
  const ctx = started.context;
  if (env.mode === 'local' && !(await ctx.access.required())) {
    log.warn('no password is set: anyone using this computer can open the dashboard (set one in Settings → Security)');
  }
  // A resumed demo has its projects back already.
  if (env.DEMO && (await ctx.store.projects.list()).length === 0) await startDemo(ctx);
  return started;
}

let runtime: Promise<Runtime<Context>> | undefined;

/** The server process's runtime: store opened (and migrated where the dashboard does that), credentials key resolved. */
function getRuntime(): Promise<Runtime<Context>> {
  runtime ??= start().catch((error: unknown) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
}

/** The context serving now (a new one after a database switch or an import). */
export async function getContext(): Promise<Context> {
  return (await getRuntime()).context;
}

/** The procedures for one request (loads, form actions, the REST adapter), knowing who asks. */
export async function callerFor(request: RequestInfo, signal?: AbortSignal): Promise<Caller> {
  return createCaller({ ...(await getContext()), request }, signal);
}

/** The procedures for one request's first render, reading the data cache alone (see `cachedCaller`). */
export async function cachedCallerFor(request: RequestInfo): Promise<ReturnType<typeof cachedCaller>> {
  return cachedCaller({ ...(await getContext()), request });
}
