import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { historySchema, historySettingsSchema, type HistorySchedule } from '@dash/contracts';
import { testClock } from '@dash/connectors/testing';
import { demoSetup, demoUpstreamsOf, startSandbox, type DemoUpstreams, type Sandbox } from '@dash/sandbox';
import { handleRest } from '../rest/index.ts';
import { dataReadsOf } from '../router/data.ts';
import { startDemo } from '../router/demo.ts';
import { HistoryKeeper } from './keeper.ts';
import type { Identity } from '../auth/access.ts';
import { createCaller } from '../root.ts';
import { createTestApi, restClient, testDatabases, type DatabaseKind } from '../testing.ts';

// The metric history over the demo's sandbox with an injected clock: the daily snapshot at its time (and late after
// the dashboard was off), the providers' days read back when the demo's integrations appear, on each database; two
// processes taking one snapshot once; the CSV out and back in (idempotent), a bad row refused with nothing stored;
// who may read and who may import.

type Api = Awaited<ReturnType<typeof createTestApi>>;
type Clock = ReturnType<typeof testClock>;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let sandbox: Sandbox;
let upstreams: DemoUpstreams;
const databases = testDatabases();
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  upstreams = demoUpstreamsOf(sandbox);
  // A snapshot and a backfill ask RevenueCat more than its real 5 a minute: here its limit never holds the clock up.
  sandbox.limit('revenuecat', { limit: 1_000, windowMs: MINUTE });
});
afterAll(async () => {
  await sandbox.close();
  await databases.drop();
});
beforeEach(() => sandbox.reset());
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo();
});

/** A dashboard process whose keeper the test ticks itself, over the demo's fake upstreams. */
async function dashboard(clock: Clock, options: Parameters<typeof createTestApi>[0] = {}): Promise<Api> {
  const api = await createTestApi({
    scheduler: false,
    clock,
    demo: { setup: () => Promise.resolve(demoSetup(upstreams)) },
    rateLimits: { revenuecat: { limit: 1_000, windowMs: MINUTE } },
    ...options,
  });
  cleanup.push(() => api.dispose({ keepFiles: options.dir !== undefined }));
  return api;
}

/**
 * A schedule whose time was `ago` before the clock's now, in a fixed-offset zone that puts now at about 12:00 local, so
 * the day does not end within the test whatever the hour the suite runs at; and that local day.
 */
function scheduleAgo(clock: Clock, ago: number): { schedule: HistorySchedule; date: string } {
  const now = clock.now();
  let east = (((12 - new Date(now).getUTCHours()) % 24) + 24) % 24;
  if (east > 14) east -= 24;
  const timezone = east === 0 ? 'UTC' : `Etc/GMT${east > 0 ? '-' : '+'}${Math.abs(east)}`;
  const local = (ms: number) => new Date(ms + east * HOUR).toISOString();
  return { schedule: { time: local(now - ago).slice(11, 16), timezone }, date: local(now).slice(0, 10) };
}

const yesterday = (clock: Clock) => new Date(clock.now() - DAY).toISOString().slice(0, 10);

