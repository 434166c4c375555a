import { bind, num, type RunStatement } from './sql-rows.ts';
import { chunked, type SqlDialect } from './dialects.ts';
import type { MetricPointRow, Store } from './store.ts';

/**
 * What a dialect gives the metric history: plain statements for the reads, and a write transaction in which a read of
 * the rows a put is about sees every put committed before it and no put can interleave with it (SQLite: its write
 * lock; Postgres: an advisory lock; MySQL: `lockingReads`, the reads' next-key locks, a deadlock's victim run again).
 */
export interface HistoryEngine {
  run: RunStatement;
  transaction<T>(work: (run: RunStatement) => Promise<T>): Promise<T>;
  /** The reads in the transaction take the rows and the gaps between them (`for update`). */
  lockingReads?: boolean;
  /**
   * SQLite: rows come back as one JSON array, which SQLite builds in a fraction of what libSQL spends making an object
   * of each row (some 14 µs a row: 5 ms for a year of one metric, 0.5 ms packed).
   */
  packedReads?: boolean;
  /** MariaDB: values are read as text (`cast(value as char)`), which keeps every double; its protocol rounds some. */
  valuesAsText?: boolean;
}

const COLUMNS = ['project', 'metric', 'date', 'value', 'currency', 'late', 'source', 'taken_at'];
const KEY = 'project, metric, date';
/** The columns an upsert replaces: everything but the key. */
const REPLACED = ['value', 'currency', 'late', 'source', 'taken_at'];
/** Key ranges a put reads at once: one per project and metric (a snapshot names many, a backfill one). */
const RANGES = 100;

/** SQLite and MySQL answer a boolean as 0 or 1, Postgres as a boolean. */
const bool = (value: unknown) => value === true || Number(value) === 1;

function rawPoint(r: Record<string, unknown>): MetricPointRow {
  return {
    project: String(r.project),
    metric: String(r.metric),
    date: String(r.date),
    value: num(r.value),
    currency: (r.currency as string | null) ?? null,
    late: bool(r.late),
    source: r.source as MetricPointRow['source'],
    takenAt: num(r.taken_at),
  };
}

const keyOf = (point: Pick<MetricPointRow, 'project' | 'metric' | 'date'>) => `${point.project}\0${point.metric}\0${point.date}`;
/** By code unit, whatever the engine's collation (Postgres's and MariaDB's may order `.` and `_` otherwise). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byKey = (a: MetricPointRow, b: MetricPointRow) => compare(a.project, b.project) || compare(a.metric, b.metric) || compare(a.date, b.date);

/**
 * The points `where` selects (its text and `params`; `tail` follows it). Packed, each value goes as text of 17
 * significant digits, which every double survives: SQLite's JSON writes 15, which would round `0.1 + 0.2`.
 */
async function selectPoints(run: RunStatement, dialect: SqlDialect, engine: HistoryEngine, where: string, params: unknown[], tail = ''): Promise<MetricPointRow[]> {
  if (!engine.packedReads) {
    const columns = engine.valuesAsText ? COLUMNS.map((column) => (column === 'value' ? 'cast(value as char) as value' : column)) : COLUMNS;
    return (await run(bind(dialect, `select ${columns.join(', ')} from metric_points ${where}${tail}`, params))).map(rawPoint);
  }
  const packing = `json_group_array(json_array(project, metric, date, printf('%!.17g', value), currency, late, source, taken_at))`;
  const [row] = await run(bind(dialect, `select ${packing} as points from (select * from metric_points ${where}${tail})`, params));
  return (JSON.parse((row?.points as string | undefined) ?? '[]') as unknown[][]).map(([project, metric, date, value, currency, late, source, taken_at]) =>
    rawPoint({ project, metric, date, value, currency, late, source, taken_at }),
  );
}

const marks = (count: number) => Array.from({ length: count }, () => '?').join(', ');

/**
 * The stored rows of these points' project and metric between their first and last day (a few more than the points
 * name, when a range has holes): each range is one walk of the primary key.
 */
