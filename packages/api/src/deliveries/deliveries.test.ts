import { randomUUID } from 'node:crypto';
import { testClock } from '@dash/connectors/testing';
import type { DeliveryDetail, DeliveryPage, DeliveryReplayResult, DeliverySummary, Notification, RefusalSummary } from '@dash/contracts';
import { receiveSettingsFrom } from '@dash/webhooks';
import { describe, expect, it } from 'vitest';
import * as betterstack from '../../../webhooks/src/betterstack/fixtures.ts';
import * as github from '../../../webhooks/src/github/fixtures.ts';
import * as vercel from '../../../webhooks/src/vercel/fixtures.ts';
import type { UserIdentity } from '../auth/access.ts';
import { createCaller } from '../root.ts';
import { createTestApi, restClient } from '../testing.ts';
import { deliveryTests, notificationsTo } from '../testing/delivery.ts';
import { hmac, JSON_TYPE, SECRET_ENV, SECRETS, signer, type Delivery } from '../notifications/signed-webhooks.ts';

// The webhook deliveries log (issue 53) end to end: provider-signed webhooks into the dashboard's own route, what
// GET /api/deliveries says each became, the body for the owner only, replays through today's policy to a chat
// connection (the sandbox's Slack), and the refusal counts.

const HOUR = 3_600_000;
const { sandbox, cleanup, slackHook } = deliveryTests();

async function dashboard({ bodyRetentionMs }: { bodyRetentionMs?: number } = {}) {
  const clock = testClock(Date.parse('2026-12-07T09:00:00Z'));
  const api = await createTestApi({
    clock,
    scheduler: false,
    relay: { receive: receiveSettingsFrom(SECRET_ENV), bodyRetentionMs },
    chat: { CHAT_SLACK_URL: sandbox.services.slack.url },
  });
  cleanup(() => api.dispose());
  await api.caller.projects.create({
    slug: 'web',
    name: 'Web',
    integrations: { code_host: { repos: ['codertocat/hello-world'] }, deploy_host: { projectId: 'prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB' } },
  });
  await api.caller.projects.create({ slug: 'ops', name: 'Ops', integrations: { uptime_monitor: { monitorIds: ['4'] } } });
  const call = restClient(() => api.caller);
  /** The REST adapter as someone else: a read token, a signed-in session. */
  const as = (identity: UserIdentity) => restClient(() => createCaller({ ...api.ctx, request: { identity, ip: '127.0.0.1', userAgent: undefined } }));
  return {
    ...api,
    clock,
    call,
    as,
    sign: signer(() => clock.now()),
    receive: (delivery: Delivery) =>
      api.ctx.notifications.webhooks.receive({ integration: delivery.integration, body: Buffer.from(delivery.body), headers: new Headers(delivery.headers), ip: '203.0.113.7' }),
    async list(query = ''): Promise<DeliveryPage> {
      const res = await call('GET', `/api/deliveries${query}`);
      expect(res.status, res.text).toBe(200);
      return res.json as unknown as DeliveryPage;
    },
    async detail(id: string, caller = call): Promise<DeliveryDetail> {
      const res = await caller('GET', `/api/deliveries/${id}`);
      expect(res.status, res.text).toBe(200);
      return res.json as unknown as DeliveryDetail;
    },
    async inbox(): Promise<Notification[]> {
      return (await call('GET', '/api/notifications?limit=100')).json.notifications as Notification[];
    },
  };
}
type Dash = Awaited<ReturnType<typeof dashboard>>;

const readToken: UserIdentity = { via: 'token', scope: 'read', tokenId: 'tok-read' };
const writeToken: UserIdentity = { via: 'token', scope: 'write', tokenId: 'tok-write' };

/** A GitHub delivery signed with the test secret, of any event kind and body (a body that is not JSON too). */
function githubRaw(body: string, event: string, deliveryId = randomUUID()): Delivery {
  return {
    integration: 'code_host',
    body,
    headers: { ...JSON_TYPE, 'x-github-event': event, 'x-github-delivery': deliveryId, 'x-hub-signature-256': `sha256=${hmac('sha256', SECRETS.code_host, body)}` },
  };
}

