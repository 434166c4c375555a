// Two dashboard processes (`node apps/web/build`) on one Postgres database with one CREDENTIALS_KEY, behind a
// round-robin proxy, as README's "Running more than one process" describes them: together they keep each
// upstream's published limit, fetch a cache miss once, stream what the other ingested, and run the backup and the
// notification digest once. One sandbox stands in for the upstreams and counts what reached them.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import { postgresProblem, scratchPostgres } from '@dash/db/testing';
import { sandboxEmail, sandboxTokens, startSandbox, type LoggedRequest, type Sandbox } from '@dash/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployment } from '../../../packages/webhooks/src/vercel/fixtures.ts';
import { startDashboard, type RunningDashboard } from './server.ts';
import { sleep, until } from './waiting.ts';

const VERCEL_SECRET = 'vercel-signing-secret';
const BACKUP_SECRET = 'scale-out-backup-secret';
/** RevenueCat's published limit (packages/connectors/src/revenuecat), which the sandbox enforces with a 429. */
const REVENUECAT = { limit: 5, windowMs: 60_000 };

const postgresDown = await postgresProblem();
if (postgresDown) {
  if (process.env.CI === 'true') throw new Error(`CI=true needs the test Postgres, which is unreachable: ${postgresDown}`);
  console.warn(`\n*** The test Postgres is unreachable (${postgresDown}): the scale-out tests are SKIPPED ***\n`);
}

/**
 * A round-robin reverse proxy: each request goes to the next backend, streamed both ways (an event stream passes
 * unbuffered), with its Host kept and no X-Forwarded-* added, as a plain TCP-level balancer would. The answer says
 * which backend served it in `x-served-by` (0 or 1), for the assertions only.
 */
