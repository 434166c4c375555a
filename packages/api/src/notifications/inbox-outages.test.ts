import { describe, expect, it } from 'vitest';
import * as github from '../../../webhooks/src/github/fixtures.ts';
import * as vercel from '../../../webhooks/src/vercel/fixtures.ts';
import { fixtureProjects, incident, inboxTests, sentryIssue, signed } from './inbox-testing.ts';

// An outage and its recovery folded into one notification: a monitor down then up, a Sentry issue created then
// resolved, a failed deploy fixed by the next; a second outage a notification of its own, a read one kept read.

const { dashboard } = inboxTests();

describe('an outage and its recovery', () => {
  it('are one notification: a Better Stack monitor down, then up, is one row, resolved', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    await dash.deliver(signed.betterstack(incident('started')));
    expect(await dash.inbox()).toEqual([expect.objectContaining({ resolved: false, resolvedAt: null, eventCount: 1 })]);
    await dash.deliver(signed.betterstack(incident('resolved')));

    const inbox = await dash.inbox();
    expect(inbox).toEqual([
      expect.objectContaining({
        integration: 'uptime_monitor',
        type: 'monitor.down',
        title: 'Monitor down: Tesla.com homepage (Error 500)',
        project: 'ops',
        severity: 'error',
        resolved: true,
        occurredAt: '2020-10-21T10:51:28.151Z',
        lastAt: '2020-10-21T11:02:10.000Z',
        resolvedAt: '2020-10-21T11:02:10.000Z',
        eventCount: 2,
        readAt: null,
      }),
    ]);
    expect(await dash.unread()).toBe(1);
  });

  it('a second outage of the same monitor is a notification of its own', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    await dash.deliver(signed.betterstack(incident('started', { id: '1' })));
    await dash.deliver(signed.betterstack(incident('resolved', { id: '1' })));
    await dash.deliver(signed.betterstack(incident('started', { id: '2' })));
    expect((await dash.inbox()).map((n) => [n.resolved, n.eventCount])).toEqual([
      [false, 1],
      [true, 2],
    ]);
    await dash.deliver(signed.betterstack(incident('resolved', { id: '2' })));
    expect((await dash.inbox()).map((n) => [n.resolved, n.eventCount])).toEqual([
      [true, 2],
      [true, 2],
    ]);
    expect(await dash.unread()).toBe(2);
  });

  it('a recovery of an outage already read keeps it read', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    await dash.deliver(signed.betterstack(incident('started')));
    await dash.deliver(signed.github(github.pullRequest('closed', true)));
    const outage = (await dash.inbox('&integration=uptime_monitor'))[0]!;
    await dash.caller.notifications.markRead({ ids: [outage.id] });
    const { readAt } = (await dash.inbox('&integration=uptime_monitor'))[0]!;
    await dash.deliver(signed.betterstack(incident('resolved')));
    const inbox = await dash.inbox();
    expect(inbox).toHaveLength(2);
    expect(inbox.find((n) => n.id === outage.id)).toMatchObject({ resolved: true, eventCount: 2, readAt });
    expect(readAt).not.toBeNull();
    expect(await dash.unread()).toBe(1);
  });

  it('a Sentry issue created and then resolved is one row, resolved', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    await dash.deliver(signed.sentry(sentryIssue('created'), dash.clock.now()));
    await dash.deliver(signed.sentry(sentryIssue('resolved'), dash.clock.now()));
    expect(await dash.inbox()).toEqual([
      expect.objectContaining({
        integration: 'error_tracker',
        type: 'error.issue_created',
        title: 'New issue FRONT-END-9: ReferenceError: blooopy is not defined',
        project: 'ops',
        severity: 'error',
        resolved: true,
        eventCount: 2,
      }),
    ]);
  });

  it('a failed Vercel deploy fixed by the next one is one row, resolved', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    await dash.deliver(signed.vercel(vercel.deployment('deployment.error', { id: 'dpl_broken' })));
    await dash.deliver(signed.vercel(vercel.deployment('deployment.succeeded', { id: 'dpl_fixed' })));
    expect(await dash.inbox()).toEqual([
      expect.objectContaining({ integration: 'deploy_host', type: 'deploy.error', project: 'web', resolved: true, eventCount: 2, severity: 'error' }),
    ]);
  });
});
