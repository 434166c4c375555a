import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testClock } from '@dash/connectors/testing';
import type { NotificationRule, QuietHoursSettings } from '@dash/contracts';
import { mysqlProblem, postgresProblem } from '@dash/db/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestApi, restClient, testDatabases, type DatabaseKind } from '../../testing.ts';
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
const databases = testDatabases();
afterAll(() => databases.drop(), 60_000);

async function dashboard(kind: DatabaseKind) {
  const dir = mkdtempSync(join(tmpdir(), 'dash-api-'));
  const { databaseUrl, drop } = await databases.fresh(kind, dir);
  // Dropped beside the next test; the file's afterAll waits for it.
  cleanup.push(() => Promise.resolve(void drop()));
  const clock = testClock(T0);
  const api = await createTestApi({ dir, clock, scheduler: false, ...(databaseUrl ? { databaseUrl } : {}) });
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

/** Berlin's weeknights, as a founder would have set them. */
const weeknights: QuietHoursSettings = { enabled: true, timezone: 'Europe/Berlin', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '07:00' }] };
const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;

// Every shape an earlier release stored a part of the policy in, loaded as that release left it: it is migrated on
// read (and written back in today's shape, once), never reported as broken. The shapes are each part's `legacy` in settings.ts.
describe.for([
  { kind: 'SQLite' as const, skip: false },
  { kind: 'Postgres' as const, skip: pgProblem !== undefined && !inCI },
  { kind: 'MySQL' as const, skip: myProblem !== undefined && !inCI },
])('settings an earlier release stored, on $kind', ({ kind, skip }) => {
  // 1b75bb5 to b69cd15: PUT …/quiet-hours stored the whole quiet hours, pause included, and POST …/pause wrote the
  // pause into that same value.
  it.skipIf(skip)('quiet hours with the pause inside (before b69cd15): the windows stay on, the pause still holds, nothing needs attention', async () => {
    const dash = await dashboard(kind);
    const pauseUntil = iso(T0 + 2 * HOUR);
    await dash.store.meta.put('notifications.quietHours', { ...weeknights, pauseUntil });

    const view = await dash.caller.notifications.policy();
    expect(view.needsAttention).toEqual([]);
    expect(view.quietHours).toEqual({ ...weeknights, pauseUntil });
    expect(view.quietNow).toEqual({ quiet: true, reason: 'pause', until: pauseUntil });
    // An issue opened meanwhile waits for the pause instead of interrupting.
    const result = await dash.ctx.notifications.inbox.ingest([events.issue('1', dash.clock.now())]);
    expect(result.sent).toEqual([]);

    // Written back in today's shape, each part with its last valid copy, so the next read (and release) finds it as it is now.
    expect(await dash.store.meta.get('notifications.quietHours')).toEqual(weeknights);
    expect(await dash.store.meta.get('notifications.quietHours.lastValid')).toEqual(weeknights);
    expect(await dash.store.meta.get('notifications.pauseUntil')).toBe(pauseUntil);
    expect(await dash.store.meta.get('notifications.pauseUntil.lastValid')).toBe(pauseUntil);
    expect(dash.log.lines.filter((line) => line.includes('earlier version'))).toHaveLength(1);

    // After the pause, the weekly windows are what holds interruptions back: Monday 23:00 in Berlin is quiet.
    dash.clock.advance(12 * HOUR); // 22:00 UTC
    expect((await dash.caller.notifications.policy()).quietNow).toMatchObject({ quiet: true, reason: 'window' });
  });

  it.skipIf(skip)('quiet hours saved with no pause (before b69cd15): stay as they were, nothing needs attention', async () => {
    const dash = await dashboard(kind);
    await dash.store.meta.put('notifications.quietHours', { ...weeknights, pauseUntil: null });

    const view = await dash.caller.notifications.policy();
    expect(view.needsAttention).toEqual([]);
    expect(view.quietHours).toEqual({ ...weeknights, pauseUntil: null });
    expect(await dash.store.meta.get('notifications.quietHours')).toEqual(weeknights);
    expect(await dash.store.meta.get('notifications.pauseUntil')).toBeUndefined();
  });

  it.skipIf(skip)('a pause inside older quiet hours that is already over is dropped; the windows stay', async () => {
    const dash = await dashboard(kind);
    await dash.store.meta.put('notifications.quietHours', { ...weeknights, pauseUntil: iso(T0 - HOUR) });

    const view = await dash.caller.notifications.policy();
    expect(view.needsAttention).toEqual([]);
    expect(view.quietHours).toEqual({ ...weeknights, pauseUntil: null });
    expect(view.quietNow.quiet).toBe(false);
    expect(await dash.store.meta.get('notifications.pauseUntil')).toBeUndefined();
  });

  it.skipIf(skip)('a pause set or ended by a later release wins over the one inside older quiet hours', async () => {
    const dash = await dashboard(kind);
    // Upgraded to b69cd15 or later, then resumed there: the pause is saved on its own, as null.
    await dash.store.meta.put('notifications.quietHours', { ...weeknights, pauseUntil: iso(T0 + 2 * HOUR) });
    await dash.store.meta.put('notifications.pauseUntil', null);

    const view = await dash.caller.notifications.policy();
    expect(view.needsAttention).toEqual([]);
    expect(view.quietHours).toEqual({ ...weeknights, pauseUntil: null });
    expect(await dash.store.meta.get('notifications.quietHours')).toEqual(weeknights);
    expect(await dash.store.meta.get('notifications.pauseUntil')).toBeNull();
  });

  it.skipIf(skip)('older quiet hours that no longer fit in any shape are kept and reported, as any broken part is', async () => {
    const dash = await dashboard(kind);
    const broken = { ...weeknights, windows: [{ days: ['mon'], start: '25:00', end: '07:00' }], pauseUntil: null };
    await dash.store.meta.put('notifications.quietHours', broken);

    const view = await dash.caller.notifications.policy();
    expect(view.quietHours.enabled).toBe(false);
    expect(view.needsAttention).toEqual([expect.objectContaining({ part: 'quietHours', stored: broken, applied: 'default' })]);
    expect(await dash.store.meta.get('notifications.quietHours')).toEqual(broken);
  });
});
