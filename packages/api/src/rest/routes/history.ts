import { z } from 'zod';
import { historySchema, MAX_IMPORT_BYTES, type HistoryCsv } from '@dash/contracts';
import { body, none, pathParams, query, textSchema, type Answer, type RestRoute } from '../route.ts';

/** The routes of the metric history (its JSON, its CSV, snapshots, backfill, import) and of the change alert rules on it. */

/** GET /api/history's body: `history.readEncoded`'s JSON, encoded once per change of the history, not per request. */
const encodedHistory: Answer = {
  respond: (output) => ({ body: (output as { json: string }).json, headers: {} }),
  body: () => historySchema,
  encoded: true,
  headers: {},
};

/** The history's CSV as a download, named for its project, metric and days. */
const csvDownload: Answer = {
  respond: (output) => {
    const { csv, filename } = output as HistoryCsv;
    return { body: csv, headers: { 'content-disposition': `attachment; filename="${filename}"` } };
  },
  mediaType: 'text/csv',
  headers: { 'content-disposition': { description: 'attachment; filename="history-<project>[-<metric>]-<from>-to-<to>.csv"', schema: textSchema, always: true } },
};

export const historyRoutes: readonly RestRoute[] = [
  {
    method: 'GET',
    path: '/api/history',
    procedure: 'history.readEncoded',
    input: query,
    answer: encodedHistory,
    operationId: 'historyRead',
    errors: [404],
    summary: 'A metric’s daily history for a project: one value per day, oldest first; a day without one is absent',
    description: '`from` and `to` (YYYY-MM-DD, inclusive) default to the year up to today. `late: true` marks a snapshot taken after its time (the dashboard was off then).',
  },
  {
    method: 'GET',
    path: '/api/history.csv',
    procedure: 'history.csv',
    input: query,
    answer: csvDownload,
    operationId: 'historyCsv',
    errors: [404],
    summary: 'A project’s history as CSV (`date,project,metric,value,unit`): one metric, or every one without `metric`',
  },
  {
    method: 'GET',
    path: '/api/history/series',
    procedure: 'history.series',
    input: query,
    errors: [404],
    summary: 'Several metrics’ history at once: one project’s or (no `project`) every project’s; `metrics` a comma-separated list, or all',
  },
  { method: 'GET', path: '/api/history/metrics', procedure: 'history.metrics', input: query, errors: [404], summary: 'Every metric per project: its unit, whether it is set up, whether its provider gives past days, and what is kept' },
  { method: 'POST', path: '/api/history/snapshot', procedure: 'history.snapshot', input: none, errors: [409], summary: 'Take today’s snapshot now (a second the same day replaces the first’s values)' },
  {
    method: 'POST',
    path: '/api/history/backfill',
    procedure: 'history.backfill',
    input: body,
    errors: [404, 409],
    summary: 'Read back the days each provider still keeps, for one project or all (done by itself when an integration is connected)',
  },
  {
    method: 'POST',
    path: '/api/history/import',
    procedure: 'history.import',
    input: { build: ({ body }) => ({ csv: typeof body === 'string' ? body : '' }), body: z.string().meta({ description: 'CSV: `date,project,metric,value,unit`' }) },
    bodyMediaType: 'text/csv',
    access: 'owner',
    maxBodyBytes: MAX_IMPORT_BYTES,
    summary: 'Import history from CSV (`date,project,metric,value,unit`); a bad row is a 400 naming its line and nothing is stored',
  },
  { method: 'GET', path: '/api/history/settings', procedure: 'history.settings', input: none, summary: 'When the daily snapshot is taken, the last one, the next, and how many rows are kept' },
  { method: 'PUT', path: '/api/history/schedule', procedure: 'history.saveSchedule', input: body, summary: 'Set the daily snapshot’s local time and time zone' },
];

export const metricAlertRoutes: readonly RestRoute[] = [
  {
    method: 'GET',
    path: '/api/metric-alerts',
    procedure: 'metricAlerts.list',
    input: query,
    errors: [404],
    summary: 'The change alert rules of every project (or one, `?project=`), the built-in unusual ones included',
  },
  {
    method: 'POST',
    path: '/api/metric-alerts',
    procedure: 'metricAlerts.create',
    input: body,
    status: 201,
    access: 'owner',
    errors: [404],
    summary: 'Add a rule: `{ project, metric, params: { kind: threshold | change | unusual, … }, severity?, enabled? }`',
  },
  {
    method: 'PATCH',
    path: '/api/metric-alerts/:id',
    procedure: 'metricAlerts.update',
    input: { build: (p) => ({ ...(p.body as object), id: p.params.id }), body: 'input' },
    access: 'owner',
    errors: [404],
    summary: 'Change a rule’s params, severity or whether it is on (a built-in rule too)',
  },
  { method: 'DELETE', path: '/api/metric-alerts/:id', procedure: 'metricAlerts.remove', input: pathParams, access: 'owner', errors: [404], summary: 'Delete a rule (a built-in one is switched off instead)' },
  {
    method: 'POST',
    path: '/api/metric-alerts/preview',
    procedure: 'metricAlerts.preview',
    input: body,
    errors: [404],
    summary: 'What a rule would have said over the last 90 days (or `days`) of the history: each alert, reminder and return to range',
  },
];
