import { lookup } from 'node:dns/promises';
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { isIP } from 'node:net';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isRefusedAddress } from '@dash/connectors';
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

/** `path` with every symbolic link and `..` resolved, as far as it exists (the file itself may not yet). */
function realPath(path: string, depth = 0): string {
  try {
    return realpathSync(path);
  } catch {
    // A link to nothing yet is followed to where it points (the engine would create the file there).
    const link = depth < 40 && lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink();
    if (link) return realPath(resolve(dirname(path), readlinkSync(path)), depth + 1);
    const parent = dirname(path);
    return parent === path ? path : join(realPath(parent, depth), basename(path));
  }
}

/** The host a hosted choice connects to (without brackets or port). */
function hostOf(choice: Exclude<DatabaseChoice, { provider: 'sqlite' }>): string {
  if (choice.provider === 'hosted_db_3') {
    const { host } = choice.config;
    return host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
  }
  return new URL(choice.config.url).hostname.replace(/^\[|\]$/g, '');
}

/**
 * Why a database given over HTTP may not be used, with the field it names, or undefined when it may: a SQLite file
 * must lie inside the data directory (links and `..` resolved), and a host must not be, nor resolve to, a
 * link-local or cloud-metadata address (the upstreams' guard). A name that does not resolve is left to the engine,
 * which says so. `DATABASE_URL` is the operator's and is not checked.
 */
export async function refusedTarget(choice: DatabaseChoice, paths: Pick<ProviderPaths, 'baseDir' | 'dataDir'>): Promise<{ path: string[]; message: string } | undefined> {
  if (choice.provider === 'sqlite') {
    const file = realPath(sqliteFile(choice.config.path, paths));
    const inside = relative(realPath(resolve(paths.dataDir)), file);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
      const dataDir = relative(paths.baseDir, resolve(paths.dataDir));
      const shown = dataDir === '' || dataDir.startsWith('..') || isAbsolute(dataDir) ? resolve(paths.dataDir) : dataDir;
      return { path: ['config', 'path'], message: `The database file must be inside the data directory (${shown}); ${file} is not` };
    }
    return undefined;
  }
  const host = hostOf(choice);
  const field = choice.provider === 'hosted_db_3' ? ['config', 'host'] : ['config', 'url'];
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      return undefined;
    }
  }
  const refused = addresses.find((address) => isRefusedAddress(address));
  if (refused === undefined) return undefined;
  const via = refused === host ? '' : ` (${host} resolves to it)`;
  return { path: field, message: `The address ${refused} (link-local or cloud metadata) is not allowed for a database${via}` };
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
