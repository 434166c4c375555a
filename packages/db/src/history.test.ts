import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { dumpTablesSchema } from '@dash/contracts';
import { openStore, type MetricPointRow, type Store } from './index.ts';
import { migratedEngines } from './testing.ts';

const migrationsDir = fileURLToPath(new URL('../../../drizzle', import.meta.url));
const inCI = process.env.CI === 'true';
/** The engines, each with a template the migrations made once for the file. */
const engines = await migratedEngines(migrationsDir, 'the metric history');
afterAll(() => Promise.all(engines.map((engine) => engine.template.drop())), 60_000);

const TAKEN = Date.parse('2026-12-07T06:00:00.000Z');
const point = (project: string, metric: string, date: string, value: number, over: Partial<MetricPointRow> = {}): MetricPointRow => ({
  project,
  metric,
  date,
  value,
  currency: metric.startsWith('revenue.') ? 'USD' : null,
  late: false,
  source: 'snapshot',
  takenAt: TAKEN,
  ...over,
});
/** Doubles that MariaDB's protocol answers rounded in their last digit (93.37333333333333 as 93.37333333333332). */
const TRICKY = [28, 272, 274, 276, 280].map((i) => i / 3 + i / 7000);
/** `count` consecutive days from `first`, as `YYYY-MM-DD`. */
const days = (first: string, count: number) => Array.from({ length: count }, (_, i) => new Date(Date.parse(first) + i * 86_400_000).toISOString().slice(0, 10));

