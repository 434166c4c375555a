import {
  authTableNames,
  DUMP_VERSION,
  dumpSchema,
  dumpTableNames,
  isAuthSettingKey,
  jsonDepth,
  type Dump,
  type DumpTableName,
  type DumpTables,
  type ImportResult,
} from '@dash/contracts';
import type { Store } from '@dash/db';
import { TRPCError } from '@trpc/server';
import type { CredentialVault } from '../credentials/vault.ts';
import { exportedSettings, opensChannelSecret } from '../channels/stored.ts';
import { endpointRef, isEndpointRef } from '../push/adapter.ts';
import type { Logger } from '../logger.ts';
import type { DatabaseHandle } from './runtime.ts';
import { INSTALLATION_META } from '../data/shared.ts';
import { historyChanged } from '../history/memo.ts';

/** What an export reads: the store's settings and tables, and which database serves them. */
export interface DumpSources {
  store: Pick<Store, 'settings' | 'transfer'>;
  database?: Pick<DatabaseHandle, 'manager'> | undefined;
}

/** What an import uses besides: the vault (each sealed value must open with this key), the cache it empties, the reload, the log. */
export interface RestoreTargets {
  store: Pick<Store, 'transfer' | 'cache'>;
  vault: Pick<CredentialVault, 'open'>;
  database?: Pick<DatabaseHandle, 'reload'> | undefined;
  log: Logger;
}

/** The dump's issues, at most this many (a hostile dump could otherwise earn an answer as big as itself). */
const MAX_ISSUES = 50;
/** Nothing the dashboard stores nests deeper; checked before the schema walks the dump. */
const MAX_DEPTH = 48;
const MAX_ROWS_PER_TABLE = 200_000;

/** A `user_settings` row of a store-internal value (`Store.meta`). */
const META = 'meta:';
/** The marker that tells which key sealed a store's credentials: each dashboard keeps its own. */
const KEY_CHECK = `${META}credentialsKeyCheck`;
/** This installation's id (see installationOf): a copy of another dashboard's data keeps its own. */
const INSTALLATION = `${META}${INSTALLATION_META}`;
/** A value sealed by the credentials vault: `v1.<iv>.<tag>.<body>`. */
const SEALED = /^v1\.[\w-]+\.[\w-]+\.[\w-]*$/;

/** The dump's problems, for the 400 answer (zod's, or ours before zod could run). */
class InvalidDumpError extends Error {
  constructor(readonly issues: { path: (string | number)[]; message: string }[]) {
    super('Invalid dump');
  }
}

/** A 400 with `message`; with `issues`, the answer lists them (and its message sums the first up). */
const invalid = (message: string, issues: InvalidDumpError['issues'] = []) =>
  new TRPCError({ code: 'BAD_REQUEST', message, ...(issues.length > 0 ? { cause: new InvalidDumpError(issues.slice(0, MAX_ISSUES)) } : {}) });

/** The tables of a dump without any sign-in material: no password hash, session, API token or `meta:auth…` row. */
function withoutAuth(tables: DumpTables): DumpTables {
  const kept: DumpTables = { ...tables };
  for (const name of authTableNames) delete kept[name];
  if (kept.user_settings) kept.user_settings = kept.user_settings.filter((row) => !isAuthSettingKey(row.key));
  return kept;
}

/**
 * The tables of a dump without what destinations answered (a push device's or chat connection's `lastFailure`, the
 * reason in a connection's `attention`, which becomes `notice`): the owner's to read, not an API token's.
 */
export function withoutDestinationFailures(tables: DumpTables, notice: string): DumpTables {
  return {
    ...tables,
    ...(tables.push_subscriptions ? { push_subscriptions: tables.push_subscriptions.map((row) => ({ ...row, lastFailure: null })) } : {}),
    ...(tables.channel_connections
      ? { channel_connections: tables.channel_connections.map((row) => ({ ...row, lastFailure: null, attention: row.attention === null ? null : notice })) }
      : {}),
  };
}

