import { existsSync } from 'node:fs';
import {
  authTableNames,
  databaseChoiceSchema,
  databaseProviderNames,
  type DatabaseChoice,
  type DatabaseConfigInput,
  type DatabaseConfigResult,
  type DatabaseMigrateResult,
  type DatabaseProvider,
  type DatabaseStatus,
  type DatabaseTestResult,
  isAuthSettingKey,
  type TableCounts,
  type TablesState,
} from '@dash/contracts';
import { migrationStatements, migrationsOf, openStore, redactDatabaseUrl, tablesState, type Store, type StoreOptions } from '@dash/db';
import { TRPCError } from '@trpc/server';
import type { Logger } from '../logger.ts';
import type { CredentialVault } from '../credentials/vault.ts';
import { fail } from '../errors.ts';
import { ChoiceFile, type Choices } from './choice-file.ts';
import { describeChoice, describeUrl, providerOfUrl, refusedTarget, sqliteFile, storeOptionsOf, withoutSecrets, type ProviderPaths } from './providers.ts';

/** How long a test or a switch waits for a database to answer. */
const CONNECT_TIMEOUT_MS = 15_000;

const DEFAULT_CHOICE: DatabaseChoice = { provider: 'sqlite', config: {} };

export interface DatabaseManagerOptions extends ProviderPaths {
  vault: CredentialVault;
  log: Logger;
  /** `DATABASE_URL` (and its token) when set: it decides at every start, and the dashboard cannot change it. */
  env?: { url: string; authToken?: string | undefined } | undefined;
}

/** What a database holds, as a test finds it. */
interface Inspection {
  tables: TablesState;
  lastMigration: number | undefined;
  /** Rows of the dashboard's data; counted only when the tables are current. */
  rows: number;
}

/** Where the statements of `migrate` go, per provider that runs none itself. */
const whereToRun: Partial<Record<DatabaseProvider, string>> = {
  hosted_db_1: 'Supabase → your project → SQL Editor → New query: paste, Run, then Check again here.',
  hosted_db_3: 'PlanetScale → your database → Console (on the branch these credentials belong to): paste, run, then Check again here.',
};

const sum = (counts: TableCounts) => Object.values(counts).reduce((total, n) => total + n, 0);

/** A promise that fails with a clear message when `ms` pass first. */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Which database the dashboard stores in, and moving to another one: the choice (kept in the data directory,
 * sealed), testing a provider, its tables (run here, or the SQL to run by hand), and the switch itself, which
 * happens only once the target answers and its tables are current, copying the data there or using what it holds.
 * `adopt` is how the dashboard starts serving from a new store (a new context over it, without a restart).
 */
