import {
  createCaller,
  createContext,
  resolveCredentialsKey,
  resumeDemo,
  startDemo,
  type Caller,
  type Context,
  type DemoProvider,
  type Logger,
} from '@dash/api';
import { demoSetup, startSandbox, type DemoUpstreams, type Sandbox } from '@dash/sandbox';
import { openStore, redactDatabaseUrl } from '@dash/db';
import { dev } from '$app/environment';
import { env as rawEnv } from '$env/dynamic/private';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readEnv } from './env.ts';

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
    const upstreams = Object.fromEntries(Object.entries(services).map(([name, service]) => [name, service.baseUrl])) as DemoUpstreams;
    return demoSetup(upstreams);
  },
};

// adapter-node's graceful stop: the sandbox's servers and the store would otherwise keep the process alive.
process.once('sveltekit:shutdown', () => {
  void (async () => {
    await (await sandbox)?.close();
    await (await context)?.store.close();
  })();
});

async function start(): Promise<Context> {
  const env = readEnv(rawEnv, pathsBase);
  const store = await openStore({
    url: env.DATABASE_URL,
    authToken: env.DATABASE_AUTH_TOKEN,
    migrationsDir: env.MIGRATIONS_DIR,
  });
  log.info(`store: ${store.dialect} at ${redactDatabaseUrl(env.DATABASE_URL)}, migrations applied`);
  const { key, source } = resolveCredentialsKey({ configured: env.CREDENTIALS_KEY, dataDir: env.DATA_DIR });
  if (source !== 'env') log.info(`credentials key: ${source === 'generated' ? 'generated into' : 'read from'} ${resolve(env.DATA_DIR, 'credentials.key')}`);
  const ctx = await createContext({ store, credentialsKey: key, log, demo });
  if (await resumeDemo(ctx)) log.info('demo: resumed; its credentials point at this process’s sandbox');
  else if (env.DEMO && (await store.projects.list()).length === 0) await startDemo(ctx);
  return ctx;
}

let context: Promise<Context> | undefined;

/** The one context of this server process: store opened and migrated, credentials key resolved. */
export function getContext(): Promise<Context> {
  context ??= start().catch((error: unknown) => {
    context = undefined;
    throw error;
  });
  return context;
}

let caller: Promise<Caller> | undefined;

/** The procedures, for server-side loads and the REST adapter: one caller over the one context. */
export function getCaller(): Promise<Caller> {
  caller ??= getContext().then(
    (ctx) => createCaller(ctx),
    (error: unknown) => {
      caller = undefined;
      throw error;
    },
  );
  return caller;
}
