import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Database from 'libsql';
import { listen, type RunningServer } from '../listen.ts';

/**
 * A fake Turso: Hrana over HTTP (protocol v2, JSON), as sqld serves it, on a real SQLite file through the `libsql`
 * package, so `@libsql/client`'s own remote code path (`createClient({ url: 'http://127.0.0.1:…', authToken })`)
 * is what runs against it: `POST /v2/pipeline` (and `/v3/pipeline`) with a bearer token, streams held by single-use
 * batons, `execute`, `batch` with its conditions, `sequence`, `store_sql`/`close_sql`, `get_autocommit`, `close`.
 * Spec: tursodatabase/libsql docs/HTTP_V2_SPEC.md and HRANA_3_SPEC.md; sqld's answers: libsql-server/src/hrana/http.
 * Imported as `@dash/sandbox/turso`, not through the index: the dashboard's bundle takes the index for its demo, and
 * this needs the native `libsql` module.
 */

type Value = { type: 'null' } | { type: 'integer'; value: string } | { type: 'float'; value: number } | { type: 'text'; value: string } | { type: 'blob'; base64: string };
interface Stmt {
  sql?: string;
  sql_id?: number;
  args?: Value[];
  named_args?: { name: string; value: Value }[];
  want_rows?: boolean;
}
type Condition =
  | { type: 'ok' | 'error'; step: number }
  | { type: 'not'; cond: Condition }
  | { type: 'and' | 'or'; conds: Condition[] }
  | { type: 'is_autocommit' };
type StreamRequest =
  | { type: 'execute'; stmt: Stmt }
  | { type: 'batch'; batch: { steps: { condition?: Condition | null; stmt: Stmt }[] } }
  | { type: 'sequence'; sql?: string; sql_id?: number }
  | { type: 'store_sql'; sql_id: number; sql: string }
  | { type: 'close_sql'; sql_id: number }
  | { type: 'get_autocommit' }
  | { type: 'close' };

interface HranaError {
  message: string;
  code: string;
}
interface StmtResult {
  cols: { name: string | null; decltype: string | null }[];
  rows: Value[][];
  affected_row_count: number;
  last_insert_rowid: string | null;
}

interface Stream {
  db: Database.Database;
  sqls: Map<number, string>;
  /** Its expiry while it waits for the next request with its baton. */
  timer?: NodeJS.Timeout | undefined;
}

/** What a test can ask of the fake. */
export interface FakeTurso extends RunningServer {
  /** `http://127.0.0.1:<port>`: the URL to give `@libsql/client`. */
  url: string;
  /** Each pipeline request's types and statements (SQL text only: no arguments, never the token), in order. */
  readonly requests: { path: string; types: string[]; sql: string[] }[];
  /**
   * A server going away mid-work: from the first pipeline request whose SQL matches `pattern` on, the next `count`
   * requests answer HTTP 503.
   */
  failFrom(pattern: RegExp, count?: number): void;
  /** Back to answering every request. */
  recover(): void;
}

/** sqld drops a stream nobody used for this long; a later request with its baton is an error. */
const STREAM_IDLE_MS = 10_000;

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly json = true,
  ) {
    super(message);
  }
}

/** sqld sends the primary result code: `SQLITE_CONSTRAINT`, not libsql's `SQLITE_CONSTRAINT_PRIMARYKEY`. */
function hranaError(error: unknown): HranaError {
  const code = (error as { code?: unknown }).code;
  const primary = typeof code === 'string' ? code.replace(/^(SQLITE_[A-Z]+?)_[A-Z_]+$/, '$1') : 'SQLITE_ERROR';
  return { message: `SQLite error: ${(error as Error).message}`, code: primary };
}

function fromValue(value: Value): unknown {
  switch (value.type) {
    case 'null':
      return null;
    case 'integer':
      return BigInt(value.value);
    case 'float':
      return value.value;
    case 'text':
      return value.value;
    case 'blob':
      return Buffer.from(value.base64, 'base64');
  }
}

