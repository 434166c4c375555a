// End to end: the dashboard's poller on the real relay process (apps/relay's bundle) and the real Redis (db 12, this
// file's own): every provider-signed webhook posted to the relay reaches the inbox once, in its project, across a
// restart of the dashboard, an outage of the relay, and a store through another relay process. The dashboard's own
// route, its live stream, the bell and Settings → Relay are notifications-in-dashboard.test.ts's.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Notification } from '@dash/contracts';
import { beforeEach, describe, expect, it } from 'vitest';
import * as betterstack from '../../../packages/webhooks/src/betterstack/fixtures.ts';
import * as github from '../../../packages/webhooks/src/github/fixtures.ts';
import * as linear from '../../../packages/webhooks/src/linear/fixtures.ts';
import * as sentry from '../../../packages/webhooks/src/sentry/fixtures.ts';
import * as vercel from '../../../packages/webhooks/src/vercel/fixtures.ts';
import { createProjects, hasTitles, inbox, json, mergedPr, pollNow, prTitle, received, relayStatus, relayToDashboard, signed, titles, type Inbox } from './relay-e2e.ts';
import { clearOfMidnight, sleep, until } from './waiting.ts';

const { redisProblem, flushRedis, cleanup, startRelay, dashboardFor } = await relayToDashboard(12);

