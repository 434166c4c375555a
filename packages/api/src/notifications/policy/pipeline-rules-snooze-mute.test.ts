import { describe, expect, it } from 'vitest';
import { events, rule } from '../test-events.ts';
import { HOUR, iso, MINUTE, NIGHT, pipelineDatabases, pipelineTests, T0 } from './pipeline-testing.ts';

// The founder's own say over events and subjects: rules (a severity raised past quiet hours, an event discarded, a rule
// that stops the list, a bad rule refused), a snoozed row gone from the list and back unread at its time, a muted
// subject kept quiet and reminded once when the mute ends while it is still down.

const { on } = pipelineTests();

describe.for(pipelineDatabases)('the notification pipeline on $kind', ({ kind, skip }) => {
  const { dashboard, listen, quietDashboard } = on(kind);

  it.skipIf(skip)('raises a production deploy to critical by rule, which bypasses quiet hours and names the rule in the trace (R1)', async () => {
    const dash = await quietDashboard();
    await dash.caller.notifications.saveRules({
      rules: [rule('prod', { type: 'deploy.*', payload: [{ path: 'deployment.target', op: 'eq', value: 'production' }] }, { setSeverity: 'error' })],
    });
    const prod = await dash.ingest(events.deploy('p1', NIGHT, { severity: 'warning' }));
    const preview = await dash.ingest(events.deploy('p2', NIGHT, { severity: 'warning', target: 'preview' }));
    expect(prod.sent).toHaveLength(1);
    expect(prod.changed[0]?.severity).toBe('error');
    expect(prod.changed[0]?.decision?.trace).toEqual(expect.arrayContaining([expect.objectContaining({ stage: 'rule', id: 'prod', verdict: 'applied' })]));
    expect(preview.sent).toEqual([]);
    expect(preview.changed[0]?.decision?.trace.at(-1)).toMatchObject({ verdict: 'deferred' });
  });

  it.skipIf(skip)('stores a discarded event as done: not unread, not counted, no interruption (R2); a rule with stop ends the list (R3)', async () => {
    const dash = await dashboard(T0);
    await dash.caller.notifications.saveRules({
      rules: [
        rule('keep-prod', { type: 'deploy.*', payload: [{ path: 'deployment.target', op: 'eq', value: 'production' }] }, {}, true),
        rule('drop-deploys', { integrations: ['deploy_host'] }, { discard: true }),
      ],
    });
    const preview = await dash.ingest(events.deploy('p1', T0, { target: 'preview' }));
    expect(preview.sent).toEqual([]);
    expect(preview.changed[0]?.readAt).not.toBeNull();
    expect((await dash.list()).unreadCount).toBe(0);
    const prod = await dash.ingest(events.deploy('p2', T0));
    expect(prod.sent).toHaveLength(1);
    expect(prod.changed[0]?.decision?.trace.map((entry) => entry.id)).toEqual(['default', 'keep-prod', 'delivery']);
  });

  it.skipIf(skip)('refuses a bad rule with 400 naming the field, and keeps the stored rules (R5)', async () => {
    const dash = await dashboard(T0);
    const good = [rule('a', { type: 'deploy.*' }, { silence: true })];
    expect((await dash.call('PUT', '/api/notifications/rules', { rules: good })).status).toBe(200);
    const bad = [
      { rules: [{ ...good[0], match: { payload: [{ path: 'deployment.target', op: 'matches', value: 'prod.*' }] } }] },
      { rules: [{ ...good[0], match: { payload: [{ path: 'deploy(ment)?.target', op: 'eq', value: 'x' }] } }] },
      { rules: [{ ...good[0], match: { type: 'deploy.**' } }] },
      { rules: Array.from({ length: 101 }, (_, i) => rule(`r${i}`, {}, {})) },
    ];
    const paths: string[] = [];
    for (const body of bad) {
      const res = await dash.call('PUT', '/api/notifications/rules', body);
      expect(res.status).toBe(400);
      const issues = (res.json as { error: { issues: { path: (string | number)[] }[] } }).error.issues;
      paths.push(issues.map((issue) => issue.path.join('.')).join(' '));
    }
    expect(paths).toEqual(['rules.0.match.payload.0.op', 'rules.0.match.payload.0.path', 'rules.0.match.type', 'rules']);
    expect((await dash.caller.notifications.policy()).rules).toEqual(good);
  });

  // R6, the dry run against real ingests on every channel, is in dry-run.test.ts.

  // --- snooze and mute ---
  it.skipIf(skip)('hides a snoozed row from the list and the count, and brings it back unread at its time, live (S1)', async () => {
    const dash = await dashboard(T0);
    await dash.ingest(events.pr(1, T0), events.pr(2, T0));
    const [row] = (await dash.list()).notifications;
    await dash.caller.notifications.markRead({ ids: [row?.id ?? ''] });
    expect(await dash.caller.notifications.snooze({ ids: [row?.id ?? ''], until: iso(T0 + HOUR) })).toEqual({ snoozed: 1, unreadCount: 1 });
    expect((await dash.list()).notifications.map((n) => n.id)).not.toContain(row?.id);

    const stream = await listen(dash);
    const next = stream.next();
    expect(await dash.tickAt(T0 + HOUR - 1)).toEqual([]);
    expect((await dash.list()).unreadCount).toBe(1);
    await dash.tickAt(T0 + HOUR);
    const { event } = await next;
    expect(event).toMatchObject({ kind: 'notification', notification: { id: row?.id, readAt: null, snoozedUntil: null }, unreadCount: 2 });
    expect((await dash.list()).notifications.map((n) => n.id)).toContain(row?.id);
    await expect(dash.caller.notifications.snooze({ ids: [row?.id ?? ''], until: iso(T0) })).rejects.toThrow('until is in the past');
  });

  it.skipIf(skip)('keeps a muted subject quiet, and reminds once when the mute ends while it is still down (S2)', async () => {
    const dash = await dashboard(T0);
    const subject = 'betterstack:monitor:api';
    await dash.caller.notifications.mute({ subjectKey: subject, until: iso(T0 + HOUR) });
    await dash.ingest(events.down('api', '1', T0));
    await dash.tickAt(T0 + 5 * MINUTE);
    expect(await dash.sent()).toEqual([]);
    expect((await dash.list()).notifications[0]).toMatchObject({ mutedUntil: iso(T0 + HOUR), readAt: null });
    const reminder = await dash.tickAt(T0 + HOUR);
    expect(reminder).toEqual([expect.objectContaining({ purpose: 'repeat', message: expect.objectContaining({ title: 'Monitor down: api: still down' }) })]);
    expect(await dash.tickAt(T0 + 2 * HOUR)).toEqual([]);
    expect((await dash.caller.notifications.policy()).mutes).toEqual([]);

    // Resolved while muted: no reminder.
    await dash.caller.notifications.mute({ subjectKey: 'betterstack:monitor:web', until: iso(T0 + 3 * HOUR) });
    await dash.ingest(events.down('web', '2', T0 + 2 * HOUR));
    dash.clock.advance(10 * MINUTE);
    await dash.ingest(events.up('web', '2', dash.clock.now()));
    expect(await dash.tickAt(T0 + 3 * HOUR)).toEqual([]);
    await expect(dash.caller.notifications.mute({ subjectKey: subject, until: iso(T0 + 40 * 24 * HOUR) })).rejects.toThrow('at most 30 days');
  });
});