describe.each(engines)('the metric history on $name', ({ name, template, problem }) => {
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
  /** Projects of the test's own, whose history goes when it ends. */
  const projects = <T extends string[]>(...slugs: T): T => {
    onTestFinished(async () => void (await store.history.removeForProjects(slugs)));
    return slugs;
  };

  it.skipIf(skipped)('reads back what it put: ranges inclusive, by metric then date, one metric, several, or every project', async () => {
    const [acme, orbit] = projects('acme', 'orbit');
    const week = days('2026-11-28', 7);
    const points = [
      ...week.map((date, i) => point(acme, 'revenue.mrr', date, 1000 + i * 0.25)),
      ...week.map((date, i) => point(acme, 'analytics.visitors', date, 40 + i)),
      ...week.map((date, i) => point(orbit, 'analytics.visitors', date, 7 * i, { late: i === 3, source: 'backfill' })),
    ].reverse();
    expect(await store.history.put(points)).toEqual({ created: 21, updated: 0, unchanged: 0 });

    const one = await store.history.read(acme, ['revenue.mrr'], '2026-11-30', '2026-12-02');
    expect(one).toEqual(['2026-11-30', '2026-12-01', '2026-12-02'].map((date, i) => point(acme, 'revenue.mrr', date, 1000.5 + i * 0.25)));
    // Every metric of a project: the metric first, then the day.
    const all = await store.history.read(acme, undefined, '2026-12-03', '2026-12-04');
    expect(all.map((row) => [row.metric, row.date, row.value])).toEqual([
      ['analytics.visitors', '2026-12-03', 45],
      ['analytics.visitors', '2026-12-04', 46],
      ['revenue.mrr', '2026-12-03', 1001.25],
      ['revenue.mrr', '2026-12-04', 1001.5],
    ]);
    expect(await store.history.read(acme, ['revenue.mrr', 'analytics.visitors'], '2026-11-28', '2026-12-04')).toHaveLength(14);
    expect(await store.history.read(acme, [], '2026-11-28', '2026-12-04')).toEqual([]);
    expect(await store.history.read(acme, ['revenue.mrr'], '2026-12-05', '2026-12-31')).toEqual([]);
    // Every project's: by project, then metric, then day; booleans and sources as they went in.
    const everyone = await store.history.read(undefined, ['analytics.visitors'], '2026-12-01', '2026-12-01');
    expect(everyone).toEqual([point(acme, 'analytics.visitors', '2026-12-01', 43), point(orbit, 'analytics.visitors', '2026-12-01', 21, { late: true, source: 'backfill' })]);
  });

  it.skipIf(skipped)('answers unchanged for the same points again and changes nothing, not even when or how they were taken; a late day taken again on time is not late', async () => {
    const [acme] = projects('acme');
    // Values that are not exact in binary (some that one protocol rounds), and one far from 1.
    const points = days('2026-01-01', 5).map((date, i) => point(acme, 'search.ctr', date, TRICKY[i]!, { late: i === 0 }));
    points.push(point(acme, 'revenue.gross', '2026-01-01', 123456789.123456, { currency: 'EUR' }));
    expect(await store.history.put(points)).toEqual({ created: 6, updated: 0, unchanged: 0 });
    const again = points.map((p) => ({ ...p, source: 'import' as const, takenAt: TAKEN + 86_400_000 }));
    expect(await store.history.put(again)).toEqual({ created: 0, updated: 0, unchanged: 6 });
    expect(await store.history.read(acme, undefined, '2026-01-01', '2026-01-31')).toEqual([points[5], ...points.slice(0, 5)]);
    // The same value taken on time after a late snapshot: the day is no longer late.
    const onTime = { ...points[0]!, late: false, takenAt: TAKEN + 2 * 86_400_000 };
    expect(await store.history.put([onTime])).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect((await store.history.read(acme, ['search.ctr'], '2026-01-01', '2026-01-01'))[0]).toEqual(onTime);
  });

  it.skipIf(skipped)('replaces a point whose value or currency changed, with how the later one was taken', async () => {
    const [acme] = projects('acme');
    const [first, second, third] = ['2026-03-01', '2026-03-02', '2026-03-03'].map((date) => point(acme, 'revenue.net', date, 50));
    expect(await store.history.put([first!, second!])).toEqual({ created: 2, updated: 0, unchanged: 0 });
    const later = { source: 'backfill' as const, late: true, takenAt: TAKEN + 1 };
    const changed = [
      { ...first!, value: 51, ...later },
      { ...second!, currency: 'EUR', ...later },
      third!,
    ];
    expect(await store.history.put(changed)).toEqual({ created: 1, updated: 2, unchanged: 0 });
    expect(await store.history.read(acme, ['revenue.net'], '2026-03-01', '2026-03-03')).toEqual(changed);
    // A batch naming a day twice stores the later point, once.
    expect(await store.history.put([{ ...third!, value: 1 }, { ...third!, value: 2 }])).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect((await store.history.read(acme, ['revenue.net'], '2026-03-03', '2026-03-03')).map((row) => row.value)).toEqual([2]);
    await expect(store.history.put([{ ...third!, value: Number.NaN }])).rejects.toThrow(/not a finite number/);
  });

  it.skipIf(skipped)('puts a year of 20 metrics for 3 projects in one call, and reads one metric of it back', async () => {
    // 21,900 points: many statements' worth (each takes a few hundred rows). docs/databases.md has the timings for 10.
    const slugs = projects('bulk-0', 'bulk-1', 'bulk-2');
    const year = days('2025-12-08', 365);
    const metrics = Array.from({ length: 20 }, (_, i) => `metric.${String(i).padStart(2, '0')}`);
    const points = slugs.flatMap((project, p) => metrics.flatMap((metric, m) => year.map((date, d) => point(project, metric, date, p * 1e6 + m * 1e3 + d))));
    expect(await store.history.put(points)).toEqual({ created: 21_900, updated: 0, unchanged: 0 });
    expect(await store.history.count()).toBe(21_900);
    const read = await store.history.read('bulk-1', ['metric.07'], year[0]!, year[364]!);
    expect(read).toEqual(year.map((date, d) => point('bulk-1', 'metric.07', date, 1e6 + 7e3 + d)));
    const changed = points.map((p) => (p.date === year[100] ? { ...p, value: -1 } : p));
    expect(await store.history.put(changed)).toEqual({ created: 0, updated: 60, unchanged: 21_840 });
  }, 60_000);

  it.skipIf(skipped)('keeps one row per day when two stores on one database put the same days at once, and counts each exactly', async () => {
    const [acme] = projects('acme');
    const other = await openStore({ url, migrationsDir });
    onTestFinished(() => other.close());
    const month = days('2026-05-01', 31);
    for (let round = 0; round < 3; round++) {
      const [a, b] = await Promise.all([
        store.history.put(month.map((date) => point(acme, 'bugs.open', date, round * 10 + 1))),
        other.history.put(month.map((date) => point(acme, 'bugs.open', date, round * 10 + 2))),
      ]);
      // The two puts went one after the other: the first created (or replaced) every day, the second replaced it.
      expect(a.created + b.created).toBe(round === 0 ? 31 : 0);
      expect(a.updated + b.updated).toBe(round === 0 ? 31 : 62);
      expect(a.unchanged + b.unchanged).toBe(0);
      const rows = await store.history.read(acme, ['bugs.open'], month[0]!, month[30]!);
      expect(rows.map((row) => row.date)).toEqual(month);
      // Every day holds the value of whichever put went second.
      expect(new Set(rows.map((row) => row.value)).size).toBe(1);
    }
    const [a, b] = await Promise.all([store, other].map((s) => s.history.put(month.map((date) => point(acme, 'bugs.open', date, 99)))));
    expect([a!.created + b!.created, a!.updated + b!.updated, a!.unchanged + b!.unchanged]).toEqual([0, 31, 31]);
  }, 60_000);

  it.skipIf(skipped)('summarises each project and metric, counts every row, and removes projects’ history', async () => {
    const [acme, orbit, tally] = projects('acme', 'orbit', 'tally');
    await store.history.put([
      ...days('2026-02-01', 3).map((date) => point(acme, 'shipping.deploys', date, 2)),
      point(acme, 'analytics.pageviews', '2025-12-31', 10),
      ...days('2026-02-27', 4).map((date) => point(orbit, 'shipping.deploys', date, 1)),
      point(tally, 'ideas.open', '2026-02-01', 4),
    ]);
    expect(await store.history.summary(acme)).toEqual([
      { project: acme, metric: 'analytics.pageviews', points: 1, first: '2025-12-31', last: '2025-12-31' },
      { project: acme, metric: 'shipping.deploys', points: 3, first: '2026-02-01', last: '2026-02-03' },
    ]);
    expect((await store.history.summary()).map((row) => [row.project, row.metric, row.points, row.last])).toEqual([
      [acme, 'analytics.pageviews', 1, '2025-12-31'],
      [acme, 'shipping.deploys', 3, '2026-02-03'],
      [orbit, 'shipping.deploys', 4, '2026-03-02'],
      [tally, 'ideas.open', 1, '2026-02-01'],
    ]);
    expect(await store.history.summary('nobody')).toEqual([]);
    expect(await store.history.count()).toBe(9);
    expect(await store.history.removeForProjects([acme, tally, 'nobody', acme])).toBe(5);
    expect(await store.history.removeForProjects([])).toBe(0);
    expect(await store.history.count()).toBe(4);
    expect(await store.history.read(undefined, undefined, '2000-01-01', '2100-01-01')).toEqual(days('2026-02-27', 4).map((date) => point(orbit, 'shipping.deploys', date, 1)));
  });

  it.skipIf(skipped)('travels in a dump into another engine: every column as it was, counted', async () => {
    const target = engines[(engines.findIndex((engine) => engine.name === name) + 1) % engines.length]!;
    if (target.problem && !inCI) return;
    const [acme, orbit] = projects('acme', 'orbit');
    const points = [
      point(orbit, 'uptime.up_ratio', '2026-04-02', 0.9993055555555556, { late: true, source: 'backfill' }),
      point(acme, 'funding.balance', '2026-04-01', -1234.5, { currency: 'EUR', source: 'import' }),
      point(acme, 'uptime.up_ratio', '2026-04-01', TRICKY[3]!),
      point(acme, 'storefront.rating', '2026-04-01', 4.7, { takenAt: 1_796_632_231_696 }),
    ];
    await store.history.put(points);
    const dump = await store.transfer.dump();
    expect(dumpTablesSchema.safeParse(dump).error).toBeUndefined();
    // In key order, whatever the engine stored them in.
    expect(dump.metric_points).toEqual([points[1], points[3], points[2], points[0]]);
    expect((await store.transfer.counts()).metric_points).toBe(4);

    const database = await target.template.clone();
    const there = await openStore({ url: database.url, migrationsDir });
    onTestFinished(async () => {
      await there.close();
      await database.drop();
    });
    await there.transfer.restore({ metric_points: dump.metric_points });
    expect((await there.transfer.dump()).metric_points).toEqual(dump.metric_points);
    expect((await there.transfer.counts()).metric_points).toBe(4);
    expect(await there.history.read(undefined, undefined, '2026-04-01', '2026-04-02')).toEqual(await store.history.read(undefined, undefined, '2026-04-01', '2026-04-02'));
    expect(await there.history.put(points)).toEqual({ created: 0, updated: 0, unchanged: 4 });
  }, 60_000);
});
