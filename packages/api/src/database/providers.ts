import { isAbsolute, relative, resolve } from 'node:path';
import { isLoopbackHost, type DatabaseChoice, type DatabaseProvider } from '@dash/contracts';
import type { StoreOptions } from '@dash/db';

/** The embedded database's file when no path is given: in the data directory (`data/dashboard.db` by default). */
const DEFAULT_SQLITE_FILE = 'dashboard.db';

/** Supavisor's transaction mode: one pooled connection per transaction, so no prepared statements. */
const TRANSACTION_POOLER_PORT = '6543';

/** Where relative SQLite paths start (the dashboard's folder), the data directory, and where the migrations are. */
export interface ProviderPaths {
  baseDir: string;
  dataDir: string;
  migrationsDir: string;
}

/** How to open the store a choice names. `migrate`: bring its tables up to date on the way (only where the dashboard runs the SQL itself). */
export function storeOptionsOf(choice: DatabaseChoice, paths: ProviderPaths, migrate: boolean): StoreOptions {
  const { migrationsDir } = paths;
  switch (choice.provider) {
    case 'sqlite':
      return { url: `file:${sqliteFile(choice.config.path, paths)}`, migrationsDir, migrate };
    case 'hosted_db_1': {
      const url = new URL(choice.config.url);
      const loopback = isLoopbackHost(url.hostname);
      return {
        url: choice.config.url,
        migrationsDir,
        migrate,
        // The transaction pooler has no prepared statements; a direct or session connection keeps them.
        prepare: url.port !== TRANSACTION_POOLER_PORT,
        // Encrypted beyond this machine; a `sslmode` in the URL (verify-full with Supabase's root certificate) wins.
        ...(url.searchParams.has('sslmode') ? {} : { ssl: loopback ? false : ('require' as const) }),
      };
    }
    case 'hosted_db_2':
      return { url: choice.config.url, authToken: choice.config.authToken, migrationsDir, migrate };
    case 'hosted_db_3': {
      const { host, username, password, database } = choice.config;
      const url = `mysql://${encodeURIComponent(username)}:${encodeURIComponent(password)}@${host}/${encodeURIComponent(database ?? '')}`;
      return { url, migrationsDir, migrate };
    }
  }
}

/** The absolute path of the embedded database's file. */
export function sqliteFile(path: string | undefined, { baseDir, dataDir }: Pick<ProviderPaths, 'baseDir' | 'dataDir'>): string {
  return path === undefined ? resolve(dataDir, DEFAULT_SQLITE_FILE) : resolve(baseDir, path);
}

/** What the page shows of a choice: where it points, never a password, token or whole connection string. */
export function describeChoice(choice: DatabaseChoice, paths: Pick<ProviderPaths, 'baseDir' | 'dataDir'>): string {
  switch (choice.provider) {
    case 'sqlite': {
      const file = sqliteFile(choice.config.path, paths);
      const inside = relative(paths.baseDir, file);
      return inside.startsWith('..') || isAbsolute(inside) ? file : inside;
    }
    case 'hosted_db_1': {
      const url = new URL(choice.config.url);
      const mode = url.port === TRANSACTION_POOLER_PORT ? ' (transaction pooler)' : '';
      return `${decodeURIComponent(url.username) || 'postgres'} at ${url.host}${url.pathname}${mode}`;
    }
    case 'hosted_db_2':
      return new URL(choice.config.url).host;
    case 'hosted_db_3': {
      const { host, username, database } = choice.config;
      return `${username} at ${host}${database ? `/${database}` : ''}`;
    }
  }
}

/** The secrets of a choice, in every spelling an error message could carry them. */
function secretsOf(choice: DatabaseChoice): string[] {
  const spellings = (value: string) => [value, encodeURIComponent(value)];
  switch (choice.provider) {
    case 'sqlite':
      return [];
    case 'hosted_db_1': {
      const url = new URL(choice.config.url);
      const password = decodeURIComponent(url.password);
      return [choice.config.url, ...(password ? spellings(password) : [])];
    }
    case 'hosted_db_2':
      return [...spellings(choice.config.authToken)];
    case 'hosted_db_3':
      return spellings(choice.config.password);
  }
}

/**
 * An engine's message with the choice's secrets taken out (and any `scheme://user:password@` masked): what a test
 * answers, and what the log may see. Longest first, so a URL goes whole before its password alone.
 */
export function withoutSecrets(message: string, choice: DatabaseChoice): string {
  let text = message;
  for (const secret of secretsOf(choice).sort((a, b) => b.length - a.length)) {
    if (secret.length > 0) text = text.split(secret).join('***');
  }
  return text.replace(/([a-z][a-z\d+.-]*:\/\/[^/?#@:\s]*:)[^@\s/]+@/gi, '$1***@');
}

/** The provider a `DATABASE_URL` names, as the page shows it. */
export function providerOfUrl(url: string): DatabaseProvider {
  const scheme = /^[a-z][a-z\d+.-]*:/i.exec(url)?.[0].toLowerCase() ?? '';
  if (scheme === 'file:') return 'sqlite';
  if (scheme === 'postgres:' || scheme === 'postgresql:') return 'hosted_db_1';
  if (scheme === 'mysql:') return 'hosted_db_3';
  return 'hosted_db_2';
}

/** Where a `DATABASE_URL` points, without its credentials. */
export function describeUrl(url: string): string {
  if (url.toLowerCase().startsWith('file:')) return url.slice('file:'.length).replace(/[?#].*$/s, '');
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return '(a URL that does not parse)';
  }
}