async function storedAround(run: RunStatement, dialect: SqlDialect, points: readonly MetricPointRow[], engine: HistoryEngine): Promise<Map<string, MetricPointRow>> {
  const ranges = new Map<string, { project: string; metric: string; from: string; to: string }>();
  for (const { project, metric, date } of points) {
    const key = `${project}\0${metric}`;
    const range = ranges.get(key);
    if (!range) ranges.set(key, { project, metric, from: date, to: date });
    else if (date < range.from) range.from = date;
    else if (date > range.to) range.to = date;
  }
  const stored = new Map<string, MetricPointRow>();
  for (const slice of chunked([...ranges.values()], RANGES)) {
    const where = slice.map(() => '(project = ? and metric = ? and date >= ? and date <= ?)').join(' or ');
    const params = slice.flatMap((range) => [range.project, range.metric, range.from, range.to]);
    const rows = await selectPoints(run, dialect, engine, `where ${where}`, params, engine.lockingReads ? ' for update' : '');
    for (const row of rows) stored.set(keyOf(row), row);
  }
  return stored;
}

/** The metric history (`metric_points`), as plain SQL every dialect runs. */
export function metricHistory(engine: HistoryEngine, dialect: SqlDialect): Store['history'] {
  const exec = (text: string, params: unknown[] = []) => engine.run(bind(dialect, text, params));
  return {
    async put(points) {
      // One row per day: of a batch naming a day twice, the later point is the one stored.
      const latest = new Map<string, MetricPointRow>();
      for (const point of points) {
        if (!Number.isFinite(point.value)) throw new RangeError(`${point.project} ${point.metric} ${point.date}: ${point.value} is not a finite number`);
        latest.delete(keyOf(point));
        latest.set(keyOf(point), point);
      }
      if (latest.size === 0) return { created: 0, updated: 0, unchanged: 0 };
      const batch = [...latest.values()];
      return engine.transaction(async (run) => {
        const stored = await storedAround(run, dialect, batch, engine);
        let created = 0;
        let unchanged = 0;
        const written: MetricPointRow[] = [];
        for (const point of batch) {
          const before = stored.get(keyOf(point));
          if (before === undefined) created++;
          else if (before.value === point.value && before.currency === (point.currency ?? null) && before.late === point.late) {
            // The same reading: the row keeps when and how it was first taken. A snapshot on time after a late one
            // the same day is not the same: the day is no longer late.
            unchanged++;
            continue;
          }
          written.push(point);
        }
        for (const slice of chunked(written)) {
          const tuples = slice.map(() => `(${marks(COLUMNS.length)})`).join(', ');
          const params = slice.flatMap((point) => [point.project, point.metric, point.date, point.value, point.currency ?? null, point.late, point.source, point.takenAt]);
          await run(bind(dialect, `insert into metric_points (${COLUMNS.join(', ')}) values ${tuples} ${dialect.upsert(KEY, REPLACED)}`, params));
        }
        return { created, updated: written.length - created, unchanged };
      });
    },
    async read(project, metrics, from, to) {
      if (metrics?.length === 0) return [];
      const conditions = ['date >= ?', 'date <= ?'];
      const params: unknown[] = [from, to];
      if (project !== undefined) {
        conditions.unshift('project = ?');
        params.unshift(project);
      }
      if (metrics !== undefined) {
        conditions.push(`metric in (${marks(metrics.length)})`);
        params.push(...metrics);
      }
      // The primary key's order, so the engine need not sort (the sort below only settles collation).
      const rows = await selectPoints(engine.run, dialect, engine, `where ${conditions.join(' and ')}`, params, ` order by ${KEY}`);
      return rows.sort(byKey);
    },
    async summary(project) {
      const where = project === undefined ? '' : ' where project = ?';
      const rows = await exec(`select project, metric, count(*) as points, min(date) as first, max(date) as last from metric_points${where} group by project, metric`, project === undefined ? [] : [project]);
      return rows
        .map((r) => ({ project: String(r.project), metric: String(r.metric), points: num(r.points), first: String(r.first), last: String(r.last) }))
        .sort((a, b) => compare(a.project, b.project) || compare(a.metric, b.metric));
    },
    async count() {
      const [row] = await exec('select count(*) as n from metric_points');
      return num(row?.n ?? 0);
    },
    async removeForProjects(slugs) {
      if (slugs.length === 0) return 0;
      const projects = [...new Set(slugs)];
      return engine.transaction(async (run) => {
        const where = `where project in (${marks(projects.length)})`;
        // Counted under the transaction's lock, so what goes is what was counted.
        const [row] = await run(bind(dialect, `select count(*) as n from metric_points ${where}${engine.lockingReads ? ' for update' : ''}`, projects));
        await run(bind(dialect, `delete from metric_points ${where}`, projects));
        return num(row?.n ?? 0);
      });
    },
  };
}
