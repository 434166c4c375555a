import { describe, expect, it } from 'vitest';
import { deliveryTests } from '../testing/delivery.ts';
import { inboxTests, mergedPr, signed } from './inbox-testing.ts';

// The demo's notifications: there while the demo runs, each in a demo project, gone with it; the founder's own stay.

const { sandbox } = deliveryTests();
const { dashboard } = inboxTests(sandbox);

describe("the demo's notifications", () => {
  it('are listed after the demo starts, each in a demo project, and go when it is removed; your own stay', async () => {
    sandbox.reset();
    const dash = await dashboard({ withDemo: true });
    // One of the user's own, before the demo: no project claims it.
    await dash.deliver(signed.github(mergedPr('someone/else', 5)));
    const { projects } = await dash.caller.demo.start();

    const inbox = await dash.inbox();
    const demo = inbox.filter((n) => n.project !== null);
    expect(demo.length).toBeGreaterThanOrEqual(5);
    expect(demo.every((n) => projects.includes(n.project!))).toBe(true);
    expect(new Set(demo.map((n) => n.project))).toEqual(new Set(projects));
    expect(new Set(demo.map((n) => n.integration))).toEqual(new Set(['code_host', 'deploy_host', 'error_tracker', 'issue_tracker', 'uptime_monitor']));
    // A recovered outage and one still going on.
    expect(demo.filter((n) => n.integration === 'uptime_monitor').map((n) => n.resolved).sort()).toEqual([false, true]);
    expect(await dash.unread()).toBe(demo.length + 1);
    // Newest first.
    expect(inbox.map((n) => n.seq)).toEqual([...inbox.map((n) => n.seq)].sort((x, y) => y - x));

    await dash.caller.demo.remove();
    expect(await dash.inbox()).toEqual([expect.objectContaining({ project: null, url: 'https://github.com/someone/else/pull/5' })]);
    expect(await dash.unread()).toBe(1);

    // Started again, its notifications are back.
    await dash.caller.demo.start();
    expect((await dash.inbox()).filter((n) => n.project !== null)).toHaveLength(demo.length);
  });
});