/**
 * Everything needed to rebuild the dashboard's data, credentials still sealed; the cache and every sign-in material
 * (the password's hash, sessions, API tokens) stay out: an export is data, and a read token may download it.
 */
export async function exportDump(ctx: DumpSources): Promise<Dump> {
  const [settings, tables] = await Promise.all([ctx.store.settings.get(), ctx.store.transfer.dump()]);
  return {
    version: DUMP_VERSION,
    provider: ctx.database?.manager.servingProvider ?? 'sqlite',
    exportedAt: new Date().toISOString(),
    settings,
    tables: withoutAuth(withoutClearDestinations(tables)),
  };
}

/**
 * The tables with no destination in clear: what lets someone read or post to one (a push endpoint, an ntfy topic, a
 * webhook's URL) is sealed at each start; a row this dashboard's key could not seal (the key does not match) leaves
 * it out here, keeping the reference and what the list shows.
 */
function withoutClearDestinations(tables: Required<DumpTables>): Required<DumpTables> {
  return {
    ...tables,
    push_subscriptions: tables.push_subscriptions.map((row) => (isEndpointRef(row.endpoint) ? row : { ...row, endpoint: endpointRef(row.endpoint) })),
    channel_connections: tables.channel_connections.map((row) => ({ ...row, settings: exportedSettings(row.settings) })),
  };
}

/**
 * Checks a dump whole before anything is written: cheap structural limits first (no schema walk over a hostile
 * shape), a newer version refused by name, then the schema. Answers the parsed dump.
 */
export function parseDump(raw: unknown): Dump {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid('An export dump is a JSON object: { version, provider, settings, tables }');
  const { version, tables } = raw as Record<string, unknown>;
  if (typeof version === 'number' && version > DUMP_VERSION) {
    throw invalid(`This dump is version ${version}, newer than this dashboard reads (${DUMP_VERSION}): update the dashboard, then import it`);
  }
  if (typeof tables === 'object' && tables !== null) {
    for (const [name, rows] of Object.entries(tables)) {
      if (Array.isArray(rows) && rows.length > MAX_ROWS_PER_TABLE) {
        throw invalid(`tables.${name} has ${rows.length} rows; a dump holds at most ${MAX_ROWS_PER_TABLE} per table`);
      }
    }
  }
  if (jsonDepth(raw, MAX_DEPTH) > MAX_DEPTH) throw invalid(`The dump nests deeper than ${MAX_DEPTH} levels; an export never does`);
  const parsed = dumpSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: issue.path.map((part) => (typeof part === 'number' ? part : String(part))),
      message: issue.message,
    }));
    const first = issues[0];
    throw invalid(`Invalid dump: ${first ? `${first.path.join('.')}: ${first.message}` : 'it does not match the export format'}`, issues);
  }
  return parsed.data;
}

/**
 * Imports a dump: what it holds replaces each of its tables, in one transaction, except what cannot or should not
 * come along, which is skipped and named: credentials (and sealed settings such as the relay's secret) sealed with
 * another credentials key, this dashboard’s own key marker and installation id, and every sign-in material (the password, sessions,
 * API tokens, `meta:auth…` rows; an older export carries some): an import never changes who can sign in, and this
 * dashboard's own stay as they are. `dryRun` answers the same without writing.
 */
