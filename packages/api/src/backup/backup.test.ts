import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backupResultSchema, backupStatusSchema } from '@dash/contracts';
import { demoSetup, demoUpstreamsOf, sandboxTokens, startSandbox, type DemoUpstreams, type Sandbox } from '@dash/sandbox';
import { startDemo } from '../router/demo.ts';
import { createTestApi, restClient } from '../testing.ts';
import { backupPlan, specDelays } from './plan.ts';

type Api = Awaited<ReturnType<typeof createTestApi>>;

/**
 * SPEC.md's delays and RevenueCat's limit (5 a minute), shortened in proportion (1/50) so a test takes seconds,
 * not minutes. Each RevenueCat refresh is two requests: the lane waits on the limiter too, as a real one does.
 */
const delays = { revenue: 300, storefront: 40, other: 10 };
const rateLimits = { revenuecat: { limit: 5, windowMs: 1_200 } };

let sandbox: Sandbox;
let upstreams: DemoUpstreams;
const apis: Api[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  upstreams = demoUpstreamsOf(sandbox);
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());
afterEach(async () => {
  for (const api of apis.splice(0)) await api.dispose();
});

async function demoApi(options: Parameters<typeof createTestApi>[0] = {}) {
  const api = await createTestApi({ demo: { setup: () => Promise.resolve(demoSetup(upstreams)) }, backup: { delays }, rateLimits, ...options });
  apis.push(api);
  return api;
}

async function withDemo() {
  const api = await demoApi();
  await startDemo(api.ctx);
  sandbox.reset();
  return api;
}

/** The requests each sandbox service answered, by the service's name, in the order they came. */
const requestsBy = (service: string) => sandbox.requests.filter((request) => request.service === service);