/** A merged PR on a repository no project has. */
const strangerPr = () => github.pullRequest('closed', true).replaceAll('Codertocat/Hello-World', 'someone/elsewhere');

/** Every outcome once: a PR, its copy, an outage and its end, a ping, a body that does not parse, a stranger's PR. */
async function everyOutcome(dash: Dash) {
  const pr = dash.sign.github();
  expect((await dash.receive(pr)).status).toBe(200);
  dash.clock.advance(1_000);
  expect((await dash.receive(dash.sign.github(pr.body))).status).toBe(200);
  dash.clock.advance(1_000);
  expect((await dash.receive(dash.sign.betterstack(betterstack.incident('started')))).status).toBe(200);
  dash.clock.advance(1_000);
  expect((await dash.receive(dash.sign.betterstack(betterstack.incident('resolved')))).status).toBe(200);
  dash.clock.advance(1_000);
  expect((await dash.receive(githubRaw(github.ping, 'ping'))).status).toBe(200);
  dash.clock.advance(1_000);
  expect((await dash.receive(githubRaw('{"action": "opened", ', 'pull_request'))).status).toBe(400);
  dash.clock.advance(1_000);
  expect((await dash.receive(dash.sign.github(strangerPr()))).status).toBe(200);
  return { pr };
}

describe('the deliveries log', () => {
  it('says what each webhook became: a new notification, a duplicate of it, a thread, ignored, invalid, and no project', async () => {
    const dash = await dashboard();
    const { pr } = await everyOutcome(dash);
    const { deliveries, nextCursor } = await dash.list();
    expect(nextCursor).toBeNull();
    const [stranger, invalid, ping, resolved, started, copy, first] = deliveries;
    expect(deliveries).toHaveLength(7);

    const merged = (await dash.inbox()).find((row) => row.integration === 'code_host' && row.project === 'web');
    expect(first).toMatchObject({ source: 'local', integration: 'code_host', outcome: 'notified', deliveryId: pr.headers['x-github-delivery'], projectSlug: 'web', notificationId: merged?.id, hasBody: true });
    expect(first?.eventType).toMatch(/^pr\./);
    expect(copy).toMatchObject({ outcome: 'duplicate', duplicateOf: first?.id, notificationId: merged?.id });
    expect(copy?.detail).toMatch(/copy of an event taken in before/);
    expect(started).toMatchObject({ integration: 'uptime_monitor', outcome: 'notified', projectSlug: 'ops' });
    expect(resolved).toMatchObject({ outcome: 'threaded', notificationId: started?.notificationId, detail: 'Closed the open thread of its subject' });
    expect(ping).toMatchObject({ outcome: 'ignored', eventType: 'ping', notificationId: null });
    expect(ping?.detail).toContain('"ping"');
    expect(invalid).toMatchObject({ outcome: 'invalid', eventType: 'pull_request', hasBody: true });
    expect(invalid?.detail).toMatch(/^The body did not parse as a GitHub webhook: /);
    expect(stranger).toMatchObject({ outcome: 'notified', projectSlug: null });
    expect(stranger?.detail).toContain('no project has the repository someone/elsewhere');
    // Newest first, every time strictly before the one above it.
    expect(deliveries.map((row) => row.receivedAt)).toEqual([...deliveries.map((row) => row.receivedAt)].sort().reverse());
  });

  it('logs each of the five providers’ webhooks with its delivery id, kind and the notification it became', async () => {
    const dash = await dashboard();
    await dash.call('PATCH', '/api/projects/ops', { integrations: { error_tracker: { org: 'acme', project: 'front-end' }, issue_tracker: { teamIds: ['team-eng'] } } });
    for (const provider of ['github', 'vercel', 'sentry', 'linear', 'betterstack'] as const) {
      expect((await dash.receive(dash.sign[provider]())).status, provider).toBe(200);
      dash.clock.advance(1_000);
    }
    const rows = (await dash.list()).deliveries.reverse();
    const inbox = await dash.inbox();
    expect(rows.map((row) => row.integration)).toEqual(['code_host', 'deploy_host', 'error_tracker', 'issue_tracker', 'uptime_monitor']);
    for (const row of rows) {
      const notification = inbox.find((item) => item.id === row.notificationId);
      expect(notification, row.integration).toBeDefined();
      expect(row).toMatchObject({ outcome: 'notified', eventType: notification?.type, title: notification?.title, projectSlug: notification?.project, hasBody: true });
      expect(row.deliveryId, row.integration).toMatch(/^\S{8,}$/);
    }
  });

  it('filters by provider, outcome, time, text and notification, and pages by cursor through every row once', async () => {
    const dash = await dashboard();
    await everyOutcome(dash);
    const all = (await dash.list()).deliveries;
    const ids = (page: DeliveryPage) => page.deliveries.map((row) => row.id);
    expect(ids(await dash.list('?outcome=duplicate'))).toEqual(all.filter((row) => row.outcome === 'duplicate').map((row) => row.id));
    expect(ids(await dash.list('?integration=uptime_monitor'))).toHaveLength(2);
    expect(ids(await dash.list('?integration=code_host&outcome=notified'))).toHaveLength(2);
    expect(ids(await dash.list('?q=PING'))).toEqual(all.filter((row) => row.eventType === 'ping').map((row) => row.id));
    const since = new Date(Date.parse(all[2]?.receivedAt as string)).toISOString();
    expect(ids(await dash.list(`?since=${encodeURIComponent(since)}`))).toEqual(all.slice(0, 3).map((row) => row.id));
    expect(ids(await dash.list(`?until=${encodeURIComponent(since)}`))).toEqual(all.slice(3).map((row) => row.id));
    const first = all.at(-1) as DeliverySummary;
    expect(ids(await dash.list(`?notification=${first.notificationId}`))).toEqual([all.at(-2)?.id, first.id]);

    const paged: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: DeliveryPage = await dash.list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.deliveries.length).toBeLessThanOrEqual(2);
      paged.push(...ids(page));
      cursor = page.nextCursor;
    }
    expect(paged).toEqual(all.map((row) => row.id));

    const bad = await dash.call('GET', '/api/deliveries?outcome=lost');
    expect(bad.status).toBe(400);
    expect((await dash.call('GET', '/api/deliveries?cursor=bm9wZQ')).status).toBe(400);
    expect((await dash.call('GET', `/api/deliveries?since=${encodeURIComponent(since)}&until=${encodeURIComponent(since)}`)).status).toBe(400);
  });

  it('shows the body pretty-printed to the owner only, for its day, and keeps the row 30 days', async () => {
    const dash = await dashboard();
    const { pr } = await everyOutcome(dash);
    const first = (await dash.list('?outcome=duplicate')).deliveries[0]?.duplicateOf as string;
    const owner = await dash.detail(first, dash.as({ via: 'session', scope: 'write', sessionId: 's1' }));
    expect(owner.body).toBe(JSON.stringify(JSON.parse(pr.body), null, 2));
    expect(owner.bodyNote).toBeNull();
    expect(owner.decision?.trace.length).toBeGreaterThan(0);
    const token = await dash.detail(first, dash.as(readToken));
    expect(token).toMatchObject({ body: null, bodyNote: 'owner_only', outcome: 'notified' });
    expect(token.hasBody).toBe(true);
    // A body that is not JSON comes back as it came.
    const invalid = (await dash.list('?outcome=invalid')).deliveries[0]?.id as string;
    expect((await dash.detail(invalid)).body).toBe('{"action": "opened", ');

    dash.clock.advance(24 * HOUR);
    await dash.ctx.notifications.deliveries.prune();
    expect(await dash.detail(first)).toMatchObject({ body: null, bodyNote: 'expired', hasBody: false });
    expect((await dash.list()).deliveries.every((row) => !row.hasBody)).toBe(true);

    dash.clock.advance(30 * 24 * HOUR);
    await dash.ctx.notifications.deliveries.prune();
    expect((await dash.list()).deliveries).toEqual([]);
    const gone = await dash.call('GET', `/api/deliveries/${first}`);
    expect(gone.status).toBe(404);
  });

  it('keeps no body at all with WEBHOOK_BODY_RETENTION_HOURS=0', async () => {
    const dash = await dashboard({ bodyRetentionMs: 0 });
    await everyOutcome(dash);
    const rows = (await dash.list()).deliveries;
    expect(rows.map((row) => row.hasBody)).toEqual(rows.map(() => false));
    expect(await dash.detail(rows.at(-1)?.id as string)).toMatchObject({ body: null, bodyNote: 'not_kept' });
    expect((await dash.store.deliveries.many(rows.map((row) => row.id))).every((row) => row.body === null)).toBe(true);
  });
});

