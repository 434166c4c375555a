import { describe, expect, it } from 'vitest';
import { events } from '../notifications/test-events.ts';
import { chatDeliveryTests, deployFailed, HOUR, iso, MINUTE } from './delivery-testing.ts';

// Quiet hours per connection: deferred into one digest message each, a critical one let through, a muted subject
// sent nothing, and each digest holding only what reaches its connection's floor.

const { sandbox, dashboard, slackHook, discord, discordHook, receiver, received } = chatDeliveryTests();

describe('chat and webhook connections as a channel of the policy', () => {
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
    const ops = (await dash.add({ name: 'ops', minSeverity: 'error', destination: { kind: 'webhook', url: `${receiver.url}?to=ops` } })).connection;
    await dash.add({ name: 'team', minSeverity: 'warning', destination: { kind: 'webhook', url: `${receiver.url}?to=team` } });
    const all = (await dash.add({ name: 'all', minSeverity: 'info', destination: { kind: 'webhook', url: `${receiver.url}?to=all` } })).connection;
    const later = (await dash.add({ name: 'later', minSeverity: 'warning', destination: { kind: 'webhook', url: `${receiver.url}?to=later` } })).connection;
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
});
