import { describe, expect, it } from 'vitest';
import { events } from '../notifications/test-events.ts';
import { chatDeliveryTests, MINUTE, t0 } from './delivery-testing.ts';

// Each connection's floor (minSeverity): what reaches it, what the dry run and "Why?" name, and why when nothing does.

const { sandbox, dashboard, slackHook } = chatDeliveryTests();

describe('chat and webhook connections as a channel of the policy', () => {
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
});