describe('backup over the demo', () => {
  it('refreshes every integration of the three products, each lane waiting its delay, the lanes side by side', async () => {
    const api = await withDemo();
    const projects = await api.store.projects.list();
    const plan = backupPlan(projects, specDelays);
    const started = Date.now();
    const result = backupResultSchema.parse(await api.caller.backup.run());

    expect(result).toMatchObject({ refreshed: plan.length, failed: 0, errors: [] });
    expect(result.duration).toMatch(/^\d+s$/);
    // Every integration of every product was planned (revenue twice for RevenueCat: USD and CAD).
    const planned = plan.map((task) => `${task.project.slug} ${task.label}`);
    expect(planned).toEqual(expect.arrayContaining(['pocket-ledger revenue (USD)', 'pocket-ledger revenue (CAD)', 'formfox revenue', 'tideline funding (tideline-oss)']));
    for (const project of projects) {
      for (const integration of Object.keys(project.integrations)) {
        expect(plan.some((task) => task.project.slug === project.slug && task.integration === integration), `${project.slug} ${integration}`).toBe(true);
      }
    }
    // Each service of the demo was asked, and what the dashboard reads now is fresh from this backup.
    for (const service of ['revenuecat', 'stripe', 'linear', 'github', 'vercel', 'appstoreconnect', 'plausible', 'umami', 'google', 'sentry', 'betterstack', 'opencollective']) {
      expect(requestsBy(service).length, service).toBeGreaterThan(0);
    }
    const health = await api.caller.data.health({});
    expect(health.meta).toMatchObject({ cache: 'HIT' });
    expect(Date.parse(health.meta?.fetchedAt ?? '')).toBeGreaterThanOrEqual(started);
    const cad = await api.caller.data.revenue({ project: 'tideline', currency: 'CAD', range: '30d' });
    expect(cad.meta).toMatchObject({ cache: 'HIT' });

    // RevenueCat's lane: four calls (two products, two currencies), each start at least 300 ms after the previous one ended.
    const revenuecat = requestsBy('revenuecat').filter((request) => request.path.includes('/metrics/overview'));
    expect(revenuecat).toHaveLength(4);
    for (let i = 1; i < revenuecat.length; i++) expect((revenuecat[i]?.at ?? 0) - (revenuecat[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(delays.revenue);
    // The other lanes did not wait for it: GitHub (10 ms apart) was done before RevenueCat's last call (900 ms in),
    // a margin a busy machine keeps (its second call, 300 ms in, was one a loaded CI run could miss).
    expect(Math.max(...requestsBy('github').map((request) => request.at))).toBeLessThan(revenuecat[3]?.at ?? 0);

    const status = backupStatusSchema.parse(await api.caller.backup.status());
    expect(status).toMatchObject({ running: null, last: { ...result, trigger: 'dashboard' }, schedule: null, httpEnabled: false });
  });

  it('goes on past an upstream that fails, names it with its reason, and never a secret', async () => {
    const api = await withDemo();
    sandbox.inject('github', { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' } });
    const result = await api.caller.backup.run();
    const total = backupPlan(await api.store.projects.list(), specDelays).length;
    expect(result.failed).toBe(3);
    expect(result.refreshed).toBe(total - 3);
    expect(result.errors.map((error) => [error.project, error.integration])).toEqual([
      ['pocket-ledger', 'code_host'],
      ['formfox', 'code_host'],
      ['tideline', 'code_host'],
    ]);
    expect(result.errors[0]?.error).toMatch(/GitHub.*401|Bad credentials/);
    const text = JSON.stringify(result);
    for (const token of Object.values(sandboxTokens)) expect(text).not.toContain(token);
  });

  it('joins a second request in the same process: one backup, one result', async () => {
    const api = await withDemo();
    const [first, second] = await Promise.all([api.caller.backup.run(), api.caller.backup.run()]);
    expect(second).toEqual(first);
    expect(requestsBy('revenuecat').filter((request) => request.path.includes('/metrics/overview'))).toHaveLength(4);
  });

  it('shows its progress while it runs, and the last result after', async () => {
    const api = await withDemo();
    const started = await api.caller.backup.start();
    expect(started.running).toMatchObject({ trigger: 'dashboard', total: expect.any(Number) as number });
    expect(started.running?.lanes.map((lane) => lane.label)).toEqual(expect.arrayContaining(['RevenueCat (revenuecat:demo)', 'GitHub (github:demo)']));
    await expect.poll(async () => (await api.caller.backup.status()).running?.done ?? -1).toBeGreaterThan(0);
    const midway = await api.caller.backup.status();
    expect(midway.running?.done).toBeLessThan(midway.running?.total ?? 0);
    const revenueLane = midway.running?.lanes.find((lane) => lane.label.startsWith('RevenueCat'));
    expect(revenueLane).toMatchObject({ delayMs: delays.revenue, total: 4 });
    await expect.poll(async () => (await api.caller.backup.status()).running, { timeout: 10_000 }).toBeNull();
    expect((await api.caller.backup.status()).last).toMatchObject({ failed: 0, trigger: 'dashboard' });
  });

  it('answers 409 with the progress in a second process while the first backs up, on the same database', async () => {
    const first = await withDemo();
    const second = await demoApi({ dir: first.dir, credentialsKey: first.credentialsKey });
    const running = first.caller.backup.run();
    await expect.poll(async () => (await second.caller.backup.status()).running?.done ?? -1).toBeGreaterThanOrEqual(0);
    const rest = restClient(() => second.caller);
    const conflict = await rest('POST', '/api/backup');
    expect(conflict.status).toBe(409);
    expect(conflict.json).toMatchObject({ error: { code: 'CONFLICT', message: expect.stringMatching(/running in another dashboard process \(\d+ of \d+ done\)/) as string } });
    await running;
    const after = await rest('GET', '/api/backup');
    expect(after.json).toMatchObject({ running: null, last: { failed: 0 } });
  });

  it('runs on BACKUP_INTERVAL in exactly one of two processes on one database', async () => {
    const first = await withDemo();
    // The last backup started an interval and a bit ago: one is due now.
    await first.store.meta.put('backup:last', {
      refreshed: 0,
      failed: 0,
      duration: '0s',
      errors: [],
      startedAt: new Date(Date.now() - 61 * 60_000).toISOString(),
      finishedAt: new Date(Date.now() - 61 * 60_000).toISOString(),
      trigger: 'schedule',
    });
    const interval = { text: '1h', ms: 3_600_000 };
    const [a, b] = await Promise.all([demoApi({ dir: first.dir, credentialsKey: first.credentialsKey, backup: { delays, interval } }), demoApi({ dir: first.dir, credentialsKey: first.credentialsKey, backup: { delays, interval } })]);
    await expect.poll(async () => (await a.caller.backup.status()).last?.refreshed ?? 0, { timeout: 40_000 }).toBeGreaterThan(0);
    // Both processes see the new schedule; neither starts a second one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const status = await b.caller.backup.status();
    expect(status).toMatchObject({ running: null, last: { trigger: 'schedule', failed: 0 }, schedule: { every: '1h' } });
    expect(Date.parse(status.schedule?.nextAt ?? '')).toBe(Date.parse(status.last?.startedAt ?? '') + interval.ms);
    expect(requestsBy('revenuecat').filter((request) => request.path.includes('/metrics/overview'))).toHaveLength(4);
  });

  it('answers an empty result when there is no project', async () => {
    const api = await demoApi();
    expect(await api.caller.backup.run()).toEqual({ refreshed: 0, failed: 0, duration: '0s', errors: [] });
  });
});