describe.for(['SQLite', 'Postgres', 'MySQL'] as const)('on %s', (kind: DatabaseKind) => {
  it('takes the day’s snapshot at its time and reads each provider’s past days back once the demo is there', async () => {
    const clock = testClock(Date.now() - 2 * MINUTE);
    const dir = mkdtempSync(join(tmpdir(), 'dash-history-'));
    const database = await databases.fresh(kind, dir);
    cleanup.push(async () => {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });
    const api = await dashboard(clock, { dir, ...(database.databaseUrl ? { databaseUrl: database.databaseUrl } : {}) });
    const { schedule, date } = scheduleAgo(clock, MINUTE);
    await api.caller.history.saveSchedule(schedule);
    await startDemo(api.ctx);

    await api.ctx.history.tick();
    const settings = historySettingsSchema.parse(await api.caller.history.settings());
    expect(settings.last).toMatchObject({ date, late: false, failed: [] });
    expect(settings.rows).toBeGreaterThan(100);

    // Stocks are the widgets' numbers of the day, dated that local day; nothing late.
    const rest = restClient(() => api.caller);
    const mrr = await rest('GET', `/api/history?project=pocket-ledger&metric=revenue.mrr&from=${date}&to=${date}`);
    expect(mrr.status).toBe(200);
    const revenue = await api.caller.data.revenue({ project: 'pocket-ledger', currency: 'USD' });
    const widgetMrr = 'mrr' in revenue.data ? revenue.data.mrr : null;
    expect(historySchema.parse(mrr.json)).toEqual({ project: 'pocket-ledger', metric: 'revenue.mrr', unit: 'money', currency: 'USD', points: [{ date, value: widgetMrr }] });
    const ideas = await api.caller.data.ideas({ project: 'formfox', limit: 250 });
    const bugs = 'items' in ideas.data ? ideas.data.items.filter((item) => item.type === 'bug').length : -1;
    expect((await api.caller.history.read({ project: 'formfox', metric: 'bugs.open', from: date, to: date })).points).toEqual([{ date, value: bugs }]);

    // Flows came back from the providers' daily series: months of visitors on day one, up to yesterday, with no day made up.
    const visitors = await api.caller.history.read({ project: 'pocket-ledger', metric: 'analytics.visitors', from: '2020-01-01' });
    expect(visitors.points.length).toBeGreaterThan(365);
    // Without `from`, the year up to today.
    expect((await api.caller.history.read({ project: 'pocket-ledger', metric: 'analytics.visitors' })).points[0]?.date).toBe(new Date(Date.parse(`${date}T00:00:00Z`) - 364 * DAY).toISOString().slice(0, 10));
    expect(visitors.points.at(-1)?.date).toBe(yesterday(clock));
    // RevenueCat's days are the revenue widget's own whole-history chart (no call of their own), up to yesterday.
    const gross = await api.caller.history.read({ project: 'pocket-ledger', metric: 'revenue.gross', from: '2020-01-01' });
    const all = await api.caller.data.revenue({ project: 'pocket-ledger', range: 'all', currency: 'USD' });
    const chart = 'chart' in all.data ? all.data.chart.filter((day) => day.date <= yesterday(clock)) : [];
    expect(gross.points.length).toBeGreaterThan(365);
    expect(gross.points).toEqual(chart.map((day) => ({ date: day.date, value: day.revenue })));
    const metrics = await api.caller.history.metrics({ project: 'pocket-ledger' });
    const entry = (key: string) => metrics.projects[0]?.metrics.find((metric) => metric.key === key);
    expect(entry('analytics.visitors')).toMatchObject({ configured: true, backfill: true, points: visitors.points.length, first: visitors.points[0]?.date });
    expect(entry('bugs.open')).toMatchObject({ configured: true, backfill: false, points: 1, first: date, last: date });
    expect(entry('funding.balance')).toMatchObject({ configured: false, points: 0 });

    // Another look the same day does nothing: the snapshot and each integration's read-back are done.
    const rows = settings.rows;
    sandbox.reset();
    await api.ctx.history.tick();
    expect(sandbox.requests).toHaveLength(0);
    expect((await api.caller.history.settings()).rows).toBe(rows);
  });
});

