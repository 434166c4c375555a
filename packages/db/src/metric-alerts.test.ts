import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { dumpTablesSchema } from '@dash/contracts';
import { MetricAlertRuleError, openStore, type MetricAlertRuleRow, type Store } from './index.ts';
import { migratedEngines } from './testing.ts';

const migrationsDir = fileURLToPath(new URL('../../../drizzle', import.meta.url));
const inCI = process.env.CI === 'true';
/** The engines, each with a template the migrations made once for the file. */
const engines = await migratedEngines(migrationsDir, 'the metric alert rules');
afterAll(() => Promise.all(engines.map((engine) => engine.template.drop())), 60_000);

const AT = Date.parse('2026-12-07T06:00:00.000Z');
const rule = (id: string, projectSlug: string, over: Partial<MetricAlertRuleRow> = {}): MetricAlertRuleRow => ({
  id,
  projectSlug,
  metric: 'revenue.mrr',
  params: { kind: 'threshold', direction: 'below', value: 10_000 },
  severity: 'warning',
  enabled: true,
  createdAt: AT,
  updatedAt: AT,
  ...over,
});

describe.each(engines)('the metric alert rules on $name', ({ name, template, problem }) => {
  // One database and store for the file's tests on this engine: each test writes projects of its own, and removes them.
  let url = '';
  let store: Store;
  let drop: () => Promise<void> = () => Promise.resolve();
  const skipped = problem !== undefined && !inCI;
  beforeAll(async () => {
    if (skipped) return;
    if (problem) throw new Error(`CI=true needs ${name}, which is unreachable: ${problem}`);
    const database = await template.clone();
    url = database.url;
    drop = database.drop;
    store = await openStore({ url, migrationsDir });
  }, 60_000);
  afterAll(async () => {
    if (skipped) return;
    await store.close();
    await drop();
  });
  /** Projects of the test's own, whose rules go when it ends. */
  const projects = <T extends string[]>(...slugs: T): T => {
    onTestFinished(async () => void (await store.metricAlerts.removeForProjects(slugs)));
    return slugs;
  };

  it.skipIf(skipped)('puts, gets and lists rules, by project, metric, then when created, every kind of params as it was', async () => {
    const [acme, orbit] = projects('acme', 'orbit');
    const rules = [
      rule('b8a3f0a4-0000-4000-8000-000000000002', acme, { metric: 'revenue.mrr', createdAt: AT + 2, updatedAt: AT + 5, severity: 'error' }),
      rule('b8a3f0a4-0000-4000-8000-000000000001', acme, { metric: 'revenue.mrr', createdAt: AT + 1, params: { kind: 'threshold', direction: 'above', value: 0.1 + 0.2 } }),
      rule(`default:${acme}:analytics.visitors`, acme, { metric: 'analytics.visitors', params: { kind: 'unusual', direction: 'either', z: 4 }, enabled: false, severity: 'info' }),
      rule('b8a3f0a4-0000-4000-8000-000000000003', orbit, { metric: 'errors.events', params: { kind: 'change', direction: 'above', percent: 25, compareTo: 'previous_28' } }),
      rule('b8a3f0a4-0000-4000-8000-000000000004', acme, { metric: 'analytics.visitors', createdAt: AT - 1, params: { kind: 'change', direction: 'either', percent: 1000, compareTo: 'same_weekday' } }),
    ];
    for (const one of rules) await store.metricAlerts.put(one);

    expect(await store.metricAlerts.get(rules[0]!.id)).toEqual(rules[0]);
    expect(await store.metricAlerts.get(rules[1]!.id)).toEqual(rules[1]);
    expect((await store.metricAlerts.get(rules[1]!.id))?.params).toEqual({ kind: 'threshold', direction: 'above', value: 0.30000000000000004 });
    expect(await store.metricAlerts.get('nobody')).toBeUndefined();
    // acme: analytics.visitors (the older first), then revenue.mrr (the older first); then orbit.
    expect(await store.metricAlerts.list()).toEqual([rules[4], rules[2], rules[1], rules[0], rules[3]]);
    expect(await store.metricAlerts.list(acme)).toEqual([rules[4], rules[2], rules[1], rules[0]]);
    expect(await store.metricAlerts.list(orbit)).toEqual([rules[3]]);
    expect(await store.metricAlerts.list('nobody')).toEqual([]);
  });

  it.skipIf(skipped)('replaces a rule of the same id, keeping when it was created; fills in params’ defaults; refuses params that do not parse', async () => {
    const [acme] = projects('acme');
    const id = `default:${acme}:revenue.mrr`;
    await store.metricAlerts.put(rule(id, acme, { params: { kind: 'unusual', direction: 'below', z: 4 } }));
    const changed = rule(id, acme, { params: { kind: 'change', direction: 'below', percent: 20, compareTo: 'previous_7' }, severity: 'error', enabled: false, createdAt: AT + 60_000, updatedAt: AT + 60_000 });
    await store.metricAlerts.put(changed);
    expect(await store.metricAlerts.get(id)).toEqual({ ...changed, createdAt: AT });
    expect(await store.metricAlerts.list(acme)).toHaveLength(1);

    // The contracts' default z, as an API's parse would have given it.
    const bare = { kind: 'unusual', direction: 'either' } as unknown as MetricAlertRuleRow['params'];
    await store.metricAlerts.put(rule('r-default-z', acme, { params: bare }));
    expect((await store.metricAlerts.get('r-default-z'))?.params).toEqual({ kind: 'unusual', direction: 'either', z: 4 });

    const wrong = { kind: 'threshold', direction: 'sideways', value: 1 } as unknown as MetricAlertRuleRow['params'];
    await expect(store.metricAlerts.put(rule('r-wrong', acme, { params: wrong }))).rejects.toThrow(MetricAlertRuleError);
    await expect(store.metricAlerts.put(rule('r-wrong', acme, { metric: 'nope.nope' as MetricAlertRuleRow['metric'] }))).rejects.toThrow(/r-wrong.*nope\.nope/);
    expect(await store.metricAlerts.get('r-wrong')).toBeUndefined();
  });

  it.skipIf(skipped)('removes one rule, and projects’ rules, answering what went', async () => {
    const [acme, orbit, tally] = projects('acme', 'orbit', 'tally');
    await store.metricAlerts.put(rule('r1', acme));
    await store.metricAlerts.put(rule('r2', acme, { metric: 'analytics.visitors' }));
    await store.metricAlerts.put(rule('r3', orbit));
    await store.metricAlerts.put(rule('r4', tally));
    expect(await store.metricAlerts.remove('r1')).toBe(true);
    expect(await store.metricAlerts.remove('r1')).toBe(false);
    expect(await store.metricAlerts.remove('nobody')).toBe(false);
    expect(await store.metricAlerts.removeForProjects([acme, tally, 'nobody', acme])).toBe(2);
    expect(await store.metricAlerts.removeForProjects([acme])).toBe(0);
    expect(await store.metricAlerts.removeForProjects([])).toBe(0);
    expect((await store.metricAlerts.list()).map((row) => row.id)).toEqual(['r3']);
  });

  it.skipIf(skipped)('throws on a stored rule whose params do not parse, naming it', async () => {
    const [acme] = projects('acme');
    await store.metricAlerts.put(rule('r-broken', acme));
    // A hand edit (only the store writes rules): the dump's restore writes the row as it is given.
    const dump = await store.transfer.dump();
    const broken = dump.metric_alert_rules.map((row) => (row.id === 'r-broken' ? { ...row, params: '{"kind":"threshold"}' } : row));
    await store.transfer.restore({ metric_alert_rules: broken });
    await expect(store.metricAlerts.get('r-broken')).rejects.toThrow(/"r-broken".*params/);
    await expect(store.metricAlerts.list(acme)).rejects.toThrow(MetricAlertRuleError);
    // An import refuses it before it gets there.
    expect(dumpTablesSchema.safeParse({ metric_alert_rules: broken }).success).toBe(false);
  });

  it.skipIf(skipped)('leaves one row when two stores on one database put the same id at once', async () => {
    const [acme] = projects('acme');
    const other = await openStore({ url, migrationsDir });
    onTestFinished(() => other.close());
    for (let round = 0; round < 5; round++) {
      const id = `default:${acme}:errors.events`;
      const puts = [store, other].map((s, i) =>
        s.metricAlerts.put(rule(id, acme, { metric: 'errors.events', params: { kind: 'unusual', direction: 'above', z: 2 + i + round }, createdAt: AT + round * 10 + i, updatedAt: AT + round * 10 + i })),
      );
      await Promise.all(puts);
      const rows = await store.metricAlerts.list(acme);
      expect(rows).toHaveLength(1);
      // Whichever went second, its params and updatedAt together; the first put of the id made createdAt.
      const [row] = rows;
      const second = row!.updatedAt - AT - round * 10;
      expect(row!.params).toEqual({ kind: 'unusual', direction: 'above', z: 2 + second + round });
      expect(row!.createdAt).toBeLessThanOrEqual(AT + 1);
    }
  }, 60_000);

  it.skipIf(skipped)('travels in a dump into another engine: every column as it was, counted', async () => {
    const target = engines[(engines.findIndex((engine) => engine.name === name) + 1) % engines.length]!;
    if (target.problem && !inCI) return;
    const [acme, orbit] = projects('acme', 'orbit');
    const rules = [
      rule('z-last', orbit, { metric: 'uptime.up_ratio', params: { kind: 'threshold', direction: 'below', value: 0.9993055555555556 }, enabled: false }),
      rule(`default:${acme}:revenue.gross`, acme, { metric: 'revenue.gross', params: { kind: 'unusual', direction: 'either', z: 4 }, severity: 'info', updatedAt: AT + 1 }),
      rule('a-first', acme, { params: { kind: 'change', direction: 'below', percent: 12.5, compareTo: 'previous_7' }, severity: 'error' }),
    ];
    for (const one of rules) await store.metricAlerts.put(one);
    const dump = await store.transfer.dump();
    expect(dumpTablesSchema.safeParse(dump).error).toBeUndefined();
    // In key order, whatever the engine stored them in; params as JSON text.
    expect(dump.metric_alert_rules.map((row) => row.id)).toEqual(['a-first', `default:${acme}:revenue.gross`, 'z-last']);
    expect(dump.metric_alert_rules[2]).toEqual({ ...rules[0], params: JSON.stringify(rules[0]!.params) });
    expect((await store.transfer.counts()).metric_alert_rules).toBe(3);

    const database = await target.template.clone();
    const there = await openStore({ url: database.url, migrationsDir });
    onTestFinished(async () => {
      await there.close();
      await database.drop();
    });
    await there.transfer.restore({ metric_alert_rules: dumpTablesSchema.parse({ metric_alert_rules: dump.metric_alert_rules }).metric_alert_rules });
    expect((await there.transfer.dump()).metric_alert_rules).toEqual(dump.metric_alert_rules);
    expect((await there.transfer.counts()).metric_alert_rules).toBe(3);
    expect(await there.metricAlerts.list()).toEqual(await store.metricAlerts.list());
  }, 60_000);
});