describe('a replay', () => {
  /** A deploy that failed and recovered before a Slack connection existed. */
  async function failedDeploy(dash: Dash) {
    expect((await dash.receive(dash.sign.vercel(vercel.deployment('deployment.error')))).status).toBe(200);
    dash.clock.advance(60_000);
    expect((await dash.receive(dash.sign.vercel(vercel.deployment('deployment.succeeded')))).status).toBe(200);
    const rows = (await dash.list('?integration=deploy_host')).deliveries;
    const added = await dash.call('POST', '/api/channels', { name: '#deploys', destination: { kind: 'slack', webhookUrl: slackHook('#deploys').pasted } });
    expect(added.status, added.text).toBe(201);
    return { error: rows.at(-1) as DeliverySummary, succeeded: rows[0] as DeliverySummary };
  }

  const drainChats = (dash: Dash) => notificationsTo('chats')(dash.ctx);

  it('goes through today’s policy to a chat connection added since, once, and the same request again sends nothing', async () => {
    const dash = await dashboard();
    const { error } = await failedDeploy(dash);
    await drainChats(dash);
    expect(sandbox.slackMessages()).toEqual([]);

    const requestId = randomUUID();
    const replay = await dash.call('POST', '/api/deliveries/replay', { ids: [error.id], requestId });
    expect(replay.status, replay.text).toBe(200);
    const result = replay.json as unknown as DeliveryReplayResult;
    expect(result).toMatchObject({ requestId, repeated: false, skipped: [] });
    expect(result.replayed).toHaveLength(1);
    expect(result.replayed[0]).toMatchObject({ source: 'replay', replayOf: error.id, outcome: 'notified', deliveryId: error.deliveryId, eventType: 'deploy.error' });
    await drainChats(dash);
    expect(sandbox.slackMessages().map((message) => message.text)).toEqual([expect.stringContaining('Deploy failed')]);

    const again = await dash.call('POST', '/api/deliveries/replay', { ids: [error.id], requestId });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ repeated: true, replayed: [{ id: result.replayed[0]?.id }] });
    await drainChats(dash);
    expect(sandbox.slackMessages()).toHaveLength(1);

    // Marked replayed in its "Why?", and the original lists it.
    const detail = await dash.detail(result.replayed[0]?.id as string);
    expect(detail.decision?.trace[0]).toMatchObject({ stage: 'replay', verdict: 'noted' });
    expect(detail.decision?.trace[0]?.why).toContain(error.deliveryId as string);
    expect((await dash.detail(error.id)).replays).toEqual([expect.objectContaining({ id: result.replayed[0]?.id, outcome: 'notified' })]);
    const thread = (await dash.inbox()).find((row) => row.id === result.replayed[0]?.notificationId);
    expect(thread?.decision?.trace.some((entry) => entry.stage === 'replay')).toBe(true);
  });

  it('of the same request twice at once replays once', async () => {
    const dash = await dashboard();
    const { error } = await failedDeploy(dash);
    const requestId = randomUUID();
    const both = await Promise.all([0, 1].map(() => dash.call('POST', '/api/deliveries/replay', { ids: [error.id], requestId })));
    expect(both.map((res) => res.status)).toEqual([200, 200]);
    expect(both.map((res) => (res.json as unknown as DeliveryReplayResult).repeated).sort()).toEqual([false, true]);
    expect((await dash.list('?q=' + encodeURIComponent(error.deliveryId as string))).deliveries.filter((row) => row.source === 'replay')).toHaveLength(1);
    await drainChats(dash);
    expect(sandbox.slackMessages()).toHaveLength(1);
  });

  it('skips what carried no event and ids it does not know, is the owner’s only, and refuses bad input', async () => {
    const dash = await dashboard();
    await everyOutcome(dash);
    const ping = (await dash.list('?outcome=ignored')).deliveries[0] as DeliverySummary;
    const res = await dash.call('POST', '/api/deliveries/replay', { ids: [ping.id, 'no-such-row'], requestId: randomUUID() });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ replayed: [], skipped: [{ id: ping.id, why: expect.stringContaining('ignored') }, { id: 'no-such-row', why: expect.stringContaining('No such delivery') }] });

    const before = (await dash.list()).deliveries.length;
    for (const identity of [readToken, writeToken]) {
      const refused = await dash.as(identity)('POST', '/api/deliveries/replay', { ids: [ping.id], requestId: randomUUID() });
      expect(refused.status).toBe(403);
    }
    for (const body of [{ ids: [], requestId: randomUUID() }, { ids: [ping.id, ping.id], requestId: randomUUID() }, { ids: [ping.id], requestId: 'short' }, { ids: [ping.id] }]) {
      const bad = await dash.call('POST', '/api/deliveries/replay', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
    expect((await dash.list()).deliveries).toHaveLength(before);
  });
});