describe('the daily snapshot', () => {
  it('is taken at the next start when its time passed while the dashboard was off, marked late; a second the same day replaces it', async () => {
    const clock = testClock(Date.now() - 2 * MINUTE);
    const api = await dashboard(clock);
    await startDemo(api.ctx);
    // Its time was three hours ago: far more than LATE_AFTER_MS.
    const { schedule, date } = scheduleAgo(clock, 3 * HOUR);
    await api.caller.history.saveSchedule(schedule);

    await api.ctx.history.tick();
    expect((await api.caller.history.settings()).last).toMatchObject({ date, late: true });
    const late = await api.caller.history.read({ project: 'tideline', metric: 'errors.unresolved', from: date, to: date });
    expect(late.points).toEqual([{ date, value: expect.any(Number), late: true }]);
    // Flows are the providers' own days: never late.
    const deploys = await api.caller.history.read({ project: 'tideline', metric: 'shipping.deploys' });
    expect(deploys.points.every((point) => point.late === undefined)).toBe(true);

    // POST /api/history/snapshot takes it again now: the day's values are replaced, on time this time.
    const rest = restClient(() => api.caller);
    const again = await rest('POST', '/api/history/snapshot');
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ date, late: false, failed: [] });
    expect((await api.caller.history.read({ project: 'tideline', metric: 'errors.unresolved', from: date, to: date })).points).toEqual([{ date, value: late.points[0]?.value }]);
  });

  it('leaves a day a provider did not answer as a gap and names it, never a zero', async () => {
    const clock = testClock(Date.now() - 2 * MINUTE);
    const api = await dashboard(clock);
    await startDemo(api.ctx);
    const { schedule, date } = scheduleAgo(clock, MINUTE);
    await api.caller.history.saveSchedule(schedule);
    // Sentry is down for the snapshot (every call answers 503).
    for (let i = 0; i < 50; i++) sandbox.inject('sentry', { status: 503, body: { detail: 'Service unavailable' } });
    const taken = await api.caller.history.snapshot();
    expect(taken.failed).toEqual(expect.arrayContaining([expect.objectContaining({ project: 'pocket-ledger', integration: 'error_tracker' })]));
    expect((await api.caller.history.read({ project: 'pocket-ledger', metric: 'errors.unresolved', from: date, to: date })).points).toEqual([]);
    expect((await api.caller.history.read({ project: 'pocket-ledger', metric: 'errors.events' })).points).toEqual([]);
    // The others were still read.
    expect((await api.caller.history.read({ project: 'pocket-ledger', metric: 'bugs.open', from: date, to: date })).points).toHaveLength(1);
  });

  it('is taken by one of two processes on one database, once', async () => {
    const clock = testClock(Date.now() - 2 * MINUTE);
    const a = await dashboard(clock);
    await startDemo(a.ctx);
    const b = await dashboard(clock, { dir: a.dir, credentialsKey: a.credentialsKey });
    const { schedule, date } = scheduleAgo(clock, MINUTE);
    await a.caller.history.saveSchedule(schedule);

    await Promise.all([a.ctx.history.tick(), b.ctx.history.tick()]);
    const taken = [...a.log.lines, ...b.log.lines].filter((line) => line.includes(`history: snapshot of ${date}`));
    expect(taken).toHaveLength(1);
    expect(await b.caller.history.settings()).toEqual(await a.caller.history.settings());
    await Promise.all([a.ctx.history.tick(), b.ctx.history.tick()]);
    expect([...a.log.lines, ...b.log.lines].filter((line) => line.includes(`history: snapshot of ${date}`))).toHaveLength(1);
  });

  it('gives the snapshot’s lease back before the metric alerts judge what it stored: another process is not held up by them', async () => {
    const clock = testClock(Date.now() - 2 * MINUTE);
    const a = await dashboard(clock);
    await startDemo(a.ctx);
    const b = await dashboard(clock, { dir: a.dir, credentialsKey: a.credentialsKey });
    // a's alerts after its snapshot take as long as b's whole snapshot: b's is taken meanwhile, not refused (409).
    let release = () => {};
    const judging = new Promise<void>((resolve) => (release = resolve));
    let began: (projects: string[]) => void = () => {};
    const judged = new Promise<string[]>((resolve) => (began = resolve));
    const keeper = new HistoryKeeper({
      store: a.ctx.store,
      clock,
      log: a.ctx.log,
      data: a.ctx.data,
      reads: (signal) => dataReadsOf(a.ctx, signal),
      afterSnapshot: async (projects) => {
        began(projects);
        await judging;
      },
    });
    const first = keeper.snapshot();
    // Its snapshot taken and stored, the alerts judging it (as long as a loaded machine takes):
    expect((await judged).length).toBeGreaterThan(0);
    await expect(b.caller.history.snapshot()).resolves.toMatchObject({ late: false });
    release();
    await expect(first).resolves.toMatchObject({ late: false });
    await keeper.stop();
  });
});

