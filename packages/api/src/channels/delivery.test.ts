import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelConnection } from '@dash/contracts';
import type { FakeDiscord } from '@dash/sandbox';
import type { RelayEvent } from '@dash/webhooks';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { events } from '../notifications/test-events.ts';
import { deliveryTests, notificationsTo } from '../testing/delivery.ts';

// The chat channel end to end, against the sandbox's Slack, Discord, Telegram and ntfy (each held to its provider's
// documents) and a local receiver for the signed webhook: an outage held, then one message per connection; its recovery
// editing Discord's message, replying on Telegram, naming the outage elsewhere; floors, quiet hours, mutes, the digest
// and the dry run per connection; 429 after the service's hint; 404 marks the connection and stops; two processes and
// a process that dies holding a claim.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY_MS = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const t0 = Date.parse('2026-11-25T10:00:00Z');

const { sandbox, dashboard: deliveryDashboard, scratchDir, slackHook, chatAtSandbox } = deliveryTests();

/** What the signed-webhook receiver got: each request's path and query, headers and body. */
const received: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
let receiverUrl = '';
let receiverStatus = 200;
/** What the receiver does with each request before it answers (a test's slow receiver), if anything. */
let beforeAnswer: (() => Promise<void>) | undefined;
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({ url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
    void (beforeAnswer?.() ?? Promise.resolve()).finally(() => response.writeHead(receiverStatus).end());
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/dashboard`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});
beforeEach(() => {
  received.length = 0;
  receiverStatus = 200;
  beforeAnswer = undefined;
});

const discord = () => sandbox.services.discord.harness.service as FakeDiscord;

function discordHook() {
  const hook = discord().createWebhook(sandbox.services.discord.url);
  return { ...hook, pasted: hook.url.replace(sandbox.services.discord.url, 'https://discord.com') };
}

/** A dashboard with its own clock (the test ticks and drains), the chat services' roots at the sandbox. */
async function dashboard(start: number, options: { dir?: string } = {}) {
  const dash = await deliveryDashboard(start, { prefix: 'dash-chat-', credentialsKey: Buffer.alloc(32, 7), chat: chatAtSandbox(), after: notificationsTo('chats'), ...options });
  return {
    ...dash,
    async connections(): Promise<ChannelConnection[]> {
      return ((await dash.call('GET', '/api/channels')).json as { connections: ChannelConnection[] }).connections;
    },
    sends: () => dash.store.channels.sends.recent(100),
  };
}

type Dash = Awaited<ReturnType<typeof dashboard>>;

/** One connection of each kind. */
async function everyKind(dash: Dash) {
  const slack = slackHook();
  const hook = discordHook();
  const bot = sandbox.createTelegramBot();
  const chat = sandbox.createTelegramChat('supergroup', 'Founders');
  await dash.add({ name: '#ops', destination: { kind: 'slack', webhookUrl: slack.pasted } });
  await dash.add({ name: 'Discord #alerts', destination: { kind: 'discord', webhookUrl: hook.pasted } });
  await dash.add({ name: 'Founders group', destination: { kind: 'telegram', botToken: bot.token, chatId: String(chat.id) } });
  await dash.add({ name: 'Phone', destination: { kind: 'ntfy', server: sandbox.services.ntfy.url, topic: 'founder-alerts-x7' } });
  const { secret } = await dash.add({ name: 'Zapier', destination: { kind: 'webhook', url: receiverUrl } });
  return { slack, hook, bot, chat, secret: secret ?? '' };
}

const deployFailed = (at: number, id = 'dpl_1'): RelayEvent => ({
  id: randomUUID(),
  integration: 'deploy_host',
  type: 'deploy.error',
  sourceEventId: `vercel:${id}:error`,
  title: 'Deploy failed: web',
  severity: 'error',
  occurredAt: iso(at),
  receivedAt: iso(at),
});

describe('chat and webhook connections as a channel of the policy', () => {
  it('sends an outage once to each connection after the hold; its recovery edits Discord’s message, replies on Telegram and names the outage elsewhere', async () => {
    const dash = await dashboard(t0);
    const { secret, chat } = await everyKind(dash);
    await dash.ingest(events.down('api.formfox.app', 'inc1', t0));
    await dash.at(t0 + 30_000);
    expect(sandbox.slackMessages()).toEqual([]);
    await dash.at(t0 + 121_000);
    await dash.at(t0 + 5 * MINUTE);
    const [row] = (await dash.caller.notifications.list({})).notifications;
    expect(row?.decision?.channels).toEqual(['inApp', 'browser', 'chat']);

    expect(sandbox.slackMessages().map((message) => message.text)).toEqual(['Monitor down: api.formfox.app']);
    expect(discord().messages.map((message) => message.embeds[0]?.title)).toEqual(['Monitor down: api.formfox.app']);
    const [told] = sandbox.telegramMessages();
    expect(told?.text).toContain('Monitor down: api.formfox.app');
    expect(told?.chat.id).toBe(chat.id);
    expect(sandbox.ntfyMessages('founder-alerts-x7').map((message) => [message.title, message.priority])).toEqual([['Monitor down: api.formfox.app', 5]]);
    // The signed webhook: verified by the reference implementation, its id the delivery's, the thread's link in it.
    expect(received).toHaveLength(1);
    // (It checks the timestamp against its own clock: the test's instant, for the moment of the check.)
    vi.useFakeTimers({ toFake: ['Date'], now: dash.clock.now() });
    const verified = new Webhook(secret).verify(received[0]?.body ?? '', received[0]?.headers as Record<string, string>) as { type: string; data: { title: string } };
    vi.useRealTimers();
    expect(verified).toMatchObject({ type: 'notification.alert', data: { title: 'Monitor down: api.formfox.app' } });
    // With the thread as it stood and its decision, so a receiver can act on more than the text.
    expect(JSON.parse(received[0]?.body ?? '{}')).toMatchObject({
      data: { url: null, thread: { id: row?.id, status: 'open', eventCount: 1, decision: { severity: 'error', channels: ['inApp', 'browser', 'chat'] } } },
    });

    dash.clock.advance(15 * MINUTE);
    await dash.ingest(events.up('api.formfox.app', 'inc1', t0 + 20 * MINUTE));
    await dash.at(t0 + 20 * MINUTE);
    // Discord: the same message, edited in place to the recovery.
    expect(discord().messages).toHaveLength(1);
    expect(discord().messages[0]).toMatchObject({ editedAt: expect.any(Number) });
    expect(JSON.stringify(discord().messages[0]?.embeds)).toContain('Monitor up: api.formfox.app');
    // Telegram: a reply to the outage's message.
    expect(sandbox.telegramMessages()[1]).toMatchObject({ replyTo: told?.message_id });
    // Slack and ntfy cannot edit: a new message that names the outage and how long it lasted.
    expect(JSON.stringify(sandbox.slackMessages()[1]?.body)).toContain('Ends: Monitor down: api.formfox.app (down 20 min)');
    expect(sandbox.ntfyMessages('founder-alerts-x7')[1]?.message).toContain('Ends: Monitor down: api.formfox.app (down 20 min)');
    expect(JSON.parse(received[1]?.body ?? '{}')).toMatchObject({
      type: 'notification.resolve',
      data: { recovers: { title: 'Monitor down: api.formfox.app', lastedMs: 20 * MINUTE }, thread: { id: row?.id, status: 'resolved', eventCount: 2 } },
    });

    const sends = await dash.sends();
    expect(sends).toHaveLength(10);
    expect(sends.every((send) => send.state === 'delivered' && send.attempts === 1)).toBe(true);
    expect((await dash.connections()).every((connection) => connection.lastSuccessAt === iso(t0 + 20 * MINUTE))).toBe(true);
  });

  it('sends a metric alert to every connection with what else happened, strangers’ text inert in each medium, and its return to range after it (issue 51)', async () => {
    const dash = await dashboard(t0);
    const { secret } = await everyKind(dash);
    await dash.caller.projects.create({ slug: 'shop', name: 'Shop' });
    const hostile = 'Deploy "<@U024BE7LH> *fix* <https://evil.example|click> @everyone <b>x</b>" on Mon 23 Nov';
    const alert = {
      integration: 'metrics' as const,
      subject: 'metric:shop:revenue.mrr',
      url: null,
      projectSlug: 'shop',
    };
    await dash.ctx.notifications.inbox.ingestOwn([
      { ...alert, sourceEventId: 'metric:r1:0:2026-11-25:open', type: 'metric.threshold', transition: 'trigger', severity: 'error', title: 'MRR below $10,000: $9,420', occurredAt: iso(t0), context: [hostile] },
    ]);
    await dash.at(t0 + MINUTE);
    const [row] = (await dash.caller.notifications.list({ integration: 'metrics' })).notifications;
    expect(row?.decision?.trace[0]).toMatchObject({ stage: 'context', name: 'What else happened', why: hostile });

    // Slack: plain text with its control characters escaped, so nothing formats, links or mentions.
    const [slack] = sandbox.slackMessages();
    expect(slack?.text).toBe('MRR below $10,000: $9,420');
    const section = (slack?.body as { blocks: { type: string; text?: { type: string; text: string } }[] }).blocks.find((block) => block.type === 'section' && block.text);
    expect(section?.text).toEqual({ type: 'plain_text', text: `shop · Metric alerts\n${hostile.replaceAll('<', '&lt;').replaceAll('>', '&gt;')}`, emoji: false });
    // Discord: markdown escaped, and an embed never pings.
    const embed = discord().messages[0]?.embeds[0];
    expect(embed?.title).toBe('MRR below $10,000: $9,420');
    expect(embed?.description).toContain('\\*fix\\*');
    expect(embed?.description).not.toContain(' *fix* ');
    // Telegram: HTML escaped, so the chat shows the tags as text (the fake parses the HTML as Telegram does).
    const [telegram] = sandbox.telegramMessages();
    expect(telegram?.text).toContain(hostile);
    expect(telegram?.sentText).toContain('&lt;b&gt;x&lt;/b&gt;');
    // ntfy: plain text with the line; the signed webhook: the line in the body's text, verified.
    expect(sandbox.ntfyMessages('founder-alerts-x7')[0]?.message).toContain(hostile);
    vi.useFakeTimers({ toFake: ['Date'], now: dash.clock.now() });
    const verified = new Webhook(secret).verify(received[0]?.body ?? '', received[0]?.headers as Record<string, string>) as { type: string; data: { title: string; body: string } };
    vi.useRealTimers();
    expect(verified).toMatchObject({ type: 'notification.alert', data: { title: 'MRR below $10,000: $9,420', body: `shop · Metric alerts\n${hostile}` } });

    // Back in range: each connection is told after the alert, Discord's message edited, Telegram answered.
    dash.clock.advance(DAY_MS);
    await dash.ctx.notifications.inbox.ingestOwn([
      { ...alert, sourceEventId: 'metric:metric:shop:revenue.mrr:2026-11-26:resolved', type: 'metric.resolved', transition: 'resolve', lasted: 'Out of range for', severity: 'success', title: 'MRR back above $10,000: $10,250', occurredAt: iso(dash.clock.now()) },
    ]);
    await dash.at(dash.clock.now());
    expect(sandbox.slackMessages().map((message) => message.text)).toEqual(['MRR below $10,000: $9,420', 'MRR back above $10,000: $10,250']);
    expect(JSON.stringify(discord().messages[0]?.embeds)).toContain('MRR back above $10,000: $10,250');
    expect(sandbox.telegramMessages()[1]).toMatchObject({ replyTo: telegram?.message_id });
    expect(JSON.parse(received[1]?.body ?? '{}')).toMatchObject({ type: 'notification.resolve', data: { title: 'MRR back above $10,000: $10,250' } });
    expect((await dash.sends()).every((send) => send.state === 'delivered')).toBe(true);
  });

  it('keeps each connection’s floor, names in the dry run the connections an event reaches, and says why when there are none', async () => {
    const dash = await dashboard(t0);
    const failed = { integration: 'deploy_host', type: 'deploy.error', severity: 'error', title: 'Deploy failed', transition: null } as const;
    expect((await dash.caller.notifications.dryRun({ event: failed })).delivery.chat).toEqual({
      status: 'none',
      until: null,
      why: 'no chat message: no chat or webhook connection is ready (Settings → Notifications → Chat and webhooks)',
    });
    expect((await dash.caller.notifications.policy()).chat).toEqual({ available: false, connections: 0, reason: expect.stringContaining('Chat and webhooks') });
    const ops = (await dash.add({ name: '#ops', minSeverity: 'error', destination: { kind: 'slack', webhookUrl: slackHook('#ops').pasted } })).connection;
    dash.clock.advance(1_000);
    const team = (await dash.add({ name: '#team', minSeverity: 'warning', destination: { kind: 'slack', webhookUrl: slackHook('#team').pasted } })).connection;
    expect((await dash.caller.notifications.policy()).chat).toEqual({ available: true, connections: 2, reason: null });
    expect((await dash.caller.notifications.dryRun({ event: failed })).delivery.chat).toEqual({
      status: 'now',
      until: null,
      why: 'queued for each chat and webhook connection',
      connections: [
        { id: ops.id, name: '#ops' },
        { id: team.id, name: '#team' },
      ],
    });
    // A warning: not at all by default (chat goes as email does: errors), then, once a preference opens chat for it, to
    // the connection whose floor is warning only.
    const issue = { integration: 'error_tracker', type: 'error.issue_created', severity: 'warning', title: 'TypeError', transition: null } as const;
    expect((await dash.caller.notifications.dryRun({ event: issue })).delivery.chat).toMatchObject({ status: 'none', why: 'no chat message: its decision does not open that channel' });
    await dash.caller.notifications.savePreferences({
      preferences: [{ integration: 'error_tracker', type: '*', enabled: true, minSeverity: 'warning', channels: { browser: false, email: false, chat: true } }],
    });
    expect((await dash.caller.notifications.dryRun({ event: issue })).delivery.chat).toMatchObject({ status: 'now', connections: [{ id: team.id, name: '#team' }] });
    await dash.ingest(events.issue('7', t0 + 1_000));
    await dash.at(t0 + 2_000);
    expect(sandbox.slackMessages().map((message) => message.channel)).toEqual(['#team']);
    const [row] = (await dash.caller.notifications.list({})).notifications;
    expect(row?.decision?.trace.at(-1)?.why).toBe('sent to #team');
  });

  it('says in "Why?" where an outage went when its hold ended: the chat connection, and the tabs only when the browser is on (issue 48)', async () => {
    const dash = await dashboard(t0);
    await dash.add({ name: '#ops', minSeverity: 'error', destination: { kind: 'slack', webhookUrl: slackHook('#ops').pasted } });
    // Monitors to chat only: the browser off.
    await dash.caller.notifications.savePreferences({
      preferences: [{ integration: 'uptime_monitor', type: '*', enabled: true, minSeverity: 'error', channels: { browser: false, email: false, chat: true } }],
    });
    await dash.ingest(events.down('api', 'inc1', t0));
    await dash.at(t0 + 2 * MINUTE);
    expect(sandbox.slackMessages().map((message) => message.text)).toEqual(['Monitor down: api']);
    const lastWhy = async (title: string) => (await dash.caller.notifications.list({})).notifications.find((row) => row.title === title)?.decision?.trace.at(-1)?.why;
    expect(await lastWhy('Monitor down: api')).toBe('still down after the 2 min hold; sent to #ops');
    // With the browser on as well, the one line names both.
    await dash.caller.notifications.savePreferences({
      preferences: [{ integration: 'uptime_monitor', type: '*', enabled: true, minSeverity: 'error', channels: { browser: true, email: false, chat: true } }],
    });
    await dash.ingest(events.down('web', 'inc2', t0 + 3 * MINUTE));
    await dash.at(t0 + 5 * MINUTE);
    expect(await lastWhy('Monitor down: web')).toBe(
      'still down after the 2 min hold; sent to the open dashboard tabs: a browser notification where the dashboard is hidden, a toast where it is in view; sent to #ops',
    );
  });

  it('names in the dry run of a recovery only the connections its outage went to (issue 48)', async () => {
    const dash = await dashboard(t0);
    await dash.add({ name: '#ops', minSeverity: 'error', destination: { kind: 'slack', webhookUrl: slackHook('#ops').pasted } });
    const team = (await dash.add({ name: '#team', minSeverity: 'warning', destination: { kind: 'slack', webhookUrl: slackHook('#team').pasted } })).connection;
    await dash.caller.notifications.savePreferences({
      preferences: [{ integration: 'error_tracker', type: '*', enabled: true, minSeverity: 'warning', channels: { browser: false, email: false, chat: true } }],
    });
    // A warning: to #team only (#ops takes errors).
    await dash.ingest(events.issue('7', t0 + 1_000));
    await dash.at(t0 + 2_000);
    expect(sandbox.slackMessages().map((message) => message.channel)).toEqual(['#team']);
    const resolved = { integration: 'error_tracker', type: 'error.issue_resolved', severity: 'success', title: 'TypeError in checkout (7) resolved', transition: 'resolve', subjectKey: 'sentry:issue:7' } as const;
    expect((await dash.caller.notifications.dryRun({ event: resolved })).delivery.chat).toMatchObject({ status: 'now', connections: [{ id: team.id, name: '#team' }] });
    // And the real recovery goes there alone.
    await dash.ingest(events.issue('7', t0 + 3_000, 'resolved'));
    await dash.at(t0 + 4_000);
    expect(sandbox.slackMessages().map((message) => message.channel)).toEqual(['#team', '#team']);
  });

  it('defers through quiet hours into one digest message per connection, lets a critical one through, and sends nothing for a muted subject', async () => {
    const night = Date.parse('2026-11-25T22:30:00Z');
    const dash = await dashboard(night);
    await dash.add({ name: '#ops', minSeverity: 'warning', destination: { kind: 'slack', webhookUrl: slackHook('#ops').pasted } });
    const hook = discordHook();
    await dash.add({ name: 'Discord', minSeverity: 'warning', destination: { kind: 'discord', webhookUrl: hook.pasted } });
    await dash.caller.notifications.saveQuietHours({ enabled: true, timezone: 'UTC', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '22:00', end: '07:00' }] });
    await dash.caller.notifications.saveRules({
      rules: [{ id: 'w', name: 'Warnings to the team', enabled: true, match: { integrations: ['error_tracker'] }, actions: { addChannels: ['chat'] }, stop: false }],
    });
    await dash.ingest(events.issue('1', night + 10 * MINUTE));
    await dash.at(night + 11 * MINUTE);
    expect(sandbox.slackMessages()).toEqual([]);
    await dash.caller.notifications.mute({ subjectKey: 'betterstack:monitor:muted', until: iso(night + 10 * HOUR) });
    await dash.ingest(events.down('muted', 'inc-m', night + 20 * MINUTE));
    await dash.at(night + 25 * MINUTE);
    expect(sandbox.slackMessages()).toEqual([]);
    // A failed production deploy (critical) goes through at once, to both.
    await dash.ingest(deployFailed(night + 30 * MINUTE));
    await dash.at(night + 31 * MINUTE);
    expect(sandbox.slackMessages().map((message) => message.text)).toEqual(['Deploy failed: web']);
    expect(discord().messages).toHaveLength(1);

    // 07:00: one digest message on each, with the warning and without the muted monitor.
    await dash.at(Date.parse('2026-11-26T07:00:00Z'));
    const digest = sandbox.slackMessages()[1];
    expect(JSON.stringify(digest?.body)).toContain('TypeError in checkout (1)');
    expect(JSON.stringify(digest?.body)).not.toContain('muted');
    expect(discord().messages).toHaveLength(2);
    // (Discord's copy has its Markdown escaped: "\\(1\\)".)
    expect(JSON.stringify(discord().messages[1]?.embeds)).toContain('TypeError in checkout');
    expect(sandbox.slackMessages()).toHaveLength(2);
  });

  it('tells each connection’s digest only what reaches its floor: a night’s warning stays out of an errors-only #ops (issue 48)', async () => {
    const night = Date.parse('2026-11-25T22:30:00Z');
    const dash = await dashboard(night);
    const ops = (await dash.add({ name: 'ops', minSeverity: 'error', destination: { kind: 'webhook', url: `${receiverUrl}?to=ops` } })).connection;
    await dash.add({ name: 'team', minSeverity: 'warning', destination: { kind: 'webhook', url: `${receiverUrl}?to=team` } });
    const all = (await dash.add({ name: 'all', minSeverity: 'info', destination: { kind: 'webhook', url: `${receiverUrl}?to=all` } })).connection;
    const later = (await dash.add({ name: 'later', minSeverity: 'warning', destination: { kind: 'webhook', url: `${receiverUrl}?to=later` } })).connection;
    await dash.caller.notifications.saveQuietHours({ enabled: true, timezone: 'UTC', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '22:00', end: '07:00' }] });
    await dash.caller.notifications.saveRules({
      rules: [{ id: 'w', name: 'Issues to chat', enabled: true, match: { integrations: ['error_tracker'] }, actions: { addChannels: ['chat'] }, stop: false }],
    });
    const toldTo = (to: string) => received.filter((request) => request.url.endsWith(`to=${to}`)).map((request) => (JSON.parse(request.body) as { data: { title: string; body: string } }).data);

    // 23:10, a warning: held for the morning (an error would go through quiet hours at once).
    await dash.ingest(events.issue('1', night + 40 * MINUTE));
    await dash.at(night + 41 * MINUTE);
    expect(received).toEqual([]);
    // 07:00: the digest is queued for the connections whose floor the warning reaches; #ops, errors only, gets none,
    // and nothing is queued for it to skip. "later" is made errors-only before it is sent: it gets none either.
    dash.clock.advance(Date.parse('2026-11-26T07:00:00Z') - dash.clock.now());
    await dash.ctx.notifications.inbox.tick();
    expect((await dash.call('PATCH', `/api/channels/${later.id}`, { minSeverity: 'error' })).status).toBe(200);
    await dash.ctx.notifications.chats.drain();
    const digest = { title: 'While quiet hours were on (22:00–07:00): 1 still open', body: expect.stringContaining('TypeError in checkout (1)') };
    expect(toldTo('team')).toEqual([expect.objectContaining(digest)]);
    expect(toldTo('all')).toEqual([expect.objectContaining(digest)]);
    expect(toldTo('ops')).toEqual([]);
    expect(toldTo('later')).toEqual([]);
    const sends = await dash.sends();
    expect(sends.filter((send) => send.connectionId === ops.id)).toEqual([]);
    expect(sends.filter((send) => send.connectionId === later.id)).toEqual([expect.objectContaining({ state: 'skipped', error: 'Nothing in the digest reaches this connection’s floor' })]);
    expect(sends.filter((send) => send.connectionId === all.id)).toEqual([expect.objectContaining({ state: 'delivered' })]);
  });

  it('tries a 429 again no sooner than the service’s own hint, then sends it once', async () => {
    const dash = await dashboard(t0);
    await dash.add({ name: '#ops', destination: { kind: 'slack', webhookUrl: slackHook().pasted } });
    sandbox.inject('slack', { status: 429, headers: { 'retry-after': '90' }, body: 'rate_limited', times: 1 });
    await dash.ingest(deployFailed(t0));
    await dash.at(t0 + 1_000);
    const [waiting] = await dash.sends();
    expect(waiting).toMatchObject({ state: 'queued', attempts: 1, status: 429, dueAt: t0 + 1_000 + 90_000 });
    expect((await dash.connections())[0]).toMatchObject({ lastFailure: expect.stringContaining('Slack answered 429'), needsAttention: null });
    await dash.at(t0 + 60_000);
    expect(sandbox.slackMessages()).toEqual([]);
    await dash.at(t0 + 91_000);
    expect(sandbox.slackMessages().map((message) => message.text)).toEqual(['Deploy failed: web']);
    expect((await dash.sends())[0]).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it('sends a recovery after its outage when the outage waits for a retry, so Slack’s last word is "up" (issue 48)', async () => {
    const dash = await dashboard(t0);
    await dash.add({ name: '#ops', destination: { kind: 'slack', webhookUrl: slackHook().pasted } });
    await dash.ingest(events.down('api', 'inc1', t0));
    // The hold ends at 10:02 and Slack answers the outage 429, Retry-After 120: it is tried again at 10:04.
    sandbox.inject('slack', { status: 429, headers: { 'retry-after': '120' }, body: 'rate_limited', times: 1 });
    await dash.at(t0 + 2 * MINUTE);
    // Recovered two seconds later: the recovery waits behind its outage instead of going first (or not at all).
    await dash.ingest(events.up('api', 'inc1', t0 + 2 * MINUTE + 2_000));
    await dash.at(t0 + 2 * MINUTE + 2_000);
    expect(sandbox.slackMessages()).toEqual([]);
    expect((await dash.sends()).map((send) => [send.delivery.purpose, send.state, send.attempts]).sort()).toEqual([
      ['first', 'queued', 1],
      ['resolve', 'queued', 0],
    ]);
    await dash.at(t0 + 5 * MINUTE);
    await dash.at(t0 + 6 * MINUTE);
    const texts = sandbox.slackMessages().map((message) => JSON.stringify(message.body));
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain('Monitor down: api');
    expect(texts[1]).toContain('Monitor up: api');
    expect(texts[1]).toContain('Ends: Monitor down: api');
  });

  it('tells a connection "stable again" after a flap that had another outage, naming its "flapping" (issue 48)', async () => {
    const dash = await dashboard(t0);
    // The signed webhook: a receiver that takes every message at once (the fake Slack keeps to one a second, on its own clock).
    await dash.add({ name: 'Zapier', destination: { kind: 'webhook', url: receiverUrl } });
    // Down and up at 10:00/10:03, 10:05/10:08 and 10:10/10:13 (the third outage starts the flap), down at 10:15, up at 10:17.
    const changes: [number, 'down' | 'up', string][] = [
      [0, 'down', 'i1'], [3, 'up', 'i1'], [5, 'down', 'i2'], [8, 'up', 'i2'], [10, 'down', 'i3'], [13, 'up', 'i3'], [15, 'down', 'i4'], [17, 'up', 'i4'],
    ];
    for (const [minute, change, incident] of changes) {
      const at = t0 + minute * MINUTE;
      await dash.at(at);
      await dash.ingest(change === 'down' ? events.down('api', incident, at) : events.up('api', incident, at));
      await dash.at(at + 2 * MINUTE);
    }
    type Body = { type: string; data: { title: string; recovers: { title: string } | null } };
    const bodies = () => received.map((request) => JSON.parse(request.body) as Body);
    expect(bodies().at(-1)?.data.title).toBe('Monitor down: api: flapping');
    // Stable for 15 minutes from 10:17: the flap's end goes where its start went, and names it.
    await dash.at(t0 + 33 * MINUTE);
    expect(bodies().at(-1)).toMatchObject({ type: 'notification.resolve', data: { title: 'Monitor down: api: stable again', recovers: { title: 'Monitor down: api: flapping' } } });
  });

  it('keeps a flap’s "still down" off a connection whose floor kept its "flapping" off (issue 48)', async () => {
    const dash = await dashboard(t0);
    await dash.add({ name: 'ops', minSeverity: 'error', destination: { kind: 'webhook', url: `${receiverUrl}?to=ops` } });
    await dash.add({ name: 'team', minSeverity: 'warning', destination: { kind: 'webhook', url: `${receiverUrl}?to=team` } });
    // Down and up at 10:00/10:03 and 10:05/10:08; down at 10:10 (the third outage: flapping, a warning), and it stays down.
    const changes: [number, 'down' | 'up', string][] = [[0, 'down', 'i1'], [3, 'up', 'i1'], [5, 'down', 'i2'], [8, 'up', 'i2'], [10, 'down', 'i3']];
    for (const [minute, change, incident] of changes) {
      const at = t0 + minute * MINUTE;
      await dash.at(at);
      await dash.ingest(change === 'down' ? events.down('api', incident, at) : events.up('api', incident, at));
      await dash.at(at + 2 * MINUTE);
    }
    // Quiet for 15 minutes from 10:10: the flap ends, still down.
    await dash.at(t0 + 26 * MINUTE);
    const titlesTo = (to: string) => received.filter((request) => request.url.endsWith(`to=${to}`)).map((request) => (JSON.parse(request.body) as { data: { title: string } }).data.title);
    expect(titlesTo('team')).toEqual(['Monitor down: api', 'Monitor up: api', 'Monitor down: api', 'Monitor up: api', 'Monitor down: api: flapping', 'Monitor down: api: still down']);
    expect(titlesTo('ops')).toEqual(['Monitor down: api', 'Monitor up: api', 'Monitor down: api', 'Monitor up: api']);
  });

  it('marks a connection whose webhook was deleted (404) “needs attention”, sends it nothing more until it is fixed, and keeps the others going', async () => {
    const dash = await dashboard(t0);
    const gone = slackHook('#old');
    const ops = (await dash.add({ name: '#old', destination: { kind: 'slack', webhookUrl: gone.pasted } })).connection;
    await dash.add({ name: '#team', destination: { kind: 'slack', webhookUrl: slackHook('#team').pasted } });
    sandbox.deleteSlackWebhook(gone.id);
    await dash.ingest(deployFailed(t0, 'dpl_1'));
    await dash.at(t0 + 1_000);
    expect(sandbox.slackMessages().map((message) => message.channel)).toEqual(['#team']);
    const marked = (await dash.connections()).find((connection) => connection.id === ops.id);
    expect(marked).toMatchObject({ needsAttention: expect.stringContaining('Slack answered 404'), lastFailureAt: iso(t0 + 1_000) });
    expect(JSON.stringify(marked)).not.toContain(gone.pasted.split('/').pop());
    // Nothing more is queued for it; the policy's view counts only the connection that works.
    expect((await dash.caller.notifications.policy()).chat.connections).toBe(1);
    await dash.ingest(deployFailed(t0 + MINUTE, 'dpl_2'));
    await dash.at(t0 + MINUTE + 1_000);
    expect((await dash.sends()).filter((send) => send.connectionId === ops.id).map((send) => send.state)).toEqual(['gone']);
    expect(sandbox.requestsTo('slack', `/services/${gone.team}/${gone.id}`)).toHaveLength(1);
    // Fixed with a new webhook: cleared, and the next one reaches it.
    const fresh = slackHook('#old');
    const fixed = await dash.call('PATCH', `/api/channels/${ops.id}`, { destination: { kind: 'slack', webhookUrl: fresh.pasted } });
    expect(fixed.status).toBe(200);
    expect((fixed.json as { connection: ChannelConnection }).connection.needsAttention).toBeNull();
    await dash.ingest(deployFailed(t0 + 2 * MINUTE, 'dpl_3'));
    await dash.at(t0 + 2 * MINUTE + 1_000);
    expect(sandbox.slackMessages().filter((message) => message.webhookId === fresh.id)).toHaveLength(1);
  });

  it('sends each message once per connection when two processes drain the same database', async () => {
    const dir = scratchDir('dash-chat-two-');
    const first = await dashboard(t0, { dir });
    const second = await dashboard(t0, { dir });
    await first.add({ name: '#ops', destination: { kind: 'slack', webhookUrl: slackHook().pasted } });
    await first.add({ name: 'Discord', destination: { kind: 'discord', webhookUrl: discordHook().pasted } });
    for (let i = 0; i < 5; i++) await first.ingest(deployFailed(t0 + i, `dpl_${i}`));
    first.clock.advance(2_000);
    second.clock.advance(2_000);
    await Promise.all([first.ctx.notifications.chats.drain(), second.ctx.notifications.chats.drain(), first.ctx.notifications.chats.drain()]);
    expect(sandbox.slackMessages()).toHaveLength(5);
    expect(discord().messages).toHaveLength(5);
  });

  it('sends each message once when a batch outlives its claim: a slow receiver, and another process claiming meanwhile (issue 48)', async () => {
    const dir = scratchDir('dash-chat-slow-');
    const first = await dashboard(t0, { dir });
    const second = await dashboard(t0, { dir });
    await first.add({ name: 'Zapier', destination: { kind: 'webhook', url: receiverUrl } });
    // The test drains, so that nothing else wakes either sender.
    await Promise.all([first.ctx.notifications.chats.stop(), second.ctx.notifications.chats.stop()]);
    for (let i = 0; i < 20; i++) await first.ingest(deployFailed(t0 + i, `dpl_slow_${i}`));
    first.clock.advance(2_000);
    second.clock.advance(2_000);
    // A receiver that takes 8 s a message (both clocks move on by as much). The first process claims all 20 for two
    // minutes; while it is on its 16th, past the two minutes, the second process drains and claims what it can.
    const claimedAt = first.clock.now();
    let secondDrain: Promise<void> | undefined;
    beforeAnswer = async () => {
      first.clock.advance(8_000);
      second.clock.advance(8_000);
      if (secondDrain === undefined && first.clock.now() > claimedAt + 2 * MINUTE) {
        secondDrain = second.ctx.notifications.chats.drain();
        await secondDrain;
      }
    };
    await first.ctx.notifications.chats.drain();
    expect(secondDrain).toBeDefined();
    await secondDrain;
    // Each message once: the second process sent what the first no longer held, and the first did not send it again.
    const ids = received.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
    const sends = await first.sends();
    expect(sends.map((send) => [send.state, send.attempts])).toEqual(Array.from({ length: 20 }, () => ['delivered', 1]));
  });

  it('sends once what a process claimed and died holding, after its claim runs out', async () => {
    const dir = scratchDir('dash-chat-crash-');
    const first = await dashboard(t0, { dir });
    await first.add({ name: '#ops', destination: { kind: 'slack', webhookUrl: slackHook().pasted } });
    // Its sender has not come to it yet (stopped here, so the release does not wake it).
    await first.ctx.notifications.chats.stop();
    await first.ingest(deployFailed(t0));
    // The process claims the message (as its sender does first) and dies before it reaches Slack.
    const [claimed] = await first.store.channels.sends.claim('the-process-that-died', first.clock.now(), 2 * MINUTE, 10);
    expect(claimed?.delivery.message.title).toBe('Deploy failed: web');
    await first.dispose({ keepFiles: true });
    const restarted = await dashboard(t0 + MINUTE, { dir });
    await restarted.ctx.notifications.chats.drain();
    expect(sandbox.slackMessages()).toEqual([]);
    await restarted.at(t0 + 3 * MINUTE);
    expect(sandbox.slackMessages().map((message) => message.text)).toEqual(['Deploy failed: web']);
    // The dead process's late answer (had it lived) changes nothing: it no longer holds the claim.
    await restarted.store.channels.sends.settle(claimed?.id ?? '', 'the-process-that-died', { state: 'failed', attempts: 1, dueAt: 0, status: null, error: 'late', providerId: null, sentAt: null });
    expect((await restarted.sends())[0]).toMatchObject({ state: 'delivered', attempts: 1 });
    await restarted.at(t0 + HOUR);
    expect(sandbox.slackMessages()).toHaveLength(1);
  });

  it('sends a signed webhook whose receiver answers 410 nothing more, and says why in Settings', async () => {
    const dash = await dashboard(t0);
    const hook = (await dash.add({ name: 'Receiver', destination: { kind: 'webhook', url: receiverUrl } })).connection;
    receiverStatus = 410;
    await dash.ingest(deployFailed(t0));
    await dash.at(t0 + 1_000);
    expect((await dash.connections())[0]).toMatchObject({ id: hook.id, needsAttention: expect.stringContaining('answered 410') });
    await dash.ingest(deployFailed(t0 + MINUTE, 'dpl_2'));
    await dash.at(t0 + 2 * MINUTE);
    expect(received).toHaveLength(1);
  });
});
