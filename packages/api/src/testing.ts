import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NotificationStreamEvent } from '@dash/contracts';
import type { Store } from '@dash/db';
import { mysqlTemplate, postgresTemplate, sqliteTemplate } from '@dash/db/testing';
import { isTrackedEnvelope } from '@trpc/server';
import type { Clock } from '@dash/connectors';
import type { AccessOptions } from './auth/access.ts';
import type { Context, DemoProvider } from './context.ts';
import type { Logger } from './logger.ts';
import { CredentialVault } from './credentials/vault.ts';
import { Runtime } from './database/runtime.ts';
import { createContext, type RelayEnvironment } from './index.ts';
import { OpenApiJudge } from './rest/conformance.ts';
import { handleRest } from './rest/index.ts';
import { openApiDocument } from './rest/openapi.ts';

export { invalidRequests, validRequests, type GeneratedRequest } from './rest/openapi-requests.ts';
import { createCaller, type Caller } from './root.ts';

export const migrationsDir = fileURLToPath(new URL('../../../drizzle', import.meta.url));

/** The databases a dashboard's tests run on. */
export type DatabaseKind = 'SQLite' | 'Postgres' | 'MySQL';

/**
 * A test file's databases, each a copy of one migrated per kind (see MigratedTemplate in @dash/db/testing), so that
 * a test does not wait for every migration to run again. `fresh(kind, dir)` gives a test an empty, migrated database
 * of its own: for SQLite the dashboard's embedded file in `dir` (where createTestApi({ dir }) finds it), otherwise a
 * `databaseUrl` for createTestApi. Its `drop` may be left running; `drop()` once the file is done (afterAll) waits
 * for those and removes the templates.
 */
export function testDatabases() {
  const sqlite = sqliteTemplate(migrationsDir);
  const servers = { Postgres: postgresTemplate(migrationsDir), MySQL: mysqlTemplate(migrationsDir) };
  return {
    async fresh(kind: DatabaseKind, dir: string): Promise<{ databaseUrl?: string; drop: () => Promise<void> }> {
      if (kind === 'SQLite') {
        await sqlite.copyTo(join(dir, 'data', 'dashboard.db'));
        // The file goes with the test's directory.
        return { drop: () => Promise.resolve() };
      }
      const database = await servers[kind].clone();
      return { databaseUrl: database.url, drop: database.drop };
    },
    async drop(): Promise<void> {
      await Promise.all([sqlite.drop(), servers.Postgres.drop(), servers.MySQL.drop()]);
    },
  };
}

/** A logger that keeps its lines, so tests can assert what reached the log. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}

/**
 * The embedded database a new dashboard starts on: a copy of one migrated once per worker process (held in memory),
 * instead of its first start running every migration, as some 340 dashboards of the unit tests did each time.
 */
let embedded: ReturnType<typeof sqliteTemplate> | undefined;