describe('the refusal counts', () => {
  it('count what the local route turned away per hour and reason, and say what to check', async () => {
    const dash = await dashboard();
    const wrong = signer(() => dash.clock.now(), { ...SECRETS, code_host: 'not-the-secret' });
    for (let i = 0; i < 3; i++) expect((await dash.receive(wrong.github())).status).toBe(401);
    expect((await dash.receive({ ...dash.sign.github(), headers: { ...dash.sign.github().headers, 'content-type': 'text/plain' } })).status).toBe(415);
    const summary = (await dash.call('GET', '/api/deliveries/refusals')).json as unknown as RefusalSummary;
    expect(summary.counts).toEqual(
      expect.arrayContaining([
        { hour: '2026-12-07T09:00:00.000Z', source: 'local', integration: 'code_host', reason: 'bad_signature', count: 3 },
        { hour: '2026-12-07T09:00:00.000Z', source: 'local', integration: 'code_host', reason: 'not_json', count: 1 },
      ]),
    );
    expect(summary.advice[0]?.message).toBe('GitHub: 3 refused for a bad signature in the last hour: check the webhook secret: the one saved at the service must be the relay’s');
    // Nothing refused is in the deliveries log: it never became an event.
    expect((await dash.list()).deliveries).toEqual([]);
    // Two hours on, the last hour's advice is empty; the counts are still there.
    dash.clock.advance(2 * HOUR);
    const later = (await dash.call('GET', `/api/deliveries/refusals?since=${encodeURIComponent('2026-12-07T08:00:00Z')}`)).json as unknown as RefusalSummary;
    expect(later.advice).toEqual([]);
    expect(later.counts).toHaveLength(2);
    expect((await dash.call('GET', '/api/deliveries/refusals?since=yesterday')).status).toBe(400);
  });
});

// The relay's side (its counts read through a real poll, bodies forwarded by the relay) is in relay-deliveries.test.ts.