export class DatabaseManager {
  private readonly file: ChoiceFile;
  private choices: Choices;
  /** Why the chosen database does not serve yet, as the last attempt found. */
  private problem: string | null = null;
  /** One switch at a time. */
  private switching: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly options: DatabaseManagerOptions,
    file: ChoiceFile,
    private adopt: (store: Store) => Promise<void>,
  ) {
    this.file = file;
    // DATABASE_URL decides alone: a choice file left from before is not read.
    const choices = options.env ? { serving: null, chosen: null } : file.read();
    this.choices = choices;
    if (choices.chosen) this.problem = 'The switch has not been tried since the dashboard started: check again';
  }

  /**
   * Reads the choice and opens the store to serve from: `DATABASE_URL`'s when set, otherwise the one switched to
   * last, otherwise the embedded default. A database chosen in the dashboard is opened as it is (the switch found it
   * current); the embedded one and `DATABASE_URL`'s are migrated on the way, as at every start.
   */
  static async start(options: DatabaseManagerOptions): Promise<{ manager: DatabaseManager; store: Store }> {
    const file = new ChoiceFile(options.dataDir, options.vault);
    const manager = new DatabaseManager(options, file, () => Promise.reject(new Error('The dashboard has not started serving yet')));
    if (options.env) return { manager, store: await openStore({ url: options.env.url, authToken: options.env.authToken, migrationsDir: options.migrationsDir }) };
    const serving = manager.choices.serving ?? DEFAULT_CHOICE;
    const store = await manager.open(serving, { migrate: manager.runsMigrations(serving) });
    // The embedded file was opened and migrated above; nothing more to ask it.
    if (serving.provider === 'sqlite') return { manager, store };
    try {
      // A hosted database opens lazily: ask it now, so that a start against one that is away says which and why.
      await within(CONNECT_TIMEOUT_MS, databaseProviderNames[serving.provider], store.lastMigration());
    } catch (error) {
      await store.close().catch(() => undefined);
      throw new Error(
        `The database chosen in Settings → Database, ${databaseProviderNames[serving.provider]} (${describeChoice(serving, options)}), ` +
          `cannot be reached: ${manager.reason(error, serving)}. Start again once it answers, or remove ${manager.file.path} to start on the embedded database.`,
      );
    }
    return { manager, store };
  }

  /** How a switch hands the new store over; set once the dashboard serves. */
  onSwitch(adopt: (store: Store) => Promise<void>): void {
    this.adopt = adopt;
  }

  /** The provider serving now. */
  get servingProvider(): DatabaseProvider {
    return this.options.env ? providerOfUrl(this.options.env.url) : (this.choices.serving ?? DEFAULT_CHOICE).provider;
  }

  status(): DatabaseStatus {
    const { env } = this.options;
    if (env) {
      const target = { provider: providerOfUrl(env.url), description: describeUrl(env.url) };
      return { ...target, configured: true, source: 'env', serving: target, problem: null, data: null };
    }
    const serving = this.choices.serving ?? DEFAULT_CHOICE;
    const chosen = this.choices.chosen ?? serving;
    return {
      provider: chosen.provider,
      configured: this.choices.chosen === null,
      source: this.choices.serving || this.choices.chosen ? 'dashboard' : 'default',
      description: describeChoice(chosen, this.options),
      serving: { provider: serving.provider, description: describeChoice(serving, this.options) },
      problem: this.choices.chosen ? this.problem : null,
      data: this.choices.chosen?.data ?? null,
    };
  }

  /** Connects to a provider (the config given, or the one saved for it) and says what it found; never throws for the engine's reasons. */
  async test(input: Pick<DatabaseConfigInput, 'provider' | 'config'>): Promise<DatabaseTestResult> {
    const choice = await this.resolveGuarded(input);
    try {
      const { tables, rows } = await this.inspect(choice);
      return { success: true, tables, rows };
    } catch (error) {
      return { success: false, error: this.reason(error, choice) };
    }
  }

  /**
   * Brings the chosen database's tables up to date: SQLite and Turso here; for Supabase and PlanetScale, the SQL that
   * would, to run in their consoles (the dashboard's database user there may not own the schema, and pooled
   * connections make poor migrators), only what the database lacks when it answers, everything when it does not.
   */
  async migrate(): Promise<DatabaseMigrateResult> {
    if (this.options.env) {
      // DATABASE_URL's database was migrated at start, by the dashboard itself: nothing is left to run.
      const provider = this.servingProvider;
      const runsHere = provider === 'sqlite' || provider === 'hosted_db_2';
      return runsHere ? { migrated: true, provider } : { migrated: false, provider, statements: [], where: whereToRun[provider] ?? '' };
    }
    const choice = this.choices.chosen ?? this.choices.serving ?? DEFAULT_CHOICE;
    const { provider } = choice;
    if (provider === 'sqlite' || provider === 'hosted_db_2') {
      try {
        const store = await this.open(choice, { migrate: true });
        await store.close();
      } catch (error) {
        throw fail('BAD_GATEWAY', `${databaseProviderNames[provider]}: ${this.reason(error, choice)}`);
      }
      if (this.choices.chosen) this.problem = 'Its tables are ready: check again to switch';
      return { migrated: true, provider };
    }
    let lastMigration: number | undefined;
    try {
      lastMigration = (await this.inspect(choice)).lastMigration;
    } catch {
      // Unreachable from here: everything, which is what an empty database needs.
      lastMigration = undefined;
    }
    const dialect = provider === 'hosted_db_1' ? 'postgres' : 'mysql';
    const statements = migrationStatements(dialect, this.options.migrationsDir, lastMigration, { rowLevelSecurity: provider === 'hosted_db_1' });
    return { migrated: false, provider, statements, where: whereToRun[provider] ?? '' };
  }

  /**
   * Chooses a provider and switches to it when it can: the choice is saved first (so it survives a restart, and
   * "check again" needs no password typed twice), then the target is opened and checked; with its tables current
   * and `data` chosen, the data is copied there in one transaction (refused when the target holds data, unless
   * `replace`) or the target's own is used, and the dashboard serves from it from then on.
   */
  choose(input: DatabaseConfigInput, current: Store): Promise<DatabaseConfigResult> {
    const run = this.switching.then(() => this.chooseNow(input, current));
    this.switching = run.catch(() => undefined);
    return run;
  }

  private async chooseNow(input: DatabaseConfigInput, current: Store): Promise<DatabaseConfigResult> {
    if (this.options.env) {
      throw fail(
        'CONFLICT',
        'DATABASE_URL is set, and it chooses the database at every start: remove it from the environment (and restart) to choose the database here',
      );
    }
    const choice = await this.resolveGuarded(input);
    const serving = this.choices.serving ?? DEFAULT_CHOICE;
    if (sameChoice(choice, serving, this.options)) {
      // Back to what serves: nothing to switch, and whatever waited is dropped.
      this.save({ serving: this.choices.serving, chosen: null });
      return { ...this.status(), switched: false, copied: null };
    }
    const data = input.data ?? (sameChoice(choice, this.choices.chosen, this.options) ? (this.choices.chosen?.data ?? null) : null);
    this.save({ serving: this.choices.serving, chosen: { ...choice, data } });

    let target: Store;
    try {
      target = await within(CONNECT_TIMEOUT_MS, databaseProviderNames[choice.provider], this.open(choice, { migrate: this.runsMigrations(choice) }));
    } catch (error) {
      return this.waiting(`Cannot open ${databaseProviderNames[choice.provider]}: ${this.reason(error, choice)}`);
    }
    let adopted = false;
    try {
      const state = tablesState(await within(CONNECT_TIMEOUT_MS, databaseProviderNames[choice.provider], target.lastMigration()), this.migrations(choice));
      if (state !== 'current') return this.waiting(this.tablesProblem(choice.provider, state));
      if (data === null) {
        return this.waiting('Choose what the switch does with the data: copy this dashboard’s data there, or use the data already there');
      }
      const copied = data === 'copy' ? await this.copy(current, target, input.replace === true, choice) : null;
      // Who may sign in comes along, whatever the target held: a switch never drops the password, nor lets a prepared
      // database bring an owner, sessions or tokens of its own.
      if (data === 'use') await carrySignIns(current, target);
      // Served first, then written down: a context that cannot be built over the target leaves the choice waiting.
      await this.adopt(target);
      adopted = true;
      this.save({ serving: choice, chosen: null });
      this.problem = null;
      this.options.log.info(`store: switched to ${databaseProviderNames[choice.provider]} (${describeChoice(choice, this.options)})${copied ? ', data copied' : ', using its data'}`);
      return { ...this.status(), switched: true, copied };
    } catch (error) {
      if (error instanceof TRPCError) throw error;
      return this.waiting(`${databaseProviderNames[choice.provider]}: ${this.reason(error, choice)}`);
    } finally {
      if (!adopted) await target.close().catch(() => undefined);
    }
  }

  /** Copies every row of `from` into `to` in one transaction: all or nothing. */
  private async copy(from: Store, to: Store, replace: boolean, choice: DatabaseChoice): Promise<TableCounts> {
    const there = await to.transfer.counts();
    if (sum(there) > 0 && !replace) {
      const held = Object.entries(there)
        .filter(([, n]) => n > 0)
        .map(([table, n]) => `${n} ${table === 'user_settings' ? 'settings' : table.replace(/_/g, ' ')}`)
        .join(', ');
      throw fail(
        'CONFLICT',
        `${databaseProviderNames[choice.provider]} already holds data (${held}): confirm replacing it (replace: true), or use the data already there (data: "use")`,
      );
    }
    const dump = await from.transfer.dump();
    await to.transfer.restore(dump);
    return Object.fromEntries(Object.entries(dump).map(([table, rows]) => [table, rows.length]));
  }

  /** Keeps the choice waiting, saying why. */
  private waiting(problem: string): DatabaseConfigResult {
    this.problem = problem;
    return { ...this.status(), switched: false, copied: null };
  }

  private tablesProblem(provider: DatabaseProvider, state: TablesState): string {
    const what = state === 'missing' ? 'Its tables do not exist yet' : 'Its tables are from an older version of the dashboard';
    return provider === 'hosted_db_2'
      ? `${what}: create them with Migrate, then check again`
      : `${what}: run the SQL that Migrate shows in ${provider === 'hosted_db_1' ? 'Supabase’s SQL editor' : 'PlanetScale’s console'}, then check again`;
  }

  /**
   * The choice an input names, as `resolve`; a config given in the request must also point where the dashboard may
   * go: a SQLite file inside the data directory, a host that is not link-local or cloud metadata (as upstreams). A
   * saved host is checked again (its name may resolve elsewhere by now); a saved file is where it was allowed to be.
   */
  private async resolveGuarded(input: Pick<DatabaseConfigInput, 'provider' | 'config'>): Promise<DatabaseChoice> {
    const choice = this.resolve(input);
    if (input.config !== undefined || choice.provider !== 'sqlite') {
      const refused = await refusedTarget(choice, this.options);
      if (refused) throw new TRPCError({ code: 'BAD_REQUEST', message: `${refused.path.join('.')}: ${refused.message}`, cause: { issues: [refused] } });
    }
    return choice;
  }

  /** The choice an input names: its config validated, or the one saved for that provider when it has none. */
  private resolve({ provider, config }: Pick<DatabaseConfigInput, 'provider' | 'config'>): DatabaseChoice {
    if (config === undefined) {
      const saved = [this.choices.chosen, this.choices.serving, DEFAULT_CHOICE].find((choice) => choice?.provider === provider);
      if (saved) return { provider: saved.provider, config: saved.config } as DatabaseChoice;
      throw fail('BAD_REQUEST', `config: nothing is saved for ${databaseProviderNames[provider]} yet; send its config`);
    }
    // The union's issues name the field: `config.url`.
    const parsed = databaseChoiceSchema.safeParse({ provider, config });
    if (!parsed.success) throw new TRPCError({ code: 'BAD_REQUEST', message: 'Invalid config', cause: parsed.error });
    return parsed.data;
  }

  /** Opens and checks a database without changing anything there. */
  private async inspect(choice: DatabaseChoice): Promise<Inspection> {
    // A test must not create the embedded file it looks for.
    if (choice.provider === 'sqlite' && !existsSync(sqliteFile(choice.config.path, this.options))) {
      return { tables: 'missing', lastMigration: undefined, rows: 0 };
    }
    const name = databaseProviderNames[choice.provider];
    const store = await within(CONNECT_TIMEOUT_MS, name, this.open(choice, { migrate: false }));
    try {
      const lastMigration = await within(CONNECT_TIMEOUT_MS, name, store.lastMigration());
      const tables = tablesState(lastMigration, this.migrations(choice));
      const rows = tables === 'current' ? sum(await within(CONNECT_TIMEOUT_MS, name, store.transfer.counts())) : 0;
      return { tables, lastMigration, rows };
    } finally {
      await store.close().catch(() => undefined);
    }
  }

  private open(choice: DatabaseChoice, { migrate }: { migrate: boolean }): Promise<Store> {
    const options: StoreOptions = storeOptionsOf(choice, this.options, migrate);
    return openStore(options);
  }

  /** The embedded database is created and migrated on the way, as at first start; Turso's tables wait for Migrate. */
  private runsMigrations(choice: DatabaseChoice): boolean {
    return choice.provider === 'sqlite';
  }

  private migrations(choice: DatabaseChoice) {
    const dialect = choice.provider === 'hosted_db_1' ? 'postgres' : choice.provider === 'hosted_db_3' ? 'mysql' : 'sqlite';
    return migrationsOf(dialect, this.options.migrationsDir);
  }

  /**
   * The engine's own reason (with its code, ECONNREFUSED or SQLITE_…, when the message lacks it), without a secret.
   * Drizzle wraps a driver's error in one that quotes the query and its parameters (rows being copied, sealed
   * credentials among them): the reason is the innermost error's, never the wrapper's.
   */
  private reason(error: unknown, choice: DatabaseChoice): string {
    let root = error;
    while (root instanceof Error && root.cause instanceof Error) root = root.cause;
    const message = root instanceof Error ? root.message : String(root);
    const code = root instanceof Error && 'code' in root && typeof root.code === 'string' ? root.code : '';
    return redactDatabaseUrl(withoutSecrets(code && !message.includes(code) ? `${message} (${code})` : message, choice));
  }

  private save(choices: Choices) {
    this.file.write(choices);
    this.choices = choices;
  }
}

