import { rmSync } from 'node:fs';
import { testClock } from '@dash/connectors/testing';
import type { NotificationRule } from '@dash/contracts';
import { mysqlProblem, postgresProblem, scratchMysql, scratchPostgres } from '@dash/db/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApi, restClient } from '../../testing.ts';
import { events } from '../test-events.ts';

// A saved part of the policy that no longer fits its schema (an older version's, or edited by hand) is kept as it is,
// reported with the field that does not fit, and the last valid one applies until it is fixed.

const T0 = Date.parse('2026-11-23T10:00:00Z');
const inCI = process.env.CI === 'true';
const pgProblem = await postgresProblem();
const myProblem = await mysqlProblem();
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

type Kind = 'SQLite' | 'Postgres' | 'MySQL';

async function dashboard(kind: Kind) {
  let databaseUrl: string | undefined;
  if (kind !== 'SQLite') {
    const scratch = kind === 'Postgres' ? await scratchPostgres() : await scratchMysql();
    cleanup.push(scratch.drop);
    databaseUrl = scratch.url;
  }
  const clock = testClock(T0);
  const api = await createTestApi({ clock, scheduler: false, ...(databaseUrl ? { databaseUrl } : {}) });
  cleanup.push(async () => {
    await api.dispose({ keepFiles: true });
    rmSync(api.dir, { recursive: true, force: true });
  });
  return { ...api, clock, call: restClient(() => api.caller) };
}

/** Merged PRs interrupt in the browser (by default a change stays in the inbox). */
const prsRule: NotificationRule = { id: 'prs', name: 'PRs interrupt', enabled: true, match: { type: 'pr.*' }, actions: { addChannels: ['browser'] }, stop: false };

describe.for([
  { kind: 'SQLite' as const, skip: false },
  { kind: 'Postgres' as const, skip: pgProblem !== undefined && !inCI },
  { kind: 'MySQL' as const, skip: myProblem !== undefined && !inCI },
])('saved policy parts that no longer fit, on $kind', ({ kind, skip }) => {
  it.skipIf(skip)('keeps a broken rule set stored, reports its field, and ingest applies the last valid rules until it is fixed', async () => {
    const dash = await dashboard(kind);
    await dash.caller.notifications.saveRules({ rules: [prsRule] });
    expect((await dash.caller.notifications.policy()).needsAttention).toEqual([]);

    // Edited by hand (or left by an older version): an integration this version does not know.
    const broken = [{ ...prsRule, match: { type: 'pr.*', integrations: ['smoke_signal'] } }];
    await dash.store.meta.put('notifications.rules', broken);
    dash.clock.advance(5_000); // past the settings' cache

    const res = await dash.call('GET', '/api/notifications/policy');
    expect(res.status).toBe(200);
    const view = res.json as { rules: unknown; needsAttention: { part: string; field: string; message: string; stored: unknown; applied: string }[] };
    expect(view.rules).toEqual([prsRule]);
    expect(view.needsAttention).toHaveLength(1);
    expect(view.needsAttention[0]).toMatchObject({ part: 'rules', field: 'rules.0.match.integrations.0', stored: broken, applied: 'last_valid' });
    expect(view.needsAttention[0]?.message).toMatch(/invalid option/i);

    // A merged PR is still routed by the last valid rules, and reading never overwrote the stored value.
    const result = await dash.ctx.notifications.inbox.ingest([events.pr(1, dash.clock.now())]);
    expect(result.sent.map((delivery) => delivery.channel)).toEqual(['browser']);
    expect(result.changed[0]?.decision?.trace.map((entry) => entry.id)).toContain('prs');
    await dash.caller.notifications.policy();
    expect(await dash.store.meta.get('notifications.rules')).toEqual(broken);
    expect(dash.log.lines.filter((line) => line.includes('rules.0.match.integrations.0'))).toHaveLength(1);

    // Saving a valid set clears it.
    const fixed = await dash.caller.notifications.saveRules({ rules: [{ ...prsRule, match: { type: 'pr.*', integrations: ['code_host'] } }] });
    expect(fixed.needsAttention).toEqual([]);
    expect(fixed.rules[0]?.match.integrations).toEqual(['code_host']);
  });

  it.skipIf(skip)('with no valid value ever saved, applies the defaults and still keeps and reports the stored one', async () => {
    const dash = await dashboard(kind);
    const broken = [{ integration: 'code_host', type: 'pr.*', enabled: true, minSeverity: 'critical', channels: { browser: true, email: false } }];
    await dash.store.meta.put('notifications.preferences', broken);

    const view = await dash.caller.notifications.policy();
    expect(view.preferences).toEqual([]);
    expect(view.needsAttention).toEqual([expect.objectContaining({ part: 'preferences', field: 'preferences.0.minSeverity', stored: broken, applied: 'default' })]);
    expect(await dash.store.meta.get('notifications.preferences')).toEqual(broken);
  });

  it.skipIf(skip)('remembers a valid value it reads (saved before the last valid copy existed) for the day it stops fitting', async () => {
    const dash = await dashboard(kind);
    await dash.store.meta.put('notifications.rules', [prsRule]);
    expect((await dash.caller.notifications.policy()).rules).toEqual([prsRule]);

    await dash.store.meta.put('notifications.rules', [{ ...prsRule, name: '' }]);
    dash.clock.advance(5_000);
    const view = await dash.caller.notifications.policy();
    expect(view.rules).toEqual([prsRule]);
    expect(view.needsAttention).toEqual([expect.objectContaining({ field: 'rules.0.name', applied: 'last_valid' })]);
  });
});