/** A recording pass-through in front of the relay: which `since` each poll asked for and how many events it got. */
async function recordingProxy(relayPort: number) {
  const polls: { phase: string; since: number; events?: number }[] = [];
  const state = { phase: 'first' };
  const server = createHttpServer((req, res) => {
    const entry: { phase: string; since: number; events?: number } = { phase: state.phase, since: Number(new URL(req.url ?? '/', 'http://x').searchParams.get('since')) };
    if (req.url?.includes('/events')) polls.push(entry);
    const upstream = httpRequest({ host: '127.0.0.1', port: relayPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        if (answer.statusCode === 200 && req.url?.includes('/events')) entry.events = (JSON.parse(body.toString()) as unknown[]).length;
        res.writeHead(answer.statusCode ?? 502, answer.headers).end(body);
      });
    });
    upstream.on('error', () => res.destroy());
    // A poller that went away takes its held poll with it.
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/api`, polls, state };
}

/** The six deliveries: one of each provider, each matching a project, and a pull request of a repo no project lists. */
const sixDeliveries = () => [
  signed.github(github.pullRequest('closed', true)),
  signed.vercel(vercel.deployment('deployment.error')),
  signed.sentry(sentry.issue('created'), 'issue'),
  signed.linear(linear.issueUpdated(new Date().toISOString(), { movedFrom: 'state-unstarted' })),
  signed.betterstack(betterstack.incident('started')),
  mergedPr(42, 'acme/app'),
];
const sixExpected = [
  { integration: 'code_host', type: 'pr.merged', title: 'PR #2 merged: Update the README with new information.', project: 'web', severity: 'success', resolved: null },
  { integration: 'deploy_host', type: 'deploy.error', title: 'Deploy failed: my-app (production)', project: 'web', severity: 'error', resolved: false },
  { integration: 'error_tracker', type: 'error.issue_created', title: 'New issue FRONT-END-9: ReferenceError: blooopy is not defined', project: 'ops', severity: 'error', resolved: false },
  { integration: 'issue_tracker', type: 'issue.updated', title: 'ENG-123 moved to Done: Billing page', project: 'ops', severity: 'success', resolved: null },
  { integration: 'uptime_monitor', type: 'monitor.down', title: 'Monitor down: Tesla.com homepage (Error 500)', project: 'ops', severity: 'error', resolved: false },
  { integration: 'code_host', type: 'pr.merged', title: prTitle(42), project: null, severity: 'success', resolved: null },
];

describe.skipIf(redisProblem !== undefined && process.env.CI !== 'true')('webhooks from the relay process on Redis to the built dashboard', () => {
  beforeEach(flushRedis);

  it('brings provider-signed webhooks of all five integrations posted to the relay into the inbox, each once, in its project', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(relay);
    await createProjects(dashboard);
    // The relay status counts the events of the UTC day: the six, when the day does not turn before the last look.
    await clearOfMidnight(20_000);
    for (const delivery of sixDeliveries()) expect(await relay.send(delivery), delivery.integration).toEqual(received);

    // Nobody asks: the background poller's held poll brings them (within moments, not the 15 s interval).
    const box = await until(() => inbox(dashboard), (b) => b.notifications.length >= 6, 5_000, 'six notifications');
    const shape = (n: Notification) => ({ integration: n.integration, type: n.type, title: n.title, project: n.project, severity: n.severity, resolved: n.resolved });
    const byTitle = (a: { title: string }, b: { title: string }) => a.title.localeCompare(b.title);
    expect(box.notifications.map(shape).sort(byTitle)).toEqual([...sixExpected].sort(byTitle));
    expect(box.notifications.every((n) => n.readAt === null && n.eventCount === 1)).toBe(true);
    expect(box.unreadCount).toBe(6);

    // Exactly once: a while later, and after an explicit poll that finds nothing new.
    await sleep(1_000);
    expect(await pollNow(dashboard)).toEqual({ status: 200, body: { configured: true, eventCount: 0, relayTimestamp: expect.any(Number) } });
    const after = await inbox(dashboard);
    expect([titles(after), after.unreadCount]).toEqual([titles(box), 6]);
    expect((await relayStatus(dashboard)).poller).toMatchObject({ lastError: null, eventsToday: 6, longPoll: true });

    // The monitor's recovery is not a seventh notification: it resolves the outage.
    expect(await relay.send(signed.betterstack(betterstack.incident('resolved')))).toEqual(received);
    const outage = (box: Inbox) => box.notifications.find((n) => n.integration === 'uptime_monitor');
    const recovered = await until(() => inbox(dashboard), (b) => outage(b)?.resolved === true, 5_000, 'the outage resolved');
    expect(recovered.notifications).toHaveLength(6);
    expect(outage(recovered)).toMatchObject({ type: 'monitor.down', resolved: true, resolvedAt: '2020-10-21T11:02:10.000Z', eventCount: 2, project: 'ops' });
  }, 120_000);

  it('resumes from its stored cursor after a restart: the events sent while it was down arrive, none twice', async () => {
    const relay = await startRelay();
    const proxy = await recordingProxy(relay.port);
    const dataDir = mkdtempSync(join(tmpdir(), 'dash-e2e-cursor-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const sameStore = { DATA_DIR: dataDir, DATABASE_URL: `file:${join(dataDir, 'dashboard.db')}`, CREDENTIALS_KEY: randomBytes(32).toString('hex') };

    const first = await dashboardFor(proxy.url, sameStore);
    for (const n of [1, 2]) expect(await relay.send(mergedPr(n))).toEqual(received);
    await until(() => inbox(first), hasTitles(prTitle(1), prTitle(2)), 5_000, 'PRs 1 and 2');
    expect((await first.fetch('/api/notifications/read', { method: 'POST', headers: json, body: '{"all":true}' })).status).toBe(200);
    await first.stop();
    const lastCursor = proxy.polls.filter((p) => p.phase === 'first').at(-1)?.since ?? 0;
    expect(lastCursor).toBeGreaterThan(0);

    proxy.state.phase = 'second';
    for (const n of [3, 4]) expect(await relay.send(mergedPr(n))).toEqual(received);
    const second = await dashboardFor(proxy.url, sameStore);
    await until(() => inbox(second), hasTitles(prTitle(3), prTitle(4)), 5_000, 'PRs 3 and 4');
    // Its first poll asked from where the first process stopped, and got just the two new events.
    expect(proxy.polls.find((p) => p.phase === 'second')).toEqual({ phase: 'second', since: lastCursor, events: 2 });
    await sleep(500);
    const after = await inbox(second);
    expect(titles(after)).toEqual([1, 2, 3, 4].map(prTitle));
    // The read ones stayed read; the two new ones are the unread.
    expect([after.unreadCount, after.notifications.filter((n) => n.readAt === null).map((n) => n.title).sort()]).toEqual([2, [prTitle(3), prTitle(4)]]);
  });

  it('loses nothing when the relay goes away and comes back, keeps serving meanwhile, and logs the outage once', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(relay);
    expect(await relay.send(mergedPr(1))).toEqual(received);
    await until(() => inbox(dashboard), hasTitles(prTitle(1)), 5_000, 'PR 1');
    await sleep(300);

    // The relay dies under the poll the dashboard holds open.
    await relay.kill();
    const down = await until(() => relayStatus(dashboard), (s) => s.poller.lastError !== null, 5_000, 'a poller error');
    expect(down.poller.lastError).toMatch(/cannot be reached/);

    // The providers' webhooks keep landing in Redis through another relay process.
    const other = await startRelay();
    for (const n of [2, 3, 4]) expect(await other.send(mergedPr(n))).toEqual(received);
    await other.kill();

    // The dashboard keeps serving; "Poll now" says why it cannot (and adds no log line).
    expect(titles(await inbox(dashboard))).toEqual([prTitle(1)]);
    for (let i = 0; i < 2; i++) {
      expect(await pollNow(dashboard)).toEqual({ status: 502, body: { error: expect.objectContaining({ code: 'BAD_GATEWAY', message: expect.stringMatching(/cannot be reached/) }) } });
    }

    // Back on its address: the poller's retry brings every buffered event, once. Its back-off is 15 s after the first
    // failure and 30 s after a second (a busy machine keeps the relay away past the first retry): within 45 s.
    await startRelay(relay.port);
    const box = await until(() => inbox(dashboard), hasTitles(prTitle(2), prTitle(3), prTitle(4)), 45_000, 'PRs 2 to 4');
    await sleep(500);
    expect(titles(await inbox(dashboard))).toEqual([1, 2, 3, 4].map(prTitle));
    expect(box.unreadCount).toBe(4);
    expect((await relayStatus(dashboard)).poller.lastError).toBeNull();
    expect(dashboard.output().match(/relay poll failed/g), dashboard.output()).toHaveLength(1);
    expect(dashboard.output()).toMatch(/relay polled again after \d+ failed attempt/);
    // Three relay processes start, and the poller backs off while the relay is away: on a busy CI machine
    // running the suite's files in parallel this takes more than the project's minute.
  }, 120_000);

  it('is woken by a webhook stored through another relay process on the same Redis, well before the 15 s poll interval', async () => {
    const [a, b] = await Promise.all([startRelay(), startRelay()]);
    const dashboard = await dashboardFor(a);
    // A first event through A: the poller is then in its steady state, holding its next poll at A.
    expect(await a.send(mergedPr(1))).toEqual(received);
    await until(() => inbox(dashboard), hasTitles(prTitle(1)), 5_000, 'PR 1');
    await sleep(500);

    const sent = performance.now();
    expect(await b.send(mergedPr(2))).toEqual(received);
    await until(() => inbox(dashboard), hasTitles(prTitle(2)), 20_000, 'PR 2');
    const latency = performance.now() - sent;
    // Without B's store waking A's held poll it would come after the poll's 20 s wait (or the 15 s interval).
    expect(latency).toBeLessThan(5_000);
    expect((await relayStatus(dashboard)).poller.longPoll).toBe(true);
  });
});