/** A real api over a fresh embedded SQLite file (or `databaseUrl`), for tests; `dispose` removes the directory. */
export async function createTestApi(
  options: {
    dir?: string;
    /** Another store than the directory's SQLite file (a scratch Postgres database). */
    databaseUrl?: string;
    credentialsKey?: Buffer;
    clock?: Clock;
    /** False: no scheduler of its own; the test calls `ctx.notifications.inbox.tick()`. */
    scheduler?: boolean;
    /** True: the metric history's keeper looks on its own (by default the test calls `ctx.history.tick()`). */
    historyKeeper?: boolean;
    demo?: DemoProvider;
    access?: AccessOptions;
    relay?: RelayEnvironment;
    fetch?: typeof fetch;
    backup?: Parameters<typeof createContext>[0]['backup'];
    rateLimits?: Parameters<typeof createContext>[0]['rateLimits'];
    email?: Parameters<typeof createContext>[0]['email'];
    push?: Parameters<typeof createContext>[0]['push'];
    chat?: Parameters<typeof createContext>[0]['chat'];
    cliLocations?: Parameters<typeof createContext>[0]['cliLocations'];
  } = {},
) {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'dash-api-'));
  // The dashboard's folder and data directory are the test's: the embedded default is `<dir>/data/dashboard.db`.
  const dbFile = join(dir, 'data', 'dashboard.db');
  // A directory with no data yet: its embedded database is a migrated copy, which the start finds current.
  if (options.databaseUrl === undefined && !existsSync(join(dir, 'data'))) await (embedded ??= sqliteTemplate(migrationsDir)).copyTo(dbFile);
  const log = memoryLogger();
  const credentialsKey = options.credentialsKey ?? randomBytes(32);
  const runtime = await Runtime.start({
    database: {
      dataDir: join(dir, 'data'),
      baseDir: dir,
      migrationsDir,
      vault: new CredentialVault(credentialsKey),
      log,
      env: options.databaseUrl === undefined ? undefined : { url: options.databaseUrl },
    },
    build: (store, database) =>
      createContext({
        store,
        credentialsKey,
        log,
        database,
        ...(options.clock ? { clock: options.clock } : {}),
        ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
        historyKeeper: options.historyKeeper ?? false,
        ...(options.demo ? { demo: options.demo } : {}),
        ...(options.access ? { access: options.access } : {}),
        ...(options.relay ? { relay: options.relay } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.backup ? { backup: options.backup } : {}),
        ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
        ...(options.email ? { email: options.email } : {}),
        ...(options.push ? { push: options.push } : {}),
        ...(options.chat ? { chat: options.chat } : {}),
        ...(options.cliLocations ? { cliLocations: options.cliLocations } : {}),
      }),
    graceMs: 0,
  });
  return {
    dir,
    dbFile,
    log,
    credentialsKey,
    runtime,
    /** The store serving now (another after a switch). */
    get store(): Store {
      return runtime.store;
    },
    /** The context serving now (a new one after a switch or an import). */
    get ctx(): Context {
      return runtime.context;
    },
    /** Procedures over the context serving now. */
    get caller(): Caller {
      return createCaller(runtime.context);
    },
    async dispose({ keepFiles = false } = {}) {
      // A relay poller this test started stops (and gives its lease up) before the database goes.
      await runtime.close();
      if (!keepFiles) rmSync(dir, { recursive: true, force: true });
    },
  };
}

let judge: OpenApiJudge | undefined;
/** The OpenAPI document as a judge of answers, built once for all tests of a worker. */
export const openApiJudge = () => (judge ??= new OpenApiJudge(openApiDocument()));

/**
 * Calls the REST adapter as an HTTP client would, without a socket: a JSON body (a string goes as it
 * is), its status, headers, text and parsed JSON. Every answer is held to the OpenAPI document
 * (status, content type, body, headers): one that drifted from its description fails the test.
 */
export function restClient(caller: () => Caller) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const response = await handleRest(new Request(`http://dash.test${path}`, init), caller());
    const text = await response.text();
    openApiJudge().assert({ method, path, status: response.status, headers: response.headers, body: text });
    return { status: response.status, headers: response.headers, text, json: JSON.parse(text) as Record<string, unknown> };
  };
}

/**
 * A live stream of a context's notifications through a server-side caller, as the SSE endpoint drives it (from
 * `lastEventId` when given). `next(ms)` answers the next event with its id, skipping interruptions unless
 * `interrupts`, and fails when none comes within `ms`; `close` ends the stream (call it after the test).
 */
export async function notificationStream(ctx: Context, options: { lastEventId?: number; interrupts?: boolean } = {}) {
  const abort = new AbortController();
  const { lastEventId, interrupts = false } = options;
  const stream = await createCaller(ctx, abort.signal).notifications.stream(lastEventId === undefined ? undefined : { lastEventId });
  const iterator = (stream as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  const next = async (ms = 4_000): Promise<{ id: string; event: NotificationStreamEvent }> => {
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      iterator.next(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`No stream event within ${ms} ms`)), ms))),
    ]).finally(() => clearTimeout(timer));
    if (result.done || !isTrackedEnvelope(result.value)) throw new Error(`The stream ended or sent something untracked: ${JSON.stringify(result.value)}`);
    const [id, event] = result.value as unknown as [string, NotificationStreamEvent];
    if (event.kind === 'interrupt' && !interrupts) return next(ms);
    return { id, event };
  };
  const close = async () => {
    abort.abort();
    await iterator.return?.(undefined);
  };
  return { next, close, abort, iterator };
}