export async function importDump(ctx: RestoreTargets, dump: Dump, { dryRun }: { dryRun: boolean }): Promise<ImportResult> {
  const skipped: ImportResult['skipped'] = [];
  /** Whether this dashboard's key opens a sealed value (another key, or a damaged value, does not). */
  const opens = (name: string, sealed: string) => {
    try {
      ctx.vault.open(name, sealed);
      return true;
    } catch {
      return false;
    }
  };
  const otherKey = 'sealed with another credentials key: save it again in Settings';

  const tables: DumpTables = { ...dump.tables };
  // Sign-in material is never written by an import, whatever the dump holds.
  const signIns = { auth_owner: 'password', auth_session: 'sessions', api_token: 'API tokens' } as const;
  for (const table of authTableNames) {
    if (tables[table] === undefined) continue;
    if (tables[table].length > 0) skipped.push({ table, key: signIns[table], reason: 'sign-in data never comes in with an import: this dashboard’s stays' });
    delete tables[table];
  }
  if (tables.credentials) {
    tables.credentials = tables.credentials.filter((row) => {
      const ok = opens(row.key, row.sealed);
      if (!ok) skipped.push({ table: 'credentials', key: row.key, reason: otherKey });
      return ok;
    });
  }
  if (tables.push_subscriptions) {
    // A device's keys sealed with another key cannot be opened here: the device subscribes again.
    tables.push_subscriptions = tables.push_subscriptions.filter((row) => {
      const ok = row.sealedKeys === '' || opens(`push:${row.id}`, row.sealedKeys);
      if (!ok) skipped.push({ table: 'push_subscriptions', key: row.name, reason: 'its keys are sealed with another credentials key: subscribe the device again' });
      return ok;
    });
  }
  if (tables.channel_connections) {
    // A connection's secret sealed with another key cannot be opened here: the connection is added again.
    tables.channel_connections = tables.channel_connections.filter((row) => {
      const ok = opensChannelSecret(row, opens);
      if (!ok) skipped.push({ table: 'channel_connections', key: row.name, reason: 'its secret is sealed with another credentials key: add the connection again' });
      return ok;
    });
  }
  // This dashboard's key marker and sign-in state stay as they are: no settings of the user's, not counted as ones.
  const mine = (key: string) => key === KEY_CHECK || key === INSTALLATION;
  const own = tables.user_settings ? (await ctx.store.transfer.dump()).user_settings.filter((row) => mine(row.key) || isAuthSettingKey(row.key)) : [];
  if (tables.user_settings) {
    tables.user_settings = tables.user_settings.filter((row) => {
      if (mine(row.key)) return false;
      if (isAuthSettingKey(row.key)) {
        skipped.push({ table: 'user_settings', key: row.key.slice(META.length), reason: 'sign-in data never comes in with an import: this dashboard’s stays' });
        return false;
      }
      if (!row.key.startsWith(META) || typeof row.value !== 'string' || !SEALED.test(row.value)) return true;
      const ok = opens(row.key.slice(META.length), row.value);
      if (!ok) skipped.push({ table: 'user_settings', key: row.key.slice(META.length), reason: otherKey });
      return ok;
    });
  }

  const names = dumpTableNames.filter((name) => tables[name] !== undefined);
  const before = await ctx.store.transfer.counts();
  const markerHere = (name: DumpTableName) => (name === 'user_settings' ? own.length : 0);
  const result: ImportResult = {
    dryRun,
    imported: Object.fromEntries(names.map((name) => [name, (tables[name] as unknown[]).length])),
    replaced: Object.fromEntries(names.map((name) => [name, before[name] - markerHere(name)])),
    skipped,
  };
  if (dryRun) return result;
  // The rows of user_settings are replaced: the marker and the sign-in state go back in with them, as they were.
  if (tables.user_settings) tables.user_settings = [...tables.user_settings, ...own];
  await ctx.store.transfer.restore(tables);
  // The history's answers kept in memory were of the rows replaced.
  historyChanged(ctx.store);
  // What was fetched for the old projects is not theirs; every process-wide copy goes with the context.
  await ctx.store.cache.clear();
  await ctx.database?.reload();
  ctx.log.info(`database: imported a dump (${names.map((name) => `${result.imported[name]} ${name}`).join(', ')}${skipped.length ? `; ${skipped.length} skipped` : ''})`);
  return result;
}

