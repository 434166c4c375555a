// A saved rule set that no longer fits the schema (an older version's, or edited by hand), as its owner meets it in
// Chromium against the built dashboard: kept as saved, named by its field in Settings → Notifications, fixed there.
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import type { NotificationPolicyView, NotificationRule } from '@dash/contracts';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { gotoHydrated, launchChromium, screenshotDir } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';
import { takeDownAfterEach, until } from './waiting.ts';

const cleanup = takeDownAfterEach();

/**
 * The dashboard's SQLite file, opened as another process opens it (an edit by hand, `npm run reset-password`): with the
 * store's own wait for a lock (`PRAGMA busy_timeout`), so a write that meets the dashboard's own is queued, not
 * refused with SQLITE_BUSY (as it once was on a loaded machine).
 */
async function storeFile(target: RunningDashboard) {
  const db = createClient({ url: `file:${join(target.dataDir, 'dashboard.db')}` });
  cleanup.push(() => db.close());
  await db.execute('PRAGMA busy_timeout = 5000');
  return db;
}

async function policy(target: RunningDashboard): Promise<NotificationPolicyView> {
  const response = await fetch(`${target.url}/api/notifications/policy`);
  expect(response.status).toBe(200);
  return (await response.json()) as NotificationPolicyView;
}

/** A reload, waited for as gotoHydrated waits (going to the same URL again would only move to its #hash). */
async function reloadHydrated(page: Page): Promise<void> {
  const hydrated = page.waitForResponse((response) => response.url().includes('notifications.stream'));
  await page.reload();
  await hydrated;
}

/** Settings → Notifications in Chromium, once `part`'s "needs attention" notice shows; uncaught errors in `problems`. */
async function openNotice(target: RunningDashboard, part: string) {
  const chromium = await launchChromium();
  cleanup.push(() => chromium.close());
  const page = await (await chromium.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  await gotoHydrated(page, `${target.url}/settings#notifications`);
  const section = page.locator('#notifications');
  const notice = section.locator(`[data-attention="${part}"]`);
  await notice.waitFor({ timeout: 10_000 });
  return { page, problems, section, notice };
}

const quietDeploys: NotificationRule = { id: 'quiet-deploys', name: 'Quiet deploys', enabled: true, match: { type: 'deploy.*' }, actions: { silence: true }, stop: false };

describe('a saved rule set that no longer fits', () => {
  it('is kept as saved, shown in Settings → Notifications with the field that does not fit, and cleared once fixed there', async () => {
    const target = await startDashboard();
    cleanup.push(() => target.stop());
    const saved = await target.fetch('/api/notifications/rules', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rules: [quietDeploys] }) });
    expect(saved.status).toBe(200);

    // Edited by hand in the store: a type glob this version refuses.
    const broken = [{ ...quietDeploys, match: { type: 'deploy.**' } }];
    const db = await storeFile(target);
    const stored = async () => {
      const value = (await db.execute({ sql: 'select value from user_settings where key = ?', args: ['meta:notifications.rules'] })).rows[0]?.value;
      return typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    };
    await db.execute({ sql: 'update user_settings set value = ? where key = ?', args: [JSON.stringify(broken), 'meta:notifications.rules'] });

    // The API reports it (once the settings' short cache has passed), applies the last valid rules, and keeps the stored value.
    const view = await until(() => policy(target), (v) => v.needsAttention.length > 0, 10_000, 'the broken rules reported');
    expect(view.needsAttention).toEqual([{ part: 'rules', field: 'rules.0.match.type', message: expect.stringContaining('**') as string, stored: broken, applied: 'last_valid' }]);
    expect(view.rules).toEqual([quietDeploys]);
    expect(await stored()).toEqual(broken);

    const { page, problems, section, notice } = await openNotice(target, 'rules');
    const text = await notice.innerText();
    expect(text).toContain('Needs attention');
    expect(text).toContain('rules.0.match.type');
    expect(text).toContain('the last valid ones apply');
    await notice.screenshot({ path: `${screenshotDir}settings-policy-attention.png` });
    expect(await stored()).toEqual(broken);

    // Fixed in the form: the saved rules are loaded as they are, the type corrected, saved; the notice goes.
    await notice.getByRole('button', { name: 'Edit the saved rules' }).click();
    const rule = section.getByRole('group', { name: /^Rule 1:/ });
    const type = rule.getByLabel('Event type');
    expect(await type.inputValue()).toBe('deploy.**');
    await type.fill('deploy.*');
    await section.getByRole('button', { name: 'Save rules' }).click();
    await section.getByText('Saved 1 rule.').waitFor({ timeout: 10_000 });
    await notice.waitFor({ state: 'detached', timeout: 10_000 });
    const after = await policy(target);
    expect(after.needsAttention).toEqual([]);
    expect(after.rules).toEqual([quietDeploys]);
    expect(await stored()).toEqual([quietDeploys]);

    // Preferences broken without a valid value ever saved: the defaults apply; discarding saves them in its place.
    const brokenPreferences = [{ integration: 'code_host', type: 'pr.*', enabled: true, minSeverity: 'critical', channels: { browser: true, email: false } }];
    await db.execute({
      sql: 'insert into user_settings (key, value, updated_at) values (?, ?, ?)',
      args: ['meta:notifications.preferences', JSON.stringify(brokenPreferences), new Date().toISOString()],
    });
    await until(() => policy(target), (v) => v.needsAttention.length > 0, 10_000, 'the broken preferences reported');
    await page.reload();
    const preferencesNotice = section.locator('[data-attention="preferences"]');
    await preferencesNotice.waitFor({ timeout: 10_000 });
    expect(await preferencesNotice.innerText()).toContain('preferences.0.minSeverity');
    expect(await preferencesNotice.innerText()).toContain('the built-in defaults apply');
    await preferencesNotice.getByRole('button', { name: 'Discard the saved preferences' }).click();
    await preferencesNotice.waitFor({ state: 'detached', timeout: 10_000 });
    expect((await policy(target)).needsAttention).toEqual([]);
    expect(problems).toEqual([]);
  });
});