function toValue(value: unknown): Value {
  if (value === null || value === undefined) return { type: 'null' };
  if (typeof value === 'bigint') return { type: 'integer', value: value.toString() };
  if (typeof value === 'number') return Number.isInteger(value) ? { type: 'integer', value: String(value) } : { type: 'float', value };
  if (typeof value === 'string') return { type: 'text', value };
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return { type: 'blob', base64: Buffer.from(value).toString('base64') };
  throw new Error(`Cannot encode ${typeof value}`);
}

function execute(stream: Stream, stmt: Stmt): StmtResult {
  const sql = stmt.sql ?? (stmt.sql_id === undefined ? undefined : stream.sqls.get(stmt.sql_id));
  if (sql === undefined) throw Object.assign(new Error('The statement names no SQL'), { code: 'SQL_NOT_FOUND' });
  const prepared = stream.db.prepare(sql);
  const params = stmt.named_args?.length
    ? [Object.fromEntries(stmt.named_args.map(({ name, value }) => [name.replace(/^[:@$]/, ''), fromValue(value)]))]
    : (stmt.args ?? []).map(fromValue);
  if (prepared.reader) {
    prepared.safeIntegers(true);
    prepared.raw(true);
    const rows = prepared.all(...params) as unknown[][];
    const cols = prepared.columns().map((column) => ({ name: column.name, decltype: column.type ?? null }));
    return { cols, rows: stmt.want_rows === false ? [] : rows.map((row) => row.map(toValue)), affected_row_count: 0, last_insert_rowid: null };
  }
  const { changes, lastInsertRowid } = prepared.run(...params);
  return { cols: [], rows: [], affected_row_count: Number(changes), last_insert_rowid: String(lastInsertRowid) };
}

function holds(condition: Condition | null | undefined, results: (StmtResult | null)[], errors: (HranaError | null)[], db: Database.Database): boolean {
  if (!condition) return true;
  switch (condition.type) {
    case 'ok':
      return results[condition.step] != null;
    case 'error':
      return errors[condition.step] != null;
    case 'not':
      return !holds(condition.cond, results, errors, db);
    case 'and':
      return condition.conds.every((inner) => holds(inner, results, errors, db));
    case 'or':
      return condition.conds.some((inner) => holds(inner, results, errors, db));
    case 'is_autocommit':
      return !db.inTransaction;
  }
}

/** One request of a pipeline: its response, or an error result (the pipeline goes on, as sqld's does). */
function run(stream: Stream, request: StreamRequest): { type: 'ok'; response: Record<string, unknown> } | { type: 'error'; error: HranaError } {
  try {
    switch (request.type) {
      case 'execute':
        return { type: 'ok', response: { type: 'execute', result: execute(stream, request.stmt) } };
      case 'batch': {
        const results: (StmtResult | null)[] = [];
        const errors: (HranaError | null)[] = [];
        for (const step of request.batch.steps) {
          if (!holds(step.condition, results, errors, stream.db)) {
            results.push(null);
            errors.push(null);
            continue;
          }
          try {
            results.push(execute(stream, step.stmt));
            errors.push(null);
          } catch (error) {
            results.push(null);
            errors.push(hranaError(error));
          }
        }
        return { type: 'ok', response: { type: 'batch', result: { step_results: results, step_errors: errors } } };
      }
      case 'sequence':
        stream.db.exec(request.sql ?? stream.sqls.get(request.sql_id ?? -1) ?? '');
        return { type: 'ok', response: { type: 'sequence' } };
      case 'store_sql':
        stream.sqls.set(request.sql_id, request.sql);
        return { type: 'ok', response: { type: 'store_sql' } };
      case 'close_sql':
        stream.sqls.delete(request.sql_id);
        return { type: 'ok', response: { type: 'close_sql' } };
      case 'get_autocommit':
        return { type: 'ok', response: { type: 'get_autocommit', is_autocommit: !stream.db.inTransaction } };
      case 'close':
        return { type: 'ok', response: { type: 'close' } };
    }
  } catch (error) {
    return { type: 'error', error: hranaError(error) };
  }
}

