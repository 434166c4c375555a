import { createCaller, createContext, resolveCredentialsKey, type Caller, type Context, type Logger } from '@dash/api';
import { openStore, redactDatabaseUrl } from '@dash/db';
import { resolve } from 'node:path';
import { readEnv } from './env.ts';

const log: Logger = {
  info: (message) => console.log(`[dashboard] ${message}`),
  warn: (message) => console.warn(`[dashboard] ${message}`),
  error: (message) => console.error(`[dashboard] ${message}`),
};

async function start(): Promise<Context> {
  const env = readEnv();
  const store = await openStore({
    url: env.DATABASE_URL,
    authToken: env.DATABASE_AUTH_TOKEN,
    migrationsDir: resolve(env.MIGRATIONS_DIR),
  });
  log.info(`store: ${store.dialect} at ${redactDatabaseUrl(env.DATABASE_URL)}, migrations applied`);
  const { key, source } = resolveCredentialsKey({ configured: env.CREDENTIALS_KEY, dataDir: resolve(env.DATA_DIR) });
  if (source !== 'env') log.info(`credentials key: ${source === 'generated' ? 'generated into' : 'read from'} ${resolve(env.DATA_DIR, 'credentials.key')}`);
  return createContext({ store, credentialsKey: key, log });
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

/** Procedures for server-side loads. */
export async function getCaller(): Promise<Caller> {
  return createCaller(await getContext());
}