describe('a saved flap hold or pause that no longer fits', () => {
  it('is discarded from Settings → Notifications: the flap hold that applied is saved in its place, and the notice stays gone after a reload; so is a broken pause', async () => {
    const target = await startDashboard();
    cleanup.push(() => target.stop());
    const saved = await target.fetch('/api/notifications/flap-hold', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seconds: 300 }) });
    expect(saved.status).toBe(200);

    // Edited by hand in the store: two hours, more than the hour this version allows.
    const db = await storeFile(target);
    const stored = async () => {
      const value = (await db.execute({ sql: 'select value from user_settings where key = ?', args: ['meta:notifications.flapHoldSeconds'] })).rows[0]?.value;
      return typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    };
    await db.execute({ sql: 'update user_settings set value = ? where key = ?', args: [JSON.stringify(7_200), 'meta:notifications.flapHoldSeconds'] });
    const view = await until(() => policy(target), (v) => v.needsAttention.length > 0, 10_000, 'the broken flap hold reported');
    expect(view.needsAttention).toEqual([expect.objectContaining({ part: 'flapHoldSeconds', stored: 7_200, applied: 'last_valid' })]);
    expect(view.flapHoldSeconds).toBe(300);

    const { page, problems, section, notice } = await openNotice(target, 'flapHoldSeconds');
    expect(await notice.innerText()).toContain('the last valid ones apply');

    await notice.getByRole('button', { name: 'Discard the saved flap hold' }).click();
    await section.getByText('Flap hold saved: 300 s.').waitFor({ timeout: 10_000 });
    await notice.waitFor({ state: 'detached', timeout: 10_000 });
    expect(await stored()).toBe(300);
    const after = await policy(target);
    expect(after.needsAttention).toEqual([]);
    expect(after.flapHoldSeconds).toBe(300);

    await reloadHydrated(page);
    const flapHold = section.getByLabel('Hold (seconds)');
    await flapHold.waitFor({ timeout: 10_000 });
    expect(await flapHold.inputValue()).toBe('300');
    expect(await section.locator('[data-attention]').count()).toBe(0);

    // A broken pause, discarded: the pause that applied (the last valid one, an hour from now) stays on, not resumed.
    const pauseUntil = new Date(Date.now() + 3_600_000).toISOString();
    const paused = await target.fetch('/api/notifications/pause', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ until: pauseUntil }) });
    expect(paused.status).toBe(200);
    await db.execute({ sql: 'update user_settings set value = ? where key = ?', args: [JSON.stringify('tomorrow'), 'meta:notifications.pauseUntil'] });
    await until(() => policy(target), (v) => v.needsAttention.length > 0, 10_000, 'the broken pause reported');
    await reloadHydrated(page);
    const pauseNotice = section.locator('[data-attention="pauseUntil"]');
    await pauseNotice.waitFor({ timeout: 10_000 });
    await pauseNotice.getByRole('button', { name: 'Discard the saved pause' }).click();
    await pauseNotice.waitFor({ state: 'detached', timeout: 10_000 });
    const afterPause = await policy(target);
    expect(afterPause.needsAttention).toEqual([]);
    expect(afterPause.quietHours.pauseUntil).toBe(pauseUntil);
    expect(afterPause.quietNow).toMatchObject({ quiet: true, reason: 'pause' });
    expect(problems).toEqual([]);
  });
});
