import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { historyCsvColumns, isMetricKey, MAX_IMPORT_ROWS, metricOf, type MetricUnit } from '@dash/contracts';
import type { MetricPointRow } from '@dash/db';
import { fail } from '../errors.ts';

/**
 * The history as CSV (`date,project,metric,value,unit`) and back, with csv-parse and csv-stringify: quoting, embedded
 * commas and line breaks, a byte-order mark and CRLF are theirs to get right, not ours. A money value's unit is its
 * currency (`USD`); every other unit is its name (`count`, `fraction`, `position`, `stars`).
 */

/** The unit column of a point: its currency for money, else the metric's unit. */
export function unitOf(metric: string, currency: string | null): string {
  const unit = metricOf(metric)?.unit ?? 'count';
  return unit === 'money' ? (currency ?? 'money') : unit;
}

/** The rows as CSV with its header, oldest day first, then by project and metric. */
export function historyCsv(rows: readonly MetricPointRow[]): string {
  const sorted = [...rows].sort((a, b) => a.date.localeCompare(b.date) || a.project.localeCompare(b.project) || a.metric.localeCompare(b.metric));
  return stringify(
    sorted.map((row) => [row.date, row.project, row.metric, String(row.value), unitOf(row.metric, row.currency)]),
    { header: true, columns: [...historyCsvColumns] },
  );
}

/** One good row of an import. */
export interface ImportedPoint {
  date: string;
  project: string;
  metric: string;
  value: number;
  currency: string | null;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const isCalendarDate = (text: string) => {
  const match = DATE.exec(text);
  if (!match) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
};

/** What a value of each unit may be; undefined when it fits. */
function outOfRange(unit: MetricUnit, value: number): string | undefined {
  switch (unit) {
    case 'count':
      return value < 0 ? 'a count is not negative' : undefined;
    case 'fraction':
      return value < 0 || value > 1 ? 'a fraction is from 0 to 1 (0.05 is 5 %)' : undefined;
    case 'position':
      return value < 0 ? 'a position is not negative' : undefined;
    case 'stars':
      return value < 0 || value > 5 ? 'stars are from 0 to 5' : undefined;
    case 'money':
      return undefined;
  }
}

/**
 * Reads an import: a header naming the five columns (in any order, no others), then one point per line. The first bad
 * line is a 400 naming it (its line in the file, counting the header as line 1) and what is wrong; nothing is stored
 * then. `projects` are the slugs that exist: history is kept for projects the dashboard has.
 */
export function parseHistoryCsv(text: string, projects: ReadonlySet<string>): ImportedPoint[] {
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, trim: true, relax_column_count: false });
  } catch (error) {
    const { lines, message } = error as { lines?: number; message: string };
    throw fail('BAD_REQUEST', lines === undefined ? `The CSV could not be read: ${message}` : `line ${lines}: ${message.replace(/^Invalid Record Length: /, '')}`);
  }
  const [header, ...body] = records;
  if (!header) throw fail('BAD_REQUEST', `The CSV is empty: its first line names the columns ${historyCsvColumns.join(',')}`);
  const names = header.map((name) => name.toLowerCase());
  const missing = historyCsvColumns.filter((column) => !names.includes(column));
  const extra = names.filter((name) => !(historyCsvColumns as readonly string[]).includes(name));
  if (missing.length > 0 || extra.length > 0 || names.length !== historyCsvColumns.length) {
    throw fail('BAD_REQUEST', `line 1: the columns are ${historyCsvColumns.join(',')} (in any order)${missing.length ? `; missing ${missing.join(', ')}` : ''}${extra.length ? `; unknown ${extra.join(', ')}` : ''}`);
  }
  if (body.length > MAX_IMPORT_ROWS) throw fail('BAD_REQUEST', `The CSV has ${body.length} rows; one import takes at most ${MAX_IMPORT_ROWS}`);
  const at = (column: (typeof historyCsvColumns)[number]) => names.indexOf(column);
  const seen = new Map<string, number>();
  return body.map((record, index) => {
    const line = index + 2;
    const bad = (message: string) => fail('BAD_REQUEST', `line ${line}: ${message}`);
    const [date = '', project = '', metric = '', valueText = '', unit = ''] = [at('date'), at('project'), at('metric'), at('value'), at('unit')].map((i) => record[i] ?? '');
    if (!isCalendarDate(date)) throw bad(`"${date}" is not a date written YYYY-MM-DD`);
    if (!projects.has(project)) throw bad(`no project has the slug "${project}"`);
    if (!isMetricKey(metric)) throw bad(`"${metric}" is not a metric (GET /api/history/metrics lists them)`);
    const definition = metricOf(metric);
    if (!definition) throw bad(`"${metric}" is not a metric`);
    const value = valueText === '' ? Number.NaN : Number(valueText);
    if (!Number.isFinite(value)) throw bad(`the value "${valueText}" is not a number (a day without one is left out, not written empty)`);
    const range = outOfRange(definition.unit, value);
    if (range) throw bad(`${range} (${metric}: ${valueText})`);
    let currency: string | null = null;
    if (definition.unit === 'money') {
      if (!/^[A-Z]{3}$/.test(unit)) throw bad(`${metric} is money: its unit is the currency, three capital letters such as USD, not "${unit}"`);
      currency = unit;
    } else if (unit !== definition.unit) {
      throw bad(`${metric} is measured in ${definition.unit}, not "${unit}"`);
    }
    const key = `${project}\0${metric}\0${date}`;
    const first = seen.get(key);
    if (first !== undefined) throw bad(`${project} ${metric} on ${date} is already on line ${first}`);
    seen.set(key, line);
    return { date, project, metric, value, currency };
  });
}