async function startProxy() {
  const backends: number[] = [];
  let turn = 0;
  const server = createServer((req, res) => {
    const index = turn++ % backends.length;
    const upstream = httpRequest({ host: '127.0.0.1', port: backends[index], method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-served-by': String(index) });
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}`, backends, close };
}

/** A failed production deploy of `name`, signed as Vercel signs it; each call is a new event of its own subject. */
function failedDeploy(name: string): { body: string; headers: Record<string, string> } {
  const event = JSON.parse(deployment('deployment.error', { target: 'production', id: `dpl_${randomBytes(8).toString('hex')}` })) as {
    id: string;
    payload: { deployment: { name: string }; project: { id: string } };
  };
  event.id = `evt_${randomBytes(8).toString('hex')}`;
  event.payload.deployment.name = name;
  event.payload.project.id = `prj_${name}`;
  const body = JSON.stringify(event);
  return { body, headers: { 'content-type': 'application/json', 'x-vercel-signature': createHmac('sha1', VERCEL_SECRET).update(body).digest('hex') } };
}

/** The most requests of `log` inside any one window of `windowMs`. */
function busiestWindow(log: readonly LoggedRequest[], windowMs: number): number {
  return Math.max(0, ...log.map((first) => log.filter((r) => r.at >= first.at && r.at < first.at + windowMs).length));
}

/** `GET /api/notifications/stream` read as an EventSource reads it: each event with the moment it came. */
async function openStream(url: string) {
  const abort = new AbortController();
  const response = await fetch(`${url}/api/notifications/stream`, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
  const events: { fields: Record<string, string>; at: number }[] = [];
  void (async () => {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        buffer += read.value;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const lines = buffer.slice(0, end).split('\n').filter((line) => line !== '' && !line.startsWith(':'));
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).replace(/^ /, '')]));
          if (lines.length > 0) events.push({ fields, at: performance.now() });
        }
      }
    } catch {
      // Aborted by close().
    }
  })();
  return { response, events, close: () => abort.abort() };
}

describe.skipIf(postgresDown !== undefined && process.env.CI !== 'true')('two dashboard processes on one Postgres behind a round-robin proxy', () => {
  let sandbox: Sandbox;
  let database: Awaited<ReturnType<typeof scratchPostgres>>;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  const dashboards: RunningDashboard[] = [];
  const closing: (() => void)[] = [];
  /** A request through the proxy as the dashboard's own pages send it (dashboard.fetch: ORIGIN is the proxy). */
  const send = (path: string, init: RequestInit = {}) => dashboards[0]!.fetch(path, init);
  const post = (path: string, body: unknown) => send(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const servedBy = (answer: Response) => answer.headers.get('x-served-by');

  beforeAll(async () => {
    [sandbox, database, proxy] = await Promise.all([startSandbox(), scratchPostgres(), startProxy()]);
    // The limit RevenueCat publishes and the dashboard promises to keep (the fake's default is the Charts domain's 25).
    sandbox.limit('revenuecat', REVENUECAT);
    const env = {
      DATABASE_URL: database.url,
      CREDENTIALS_KEY: randomBytes(32).toString('hex'),
      ORIGIN: proxy.url,
      BACKUP_SECRET,
      WEBHOOK_SECRET_VERCEL: VERCEL_SECRET,
      SENDGRID_API_KEY: sandboxTokens.sendgrid,
      SENDGRID_API_URL: sandbox.services.sendgrid.url,
      ALERT_EMAIL_FROM: sandboxEmail.from,
      ALERT_EMAIL_TO: 'founder@example.com',
    };
    // At once, as a compose file starts them: one migrates the fresh database while the other waits for its lock.
    dashboards.push(...(await Promise.all([startDashboard({ env }), startDashboard({ env })])));
    proxy.backends.push(...dashboards.map((dashboard) => dashboard.port));

    for (const [key, values] of [
      ['revenuecat', { apiKey: sandboxTokens.revenuecat, baseUrl: sandbox.services.revenuecat.baseUrl }],
      ['opencollective', { personalToken: sandboxTokens.opencollective, baseUrl: sandbox.services.opencollective.baseUrl }],
    ] as const) {
      expect((await post('/api/credentials', { key, values })).status).toBe(200);
    }
    expect((await post('/api/projects', { slug: 'tideline', name: 'Tideline', integrations: { funding: { slug: 'tideline-oss' } } })).status).toBe(201);
  });
  afterAll(async () => {
    for (const close of closing) close();
    await Promise.all(dashboards.map((dashboard) => dashboard.stop()));
    await proxy?.close();
    await sandbox?.close();
    await database?.drop();
  });

  it('keeps RevenueCat within its 5 requests a minute across both processes', async () => {
    // Six projects on one RevenueCat account, each its own cache key: 12 calls wanted, 5 a minute allowed.
    const slugs = Array.from({ length: 6 }, (_, i) => `app-${i}`);
    for (const slug of slugs) {
      const revenue = { provider: 'revenuecat', projectId: 'proj4f2a9c1e' };
      expect((await post('/api/projects', { slug, name: `App ${slug}`, integrations: { revenue } })).status).toBe(201);
    }
    try {
      const answers = await Promise.all(slugs.map((slug) => send(`/api/revenue?project=${slug}`)));
      expect(new Set(answers.map(servedBy))).toEqual(new Set(['0', '1']));
      const calls = sandbox.requestsTo('revenuecat');
      expect(calls.filter((call) => call.status === 429), 'RevenueCat had to answer 429').toEqual([]);
      expect(busiestWindow(calls, REVENUECAT.windowMs)).toBeLessThanOrEqual(REVENUECAT.limit);
      const bodies = await Promise.all(answers.map(async (answer) => ({ status: answer.status, body: (await answer.json()) as { error?: { message: string } } })));
      // Twelve calls do not fit in five: what could not be fetched says why, the dashboard's limit, not RevenueCat's 429.
      const refused = bodies.filter((answer) => answer.status !== 200);
      expect(refused.length).toBeGreaterThan(0);
      for (const { status, body } of refused) {
        expect([status, body.error?.message]).toEqual([502, expect.stringMatching(/RevenueCat allows only so many requests a minute/)]);
      }
    } finally {
      // Out of the backup below, whose RevenueCat lane waits 15 s between calls.
      for (const slug of slugs) await send(`/api/projects/${slug}`, { method: 'DELETE' });
    }
  });

  it('fetches a cache miss once across both processes: one upstream call, one MISS, the rest HIT, one body', async () => {
    // Slow enough that every request arrives while the first fetch is still out.
    sandbox.inject('opencollective', { latencyMs: 1_000, times: 2 });
    const before = sandbox.requestsTo('opencollective').length;
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => send('/api/funding?project=tideline')));
      expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
      expect(new Set(answers.map(servedBy))).toEqual(new Set(['0', '1']));
      const bodies = await Promise.all(answers.map((answer) => answer.text()));
      expect(sandbox.requestsTo('opencollective').length - before).toBe(1);
      expect(answers.map((answer) => answer.headers.get('x-cache')).sort()).toEqual([...Array(7).fill('HIT'), 'MISS']);
      // The same answer whoever served it: the same data, fetched at the same moment.
      expect(new Set(bodies).size).toBe(1);
      expect(new Set(answers.map((answer) => answer.headers.get('x-cache-fetched-at'))).size).toBe(1);
    } finally {
      sandbox.services.opencollective.harness.clearFaults();
    }
  });

  it('streams to a client of one process a notification the other process stored, within a second', async () => {
    const stream = await openStream(proxy.url);
    closing.push(stream.close);
    expect(stream.response.status).toBe(200);
    await until(() => Promise.resolve(stream.events.length), (n) => n > 0, 5_000, 'the retry advice');

    const delivery = failedDeploy('streamed-app');
    const delivered = await fetch(`${proxy.url}/api/webhooks/deploy_host`, { method: 'POST', headers: delivery.headers, body: delivery.body });
    expect(await delivered.json()).toEqual({ received: true, eventCount: 1 });
    const stored = performance.now();
    // The round robin sent the delivery to the process the stream is not on.
    expect(servedBy(delivered)).not.toBe(servedBy(stream.response));

    const event = await until(
      () => Promise.resolve(stream.events.find((e) => e.fields.event === 'notification')),
      (found) => found !== undefined,
      5_000,
      'the notification on the other process’s stream',
      10,
    );
    expect(JSON.parse(event!.fields.data ?? '{}')).toMatchObject({ notification: { title: 'Deploy failed: streamed-app (production)' } });
    // Postgres announces the commit (LISTEN/NOTIFY) and the other process reads the change feed at once; its read
    // every second is only the fallback.
    expect(event!.at - stored).toBeLessThan(1_000);
    stream.close();
  });

  it('runs a backup asked of both processes at once once: one answers with the result, the other that one is running', async () => {
    // Open Collective answers slowly this once, so the second request meets the first backup running.
    sandbox.inject('opencollective', { latencyMs: 1_500, times: 1 });
    const before = sandbox.requestsTo('opencollective').length;
    const backup = () => fetch(`${proxy.url}/api/backup`, { method: 'POST', headers: { authorization: `Bearer ${BACKUP_SECRET}` } });
    const answers = await Promise.all([backup(), backup()]);
    expect(new Set(answers.map(servedBy))).toEqual(new Set(['0', '1']));
    const results = (await Promise.all(answers.map(async (answer) => ({ status: answer.status, body: (await answer.json()) as unknown })))).sort((a, b) => a.status - b.status);
    expect(results).toEqual([
      { status: 200, body: { refreshed: 1, failed: 0, duration: expect.stringMatching(/^\d+s$/) as string, errors: [] } },
      { status: 409, body: { error: { code: 'CONFLICT', message: expect.stringMatching(/is running in another dashboard process/) as string } } },
    ]);
    // One round of calls: the funding project's one.
    expect(sandbox.requestsTo('opencollective').length - before).toBe(1);
  });

  it('sends a failed deploy’s email once, and one digest when a pause runs out on both processes at the same moment', async () => {
    // The deploy streamed above was emailed at once (a failed deploy is critical), by one process only.
    const mailsAbout = (name: string) => sandbox.mails().filter((mail) => mail.subject.includes(name));
    await until(() => Promise.resolve(mailsAbout('streamed-app').length), (n) => n > 0, 10_000, 'the failed deploy’s email');

    // The next one is made a warning by email, which a pause holds for the digest. Each save goes to both processes
    // (the proxy alternates); when the pause runs out, both schedulers look at the same moment, and one digest goes.
    const rule = { id: 'held', name: 'Paused app by email', enabled: true, match: { titleContains: 'paused-app' }, actions: { setSeverity: 'warning', addChannels: ['email'] }, stop: false };
    const rules = () => send('/api/notifications/rules', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rules: [rule] }) });
    const pauseEnd = Date.now() + 5_000;
    const pause = () => post('/api/notifications/pause', { until: new Date(pauseEnd).toISOString() });
    for (const save of [rules, pause]) {
      const answers = [await save(), await save()];
      expect(answers.map((answer) => [answer.status, servedBy(answer)]).sort()).toEqual([[200, '0'], [200, '1']]);
    }
    const delivery = failedDeploy('paused-app');
    const delivered = await fetch(`${proxy.url}/api/webhooks/deploy_host`, { method: 'POST', headers: delivery.headers, body: delivery.body });
    expect(delivered.status).toBe(200);
    await sleep(1_000);
    expect(mailsAbout('paused-app')).toEqual([]);

    const digests = () => sandbox.mails().filter((mail) => mail.subject.startsWith('While notifications were paused'));
    await until(() => Promise.resolve(digests().length), (n) => n > 0, 15_000, 'the digest email');
    // At the pause's end, not at a scheduler's next half-minute look.
    expect(Date.now() - pauseEnd).toBeLessThan(5_000);
    // Long enough for the other process's look and its email sender after it.
    await sleep(2_000);
    expect(digests()).toHaveLength(1);
    expect(digests()[0]?.text).toContain('paused-app');
    expect(mailsAbout('streamed-app')).toHaveLength(1);
  });
});