describe('the CSV', () => {
  const csvOf = async (api: Api, query: string) => {
    const response = await handleRest(new Request(`http://dash.test/api/history.csv?${query}`), api.caller);
    return { status: response.status, type: response.headers.get('content-type'), disposition: response.headers.get('content-disposition'), text: await response.text() };
  };
  const importCsv = (api: Api, csv: string, headers: Record<string, string> = { 'content-type': 'text/csv' }) =>
    handleRest(new Request('http://dash.test/api/history/import', { method: 'POST', body: csv, headers }), api.caller).then(async (response) => ({
      status: response.status,
      json: (await response.json()) as Record<string, unknown>,
    }));

  it('goes out and comes back in unchanged, and a second import changes nothing', async () => {
    const clock = testClock(Date.now() - 2 * MINUTE);
    const from = await dashboard(clock);
    await startDemo(from.ctx);
    await from.ctx.history.backfill({ project: 'pocket-ledger' });
    const out = await csvOf(from, 'project=pocket-ledger');
    expect(out).toMatchObject({ status: 200, type: 'text/csv; charset=utf-8', disposition: expect.stringMatching(/^attachment; filename="history-pocket-ledger-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d\.csv"$/) });
    const lines = out.text.trim().split(/\r?\n/);
    expect(lines[0]).toBe('date,project,metric,value,unit');
    expect(lines.length).toBeGreaterThan(300);
    expect(lines).toContainEqual(expect.stringMatching(/^\d{4}-\d\d-\d\d,pocket-ledger,analytics\.visitors,\d+,count$/));

    // Into another dashboard with the same project: the same CSV comes out.
    const to = await dashboard(clock);
    await to.caller.projects.create({ slug: 'pocket-ledger', name: 'Pocket Ledger', integrations: {} });
    const first = await importCsv(to, out.text);
    expect(first).toEqual({ status: 200, json: { rows: lines.length - 1, created: lines.length - 1, updated: 0, unchanged: 0 } });
    expect((await csvOf(to, 'project=pocket-ledger')).text).toBe(out.text);
    expect(await importCsv(to, out.text)).toEqual({ status: 200, json: { rows: lines.length - 1, created: 0, updated: 0, unchanged: lines.length - 1 } });
    // One metric alone.
    const one = await csvOf(to, 'project=pocket-ledger&metric=analytics.visitors');
    expect(one.text.trim().split(/\r?\n/).slice(1).every((line) => line.includes(',analytics.visitors,'))).toBe(true);
  });

  it('refuses a bad row with its line and stores nothing', async () => {
    const api = await dashboard(testClock());
    await api.caller.projects.create({ slug: 'app', name: 'App', integrations: {} });
    const good = ['date,project,metric,value,unit', '2026-01-01,app,analytics.visitors,120,count', '2026-01-02,app,revenue.gross,99.5,USD'];
    const cases: [string[], RegExp][] = [
      [[...good, '2026-02-30,app,analytics.visitors,1,count'], /^line 4: "2026-02-30" is not a date/],
      [[...good, '2026-01-03,nope,analytics.visitors,1,count'], /^line 4: no project has the slug "nope"/],
      [[...good, '2026-01-03,app,analytics.visits,1,count'], /^line 4: "analytics.visits" is not a metric/],
      [[...good, '2026-01-03,app,analytics.visitors,,count'], /^line 4: the value "" is not a number/],
      [[...good, '2026-01-03,app,search.ctr,5,fraction'], /^line 4: a fraction is from 0 to 1/],
      [[...good, '2026-01-03,app,revenue.gross,5,money'], /^line 4: revenue.gross is money: its unit is the currency/],
      [[...good, '2026-01-01,app,analytics.visitors,7,count'], /^line 4: app analytics.visitors on 2026-01-01 is already on line 2/],
      [['date,project,metric,value', '2026-01-01,app,analytics.visitors,1'], /^line 1: the columns are date,project,metric,value,unit/],
    ];
    for (const [lines, message] of cases) {
      const answer = await importCsv(api, lines.join('\n'));
      expect(answer.status, lines.at(-1)).toBe(400);
      expect((answer.json.error as { message: string }).message).toMatch(message);
      expect((await api.caller.history.settings()).rows).toBe(0);
    }
    expect((await importCsv(api, good.join('\n'), { 'content-type': 'application/json' })).status).toBe(415);
    expect(await importCsv(api, `${good.join('\r\n')}\r\n`)).toMatchObject({ status: 200, json: { rows: 2, created: 2 } });
    expect((await api.caller.history.read({ project: 'app', metric: 'revenue.gross', from: '2026-01-01', to: '2026-01-31' })).points).toEqual([{ date: '2026-01-02', value: 99.5 }]);
  });

  it('is read with a read token, and imported only by the owner', async () => {
    const api = await dashboard(testClock());
    await api.caller.projects.create({ slug: 'app', name: 'App', integrations: {} });
    const as = (identity: Identity) => (request: Request) => handleRest(request, createCaller({ ...api.ctx, request: { identity, ip: '127.0.0.1', userAgent: undefined } }));
    const csv = 'date,project,metric,value,unit\n2026-01-01,app,analytics.visitors,120,count\n';
    const post = (identity: Identity) => as(identity)(new Request('http://dash.test/api/history/import', { method: 'POST', body: csv, headers: { 'content-type': 'text/csv' } }));
    const refused = await post({ via: 'token', scope: 'write', tokenId: 'tok1' });
    expect(refused.status).toBe(403);
    expect((await api.caller.history.settings()).rows).toBe(0);
    expect((await post({ via: 'session', scope: 'write', sessionId: 'sess1' })).status).toBe(200);
    const read = await as({ via: 'token', scope: 'read', tokenId: 'tok2' })(new Request('http://dash.test/api/history?project=app&metric=analytics.visitors&from=2026-01-01&to=2026-01-31'));
    expect(await read.json()).toEqual({ project: 'app', metric: 'analytics.visitors', unit: 'count', points: [{ date: '2026-01-01', value: 120 }] });
  });
});
