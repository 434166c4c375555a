import { afterEach, describe, expect, it } from 'vitest';
import { testClock } from '@dash/connectors/testing';
import { demoSetup, demoUpstreamsOf, startSandbox } from '@dash/sandbox';
import { startDemo } from '../router/demo.ts';
import { handleRest } from '../rest/index.ts';
import type { Identity } from '../auth/access.ts';
import { createCaller } from '../root.ts';
import { createTestApi, restClient } from '../testing.ts';

// Change alerts over history imported through the API (as a founder's CSV would bring it), on the embedded store: each
// kind of rule alerts once, resolves when the metric is back, does not repeat, reminds a week on; an import of old days
// never alerts; who may read and who may change the rules; a preview before saving.

type Api = Awaited<ReturnType<typeof createTestApi>>;
const DAY = 86_400_000;
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo();
});

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A dashboard at noon UTC (the snapshot's default zone), with a project `shop` that has no upstreams. */
async function dashboard(): Promise<{ api: Api; clock: ReturnType<typeof testClock>; today: string }> {
  const noon = Math.floor(Date.now() / DAY) * DAY + 12 * 3_600_000;
  const clock = testClock(noon);
  const api = await createTestApi({ scheduler: false, clock });
  cleanup.push(() => api.dispose());
  await api.caller.projects.create({ slug: 'shop', name: 'Shop' });
  return { api, clock, today: isoDay(noon) };
}

/** CSV of one metric of `shop`, a value per day: `values[i]` is the value `values.length - 1 - i` days before `today`. */
function csv(metric: string, unit: string, today: string, values: readonly (number | null)[]): string {
  const end = Date.parse(`${today}T00:00:00Z`);
  const rows = values.flatMap((value, i) => (value === null ? [] : [`${isoDay(end - (values.length - 1 - i) * DAY)},shop,${metric},${value},${unit}`]));
  return ['date,project,metric,value,unit', ...rows].join('\n');
}

async function importCsv(api: Api, text: string) {
  const response = await handleRest(new Request('http://dash.test/api/history/import', { method: 'POST', body: text, headers: { 'content-type': 'text/csv' } }), api.caller);
  expect(response.status, await response.clone().text()).toBe(200);
}

const metricRows = async (api: Api) => (await api.caller.notifications.list({ integration: 'metrics' })).notifications;

/** Interruptions sent on the browser channel (always open), oldest first: what reached the founder. */
async function sent(api: Api) {
  return (await api.store.notifications.sentSince(0, 500)).filter((delivery) => delivery.channel === 'browser');
}

describe('metric alerts over imported history', () => {
  it('a threshold alerts once, with what else happened, resolves when the metric is back, and an old import never alerts', async () => {
    const { api, clock, today } = await dashboard();
    await api.caller.metricAlerts.create({ project: 'shop', metric: 'revenue.mrr', params: { kind: 'threshold', direction: 'below', value: 10_000 }, severity: 'error', enabled: true });

    // Thirty days above $10,000, the first ten of them below it: history older than 48 hours says nothing.
    const old = Array.from({ length: 40 }, (_, i) => (i < 10 ? 9_000 : 12_000));
    await importCsv(api, csv('revenue.mrr', 'USD', isoDay(clock.now() - 3 * DAY), old));
    expect(await metricRows(api)).toEqual([]);

    // Today below: one alert, open, at the rule's severity, in its thread, with what else happened to the project (its
    // collective's balance fell, as the history says: no upstream asked).
    await api.caller.projects.update({ slug: 'shop', patch: { integrations: { funding: { slug: 'shop-collective' } } } });
    await importCsv(api, csv('funding.balance', 'USD', today, [5_000, 5_000, 5_000, 5_000, 5_000, 5_000, 5_000, 5_000, 3_800]));
    await importCsv(api, csv('revenue.mrr', 'USD', today, [12_000, 12_100, 9_420]));
    const [alert, ...more] = await metricRows(api);
    expect(more).toEqual([]);
    expect(alert).toMatchObject({ title: 'MRR below $10,000: $9,420', severity: 'error', project: 'shop', resolved: false, subjectKey: 'metric:shop:revenue.mrr' });
    const trace = alert?.decision?.trace ?? [];
    expect(trace.filter((entry) => entry.stage === 'context').map((entry) => [entry.name, entry.why])).toEqual([['What else happened', 'Balance down $1,200']]);
    expect((await sent(api)).map((d) => [d.purpose, d.message.title, d.message.body])).toEqual([['first', 'MRR below $10,000: $9,420', 'shop · Metric alerts\nBalance down $1,200']]);

    // The same days again, and the evaluation again: nothing new.
    await importCsv(api, csv('revenue.mrr', 'USD', today, [12_000, 12_100, 9_420]));
    await api.ctx.metricAlerts.evaluate();
    expect((await metricRows(api)).map((row) => row.eventCount)).toEqual([1]);

    // The next day, back above: the thread resolves, saying so, and the founder is told.
    clock.advance(DAY);
    await importCsv(api, csv('revenue.mrr', 'USD', isoDay(clock.now()), [10_250]));
    const [resolved] = await metricRows(api);
    expect(resolved).toMatchObject({ resolved: true, eventCount: 2 });
    const events = await api.caller.notifications.events({ id: resolved?.id ?? '' });
    expect(events.events.map((event) => [event.transition, event.title])).toEqual([
      ['trigger', 'MRR below $10,000: $9,420'],
      ['resolve', 'MRR back above $10,000: $10,250'],
    ]);
    expect((await sent(api)).map((d) => [d.purpose, d.message.title, d.message.body])).toEqual([
      ['first', 'MRR below $10,000: $9,420', 'shop · Metric alerts\nBalance down $1,200'],
      ['resolve', 'MRR back above $10,000: $10,250', expect.stringMatching(/^Out of range for /)],
    ]);
  });

  it('a metric that stays out of range reminds a week on, not every day', async () => {
    const { api, clock, today } = await dashboard();
    await api.caller.metricAlerts.create({ project: 'shop', metric: 'bugs.open', params: { kind: 'threshold', direction: 'above', value: 20 }, severity: 'warning', enabled: true });
    await importCsv(api, csv('bugs.open', 'count', today, [10, 12, 25]));
    for (let day = 1; day <= 8; day++) {
      clock.advance(DAY);
      await importCsv(api, csv('bugs.open', 'count', isoDay(clock.now()), [25 + day]));
    }
    const rows = await metricRows(api);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ resolved: false, eventCount: 2 });
    expect((await sent(api)).map((d) => [d.purpose, d.message.title])).toEqual([
      ['first', 'Open bugs above 20: 25'],
      ['repeat', expect.stringMatching(/^Open bugs above 20 for 7 days now/)],
    ]);

    // Its rule switched off: nothing watches the metric, and its thread does not stay open for ever.
    const [rule] = (await api.caller.metricAlerts.list({ project: 'shop' })).rules;
    await api.caller.metricAlerts.update({ id: rule?.id ?? '', enabled: false });
    await api.ctx.metricAlerts.evaluate();
    expect(await metricRows(api)).toEqual([expect.objectContaining({ resolved: true, eventCount: 3 })]);
    // On again and off again the same day: a new thread, and it ends too (its end is not taken for the first one's).
    await api.caller.metricAlerts.update({ id: rule?.id ?? '', enabled: true });
    await api.caller.metricAlerts.update({ id: rule?.id ?? '', enabled: false });
    expect((await metricRows(api)).map((row) => [row.resolved, row.eventCount])).toEqual([
      [true, 2],
      [true, 3],
    ]);
  });

  it('change and unusual rules alert on their days, with the comparison or the expected range in the words', async () => {
    const { api, today } = await dashboard();
    await api.caller.metricAlerts.create({ project: 'shop', metric: 'analytics.visitors', params: { kind: 'change', direction: 'below', percent: 30, compareTo: 'same_weekday' }, severity: 'info', enabled: true });
    await api.caller.metricAlerts.create({ project: 'shop', metric: 'analytics.visitors', params: { kind: 'unusual', direction: 'either', z: 4 }, severity: 'warning', enabled: true });
    // Eight steady weeks (weekdays 1,000, weekends 600), then today at a third of its weekday.
    const days = 57;
    const end = Date.parse(`${today}T00:00:00Z`);
    const values = Array.from({ length: days }, (_, i) => {
      const weekday = new Date(end - (days - 1 - i) * DAY).getUTCDay();
      const usual = weekday === 0 || weekday === 6 ? 600 : 1_000;
      return i === days - 1 ? Math.round(usual / 3) : usual + ((i * 7) % 11) - 5;
    });
    await importCsv(api, csv('analytics.visitors', 'count', today, values));
    // One thread for the metric: the first rule's alert opened it, the other's joined it.
    const [row, ...more] = await metricRows(api);
    expect(more).toEqual([]);
    const events = await api.caller.notifications.events({ id: row?.id ?? '' });
    expect(events.events.map((event) => event.title).sort()).toEqual([expect.stringMatching(/^Visitors down 67 % against the same weekday last week: 333 against (99\d|1,00\d)$/), expect.stringMatching(/^Visitors unusually low: 333 on a \w+day, expected [\d,]+–[\d,]+$/)].sort());
  });

  it('tells a metric out of range since before the last two days once: imported with its drop weeks ago, or a rule made on it now', async () => {
    const { api, today } = await dashboard();
    await api.caller.metricAlerts.create({ project: 'shop', metric: 'analytics.visitors', params: { kind: 'threshold', direction: 'below', value: 800 }, severity: 'warning', enabled: true });
    // Sixty days, the last five of them at 560: the incident opened four days ago and is still open.
    const values = Array.from({ length: 60 }, (_, i) => (i >= 55 ? 560 : 1_000));
    await importCsv(api, csv('analytics.visitors', 'count', today, values));
    const [row, ...more] = await metricRows(api);
    expect(more).toEqual([]);
    expect(row).toMatchObject({ title: 'Visitors below 800: 560', resolved: false });
    // Told under the id it would have had on its day: told again (another import, another process), it is one.
    await importCsv(api, csv('analytics.visitors', 'count', today, values));
    await api.ctx.metricAlerts.evaluate();
    expect((await metricRows(api)).map((r) => r.eventCount)).toEqual([1]);

    // A second rule made now on a metric out for a month: told at once (its latest reminder's words), not at the next snapshot.
    await importCsv(api, csv('errors.events', 'count', today, Array.from({ length: 30 }, () => 40)));
    await api.caller.metricAlerts.create({ project: 'shop', metric: 'errors.events', params: { kind: 'threshold', direction: 'above', value: 25 }, severity: 'error', enabled: true });
    expect((await metricRows(api)).map((r) => [r.subjectKey, r.title])).toEqual([
      ['metric:shop:errors.events', 'Error events above 25 for 28 days now: 40'],
      ['metric:shop:analytics.visitors', 'Visitors below 800: 560'],
    ]);
  });

  it('lists the built-in rules, lets tokens read and a write token preview but only the owner change, and refuses bad input storing nothing', async () => {
    const { api, today } = await dashboard();
    await api.caller.projects.update({ slug: 'shop', patch: { integrations: { analytics: { platforms: [{ platform: 'web', provider: 'plausible', siteId: 'shop.example' }] } } } });
    const rest = restClient(() => api.caller);
    const listed = await rest('GET', '/api/metric-alerts?project=shop');
    expect(listed.status).toBe(200);
    expect(listed.json.rules).toEqual([expect.objectContaining({ id: 'default:shop:analytics.visitors', builtIn: true, enabled: true, params: { kind: 'unusual', direction: 'either', z: 4 } })]);

    // Bad input: 400 with the field's words, nothing stored.
    const bad = await rest('POST', '/api/metric-alerts', { project: 'shop', metric: 'revenue.mrr', params: { kind: 'change', direction: 'below', percent: -5, compareTo: 'same_weekday' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('percent is more than 0');
    expect(await rest('POST', '/api/metric-alerts', { project: 'nope', metric: 'revenue.mrr', params: { kind: 'threshold', direction: 'below', value: 1 } })).toMatchObject({ status: 404 });
    expect((await api.caller.metricAlerts.list({})).rules).toHaveLength(1);

    // A built-in rule is switched off, not deleted; switched off, it stays listed as off.
    expect((await rest('DELETE', '/api/metric-alerts/default:shop:analytics.visitors')).status).toBe(400);
    const off = await rest('PATCH', '/api/metric-alerts/default:shop:analytics.visitors', { enabled: false });
    expect(off.json).toMatchObject({ id: 'default:shop:analytics.visitors', enabled: false, builtIn: true });
    expect((await api.caller.metricAlerts.list({ project: 'shop' })).rules.map((rule) => [rule.id, rule.enabled])).toEqual([['default:shop:analytics.visitors', false]]);

    // Tokens: a read token lists and previews; even a write token may not change a rule (the owner decides what interrupts).
    const as = (identity: Identity) => (method: string, path: string, body?: unknown) =>
      handleRest(new Request(`http://dash.test${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) }), createCaller({ ...api.ctx, request: { identity, ip: '127.0.0.1', userAgent: undefined } }));
    const reader = as({ via: 'token', scope: 'read', tokenId: 'tok-read' });
    const writer = as({ via: 'token', scope: 'write', tokenId: 'tok-write' });
    expect((await reader('GET', '/api/metric-alerts')).status).toBe(200);
    // (A preview is a POST, so the server's guard refuses it a read token before this adapter: a write token previews.)
    expect((await writer('POST', '/api/metric-alerts/preview', { project: 'shop', metric: 'analytics.visitors', params: { kind: 'unusual', direction: 'below' } })).status).toBe(200);
    expect((await writer('POST', '/api/metric-alerts', { project: 'shop', metric: 'revenue.mrr', params: { kind: 'threshold', direction: 'below', value: 1 } })).status).toBe(403);
    expect((await writer('PATCH', '/api/metric-alerts/default:shop:analytics.visitors', { enabled: true })).status).toBe(403);
    expect((await api.caller.metricAlerts.list({})).rules.map((rule) => [rule.id, rule.enabled])).toEqual([['default:shop:analytics.visitors', false]]);

    // The preview: what the rule would have said over the imported days, before it is saved.
    await importCsv(api, csv('analytics.visitors', 'count', today, Array.from({ length: 40 }, (_, i) => (i === 30 ? 50 : 1_000 + (i % 3)))));
    const preview = await rest('POST', '/api/metric-alerts/preview', { project: 'shop', metric: 'analytics.visitors', params: { kind: 'threshold', direction: 'below', value: 500 } });
    expect(preview.status).toBe(200);
    expect((preview.json.firings as { verdict: string; message: string }[]).map((firing) => [firing.verdict, firing.message])).toEqual([
      ['open', 'Visitors below 500: 50'],
      ['resolve', expect.stringMatching(/^Visitors back above 500: 1,00\d$/)],
    ]);
  });
});

describe('metric alerts on today’s running counts', () => {
  it('tells errors over a threshold within the day from the provider’s count so far, never a drop before the day is over', async () => {
    const sandbox = await startSandbox();
    cleanup.push(() => sandbox.close());
    const clock = testClock(Date.now());
    const api = await createTestApi({ scheduler: false, clock, demo: { setup: () => Promise.resolve(demoSetup(demoUpstreamsOf(sandbox))) }, rateLimits: { revenuecat: { limit: 1_000, windowMs: 60_000 } } });
    cleanup.push(() => api.dispose());
    await startDemo(api.ctx);
    const today = isoDay(clock.now());
    // Formfox's Sentry and Plausible count today so far: the errors are over 0 already; the visitors' "below" waits for the day's end.
    await api.caller.metricAlerts.create({ project: 'formfox', metric: 'errors.events', params: { kind: 'threshold', direction: 'above', value: 0 }, severity: 'error', enabled: true });
    await api.caller.metricAlerts.create({ project: 'formfox', metric: 'analytics.visitors', params: { kind: 'threshold', direction: 'below', value: 1_000_000_000 }, severity: 'warning', enabled: true });
    expect(await api.ctx.metricAlerts.checkToday()).toBe(1);
    const rows = (await api.caller.notifications.list({ integration: 'metrics' })).notifications;
    expect(rows.map((row) => [row.project, row.subjectKey, row.title])).toEqual([['formfox', 'metric:formfox:errors.events', expect.stringMatching(/^Error events above 0: [\d,]+ so far$/)]]);
    // An hour later the same day: nothing new (the day's alert is told once).
    clock.advance(3_600_000);
    if (isoDay(clock.now()) === today) {
      await api.ctx.metricAlerts.checkToday();
      expect((await api.caller.notifications.list({ integration: 'metrics' })).notifications.map((row) => row.eventCount)).toEqual([1]);
    }
  });
});