/** The SQL texts a request carries. */
function sqlOf(request: StreamRequest): string[] {
  if (request.type === 'execute') return [request.stmt.sql ?? `#${request.stmt.sql_id}`];
  if (request.type === 'batch') return request.batch.steps.map((step) => step.stmt.sql ?? `#${step.stmt.sql_id}`);
  if (request.type === 'store_sql' || request.type === 'sequence') return [request.sql ?? ''];
  return [];
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts a fake Turso database on `file` (created when missing) that takes `authToken`. */
export async function startTurso({ file, authToken }: { file: string; authToken: string }): Promise<FakeTurso> {
  const streams = new Map<string, Stream>();
  const requests: FakeTurso['requests'] = [];
  let fault: { pattern: RegExp; count: number; hit: boolean } | undefined;

  const closeStream = (stream: Stream) => {
    clearTimeout(stream.timer);
    if (stream.db.inTransaction) stream.db.exec('rollback');
    stream.db.close();
  };
  const expiring = (baton: string, stream: Stream) =>
    setTimeout(() => {
      streams.delete(baton);
      closeStream(stream);
    }, STREAM_IDLE_MS).unref();

  async function pipeline(req: IncomingMessage, res: ServerResponse) {
    if (req.headers.authorization !== `Bearer ${authToken}`) throw new RequestError(401, 'Unauthorized: the JWT is invalid');
    let body: { baton?: string | null; requests?: StreamRequest[] };
    try {
      body = JSON.parse(await readBody(req)) as typeof body;
    } catch {
      throw new RequestError(400, 'Invalid JSON in the request body', false);
    }
    const list = body.requests ?? [];
    const sql = list.flatMap(sqlOf);
    requests.push({ path: req.url ?? '', types: list.map((request) => request.type), sql });
    if (fault) {
      fault.hit ||= sql.some((text) => fault?.pattern.test(text));
      if (fault.hit && fault.count-- > 0) throw new RequestError(503, 'The database is unavailable');
    }
    let stream: Stream;
    if (body.baton) {
      const found = streams.get(body.baton);
      if (!found) throw new RequestError(400, 'Received an invalid baton', false);
      streams.delete(body.baton);
      clearTimeout(found.timer);
      stream = found;
    } else {
      stream = { db: new Database(file), sqls: new Map() };
    }
    const results = list.map((request) => run(stream, request));
    let baton: string | null = null;
    if (list.at(-1)?.type === 'close') closeStream(stream);
    else {
      baton = randomBytes(18).toString('base64url');
      stream.timer = expiring(baton, stream);
      streams.set(baton, stream);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ baton, base_url: null, results }));
  }

  const server = await listen((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const answer = (status: number, text: string, json: boolean) =>
      res.writeHead(status, { 'content-type': json ? 'application/json' : 'text/plain' }).end(json ? JSON.stringify({ error: text }) : text);
    if (req.method === 'GET' && (path === '/v2' || path === '/v3')) {
      answer(200, `Hello, this is HTTP API ${path.slice(1)} (Hrana over HTTP)`, false);
      return;
    }
    if (req.method !== 'POST' || (path !== '/v2/pipeline' && path !== '/v3/pipeline')) {
      answer(404, 'Not found', false);
      return;
    }
    pipeline(req, res).catch((error: unknown) => {
      if (error instanceof RequestError) answer(error.status, error.message, error.json);
      else answer(500, (error as Error).message, true);
    });
  });

  return {
    ...server,
    requests,
    failFrom(pattern, count = 1) {
      fault = { pattern, count, hit: false };
    },
    recover() {
      fault = undefined;
    },
    async close() {
      for (const stream of streams.values()) closeStream(stream);
      streams.clear();
      await server.close();
    },
  };
}
