import { isMetricKey, metricAlertParamsSchema, metricAlertSeverities, type MetricAlertParams, type MetricAlertSeverity } from '@dash/contracts';
import { bind, num, type RunStatement } from './sql-rows.ts';
import type { RawStatement, SqlDialect } from './dialects.ts';
import type { MetricAlertRuleRow, Store } from './store.ts';

/**
 * What a dialect gives the metric alert rules: plain statements for the reads, and `write` for the rest, which runs one
 * statement on its own (autocommit) and answers how many rows it wrote: libSQL's `rowsAffected`, postgres.js's
 * `count`, mysql2's `affectedRows` (a deadlock's victim run again).
 */
export interface AlertRulesEngine {
  run: RunStatement;
  write(statement: RawStatement): Promise<number>;
}

const COLUMNS = ['id', 'project_slug', 'metric', 'params', 'severity', 'enabled', 'created_at', 'updated_at'];
/** The columns a put replaces: everything but the id and when the rule was first written. */
const REPLACED = ['project_slug', 'metric', 'params', 'severity', 'enabled', 'updated_at'];
const SELECT = `select ${COLUMNS.join(', ')} from metric_alert_rules`;

/** A rule the store cannot read: only the store writes them, so this is a bug (or a hand edit), never skipped quietly. */
export class MetricAlertRuleError extends Error {
  constructor(
    readonly id: string,
    reason: string,
  ) {
    super(`Metric alert rule "${id}" is unreadable: ${reason}`);
    this.name = 'MetricAlertRuleError';
  }
}

/** The params as contracts read them (a default filled in), or why not. */
function parsedParams(id: string, value: unknown): MetricAlertParams {
  let json: unknown;
  try {
    json = typeof value === 'string' ? JSON.parse(value) : value;
  } catch {
    throw new MetricAlertRuleError(id, 'its params are not JSON');
  }
  const parsed = metricAlertParamsSchema.safeParse(json);
  if (!parsed.success) throw new MetricAlertRuleError(id, `its params do not parse (${parsed.error.issues.map((issue) => issue.message).join('; ')})`);
  return parsed.data;
}

/** SQLite and MySQL answer a boolean as 0 or 1, Postgres as a boolean. */
const bool = (value: unknown) => value === true || Number(value) === 1;

function rawRule(r: Record<string, unknown>): MetricAlertRuleRow {
  const id = String(r.id);
  const metric = String(r.metric);
  if (!isMetricKey(metric)) throw new MetricAlertRuleError(id, `"${metric}" is not a metric of the catalogue`);
  const severity = String(r.severity) as MetricAlertSeverity;
  if (!metricAlertSeverities.includes(severity)) throw new MetricAlertRuleError(id, `"${severity}" is not a severity`);
  return {
    id,
    projectSlug: String(r.project_slug),
    metric,
    params: parsedParams(id, r.params),
    severity,
    enabled: bool(r.enabled),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** By code unit, whatever the engine's collation (Postgres's and MariaDB's may order `.` and `_` otherwise). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byListOrder = (a: MetricAlertRuleRow, b: MetricAlertRuleRow) =>
  compare(a.projectSlug, b.projectSlug) || compare(a.metric, b.metric) || a.createdAt - b.createdAt || compare(a.id, b.id);

const marks = (count: number) => Array.from({ length: count }, () => '?').join(', ');

/** The metric alert rules (`metric_alert_rules`), as plain SQL every dialect runs. */
export function metricAlertRules(engine: AlertRulesEngine, dialect: SqlDialect): Store['metricAlerts'] {
  const exec = (text: string, params: unknown[] = []) => engine.run(bind(dialect, text, params));
  const write = (text: string, params: unknown[]) => engine.write(bind(dialect, text, params));
  return {
    async list(projectSlug) {
      const rows = projectSlug === undefined ? await exec(SELECT) : await exec(`${SELECT} where project_slug = ?`, [projectSlug]);
      return rows.map(rawRule).sort(byListOrder);
    },
    async get(id) {
      const [row] = await exec(`${SELECT} where id = ?`, [id]);
      return row === undefined ? undefined : rawRule(row);
    },
    async put(rule) {
      // Refused here rather than stored: a row that does not parse would make every read of the rules an error.
      const params = parsedParams(rule.id, rule.params);
      if (!isMetricKey(rule.metric)) throw new MetricAlertRuleError(rule.id, `"${String(rule.metric)}" is not a metric of the catalogue`);
      // One statement: two processes putting one id at once leave one row (SQLite's write lock, Postgres's and
      // MySQL's key lock on the conflicting row), the later put's.
      await write(`insert into metric_alert_rules (${COLUMNS.join(', ')}) values (${marks(COLUMNS.length)}) ${dialect.upsert('id', REPLACED)}`, [
        rule.id,
        rule.projectSlug,
        rule.metric,
        JSON.stringify(params),
        rule.severity,
        rule.enabled,
        rule.createdAt,
        rule.updatedAt,
      ]);
    },
    async remove(id) {
      return (await write('delete from metric_alert_rules where id = ?', [id])) > 0;
    },
    async removeForProjects(slugs) {
      const projects = [...new Set(slugs)];
      if (projects.length === 0) return 0;
      return write(`delete from metric_alert_rules where project_slug in (${marks(projects.length)})`, projects);
    },
  };
}