/**
 * Makes `to`'s sign-in material `from`'s, in one transaction on `to`: the owner's password, the sessions, the API
 * tokens and the `meta:auth…` rows; the rest of what `to` holds stays.
 */
async function carrySignIns(from: Store, to: Store): Promise<void> {
  const [mine, theirs] = await Promise.all([from.transfer.dump(), to.transfer.dump()]);
  const tables = Object.fromEntries(authTableNames.map((name) => [name, mine[name]]));
  await to.transfer.restore({
    ...tables,
    user_settings: [...theirs.user_settings.filter((row) => !isAuthSettingKey(row.key)), ...mine.user_settings.filter((row) => isAuthSettingKey(row.key))],
  });
}

/** Two choices name the same database (for SQLite: the same file, however its path is written). */
function sameChoice(a: DatabaseChoice, b: DatabaseChoice | null, paths: Pick<ProviderPaths, 'baseDir' | 'dataDir'>): boolean {
  if (!b || a.provider !== b.provider) return false;
  if (a.provider === 'sqlite' && b.provider === 'sqlite') return sqliteFile(a.config.path, paths) === sqliteFile(b.config.path, paths);
  const keys = new Set([...Object.keys(a.config), ...Object.keys(b.config)]);
  return [...keys].every((key) => (a.config as Record<string, unknown>)[key] === (b.config as Record<string, unknown>)[key]);
}
