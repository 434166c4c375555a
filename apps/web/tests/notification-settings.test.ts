// Settings → Notifications as a user fills it in, in a real Chromium against the built dashboard: the
// preferences form saved, kept across a reload, its validation error next to the field it names; and the
// rules editor run from the keyboard alone (Tab to each control, Enter and Space to activate, the arrow
// keys in a select), with focus landing where a keyboard user expects after adding, moving, removing and
// saving.
import type { NotificationPolicyView } from '@dash/contracts';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { gotoHydrated, launchChromium } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';
import { takeDownAfterEach, until } from './waiting.ts';

const cleanup = takeDownAfterEach();

async function policy(target: RunningDashboard): Promise<NotificationPolicyView> {
  const response = await fetch(`${target.url}/api/notifications/policy`);
  expect(response.status).toBe(200);
  return (await response.json()) as NotificationPolicyView;
}

/** The dashboard's Settings → Notifications in a fresh browser; uncaught errors and console errors collected. */
async function settings(problems: string[]): Promise<{ target: RunningDashboard; page: Page }> {
  const target = await startDashboard();
  cleanup.push(() => target.stop());
  const chromium: Browser = await launchChromium();
  cleanup.push(() => chromium.close());
  const ctx = await chromium.newContext({ viewport: { width: 1280, height: 1000 } });
  cleanup.push(() => ctx.close());
  const page = await ctx.newPage();
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  await gotoHydrated(page, `${target.url}/settings#notifications`);
  await page.locator('#notifications').getByRole('button', { name: 'Save rules' }).waitFor();
  return { target, page };
}

/** What has the focus: its id, its accessible name as Chromium gives it to assistive technology, its value and whether it is ticked. */
interface Focused {
  tag: string;
  id: string;
  name: string;
  value: string | null;
  checked: boolean | null;
}

const cdpSessions = new WeakMap<Page, CDPSession>();

async function focused(page: Page): Promise<Focused> {
  let cdp = cdpSessions.get(page);
  if (!cdp) {
    cdp = await page.context().newCDPSession(page);
    cdpSessions.set(page, cdp);
  }
  const { result } = await cdp.send('Runtime.evaluate', { expression: 'document.activeElement' });
  const ax = result.objectId ? await cdp.send('Accessibility.getPartialAXTree', { objectId: result.objectId, fetchRelatives: false }) : { nodes: [] };
  const name = ax.nodes.find((node) => !node.ignored)?.name?.value;
  const seen = await page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    return {
      tag: element?.tagName.toLowerCase() ?? '',
      id: element?.id ?? '',
      value: element && 'value' in element ? String((element as HTMLInputElement).value) : null,
      checked: element instanceof HTMLInputElement && element.type === 'checkbox' ? element.checked : null,
    };
  });
  return { ...seen, name: typeof name === 'string' ? name : '' };
}

/** Presses Tab until the focus is on what `wanted` accepts (at most 400 times): the control is reachable from the keyboard. */
async function tabTo(page: Page, wanted: (element: Focused) => boolean, what: string, key = 'Tab'): Promise<Focused> {
  for (let presses = 0; presses < 400; presses += 1) {
    await page.keyboard.press(key);
    const now = await focused(page);
    if (wanted(now)) return now;
  }
  throw new Error(`${key} never reached ${what}; last: ${JSON.stringify(await focused(page))}`);
}

const named = (name: string) => (element: Focused) => element.name === name;

describe('Settings → Notifications: the preferences form and the rules editor from the keyboard', () => {
  it('saves the preferences form, keeps it across a reload, and shows a refused field’s error next to it', async () => {
    const problems: string[] = [];
    const { target, page } = await settings(problems);
    const section = page.locator('#notifications');
    const add = section.getByRole('button', { name: 'Add a preference' });
    const save = section.getByRole('button', { name: 'Save preferences' });

    // Adding a row puts the focus in it, on its first control (once the row is drawn: polled).
    await add.click();
    await expect.poll(() => focused(page), { timeout: 5_000 }).toMatchObject({ name: 'Source, preference 1', tag: 'select' });
    await section.getByLabel('Source, preference 1').selectOption('deploy_host');
    await section.getByLabel('Event type, preference 1').fill('deploy.*');
    await section.getByLabel('At least, preference 1').selectOption('error');

    await add.click();
    await expect.poll(() => focused(page), { timeout: 5_000 }).toMatchObject({ name: 'Source, preference 2' });
    await section.getByLabel('Source, preference 2').selectOption('error_tracker');
    await section.getByLabel('Event type, preference 2').fill('error.**');
    await section.getByLabel('Browser, preference 2').uncheck();

    // Refused: the message at the field it names (and only there), the focus taken to it, nothing stored.
    await save.click();
    const type2 = section.getByLabel('Event type, preference 2');
    await until(() => type2.getAttribute('aria-invalid'), (invalid) => invalid === 'true', 10_000, 'the type marked invalid');
    const describedBy = await type2.getAttribute('aria-describedby');
    expect(describedBy).toBeTruthy();
    const message = page.locator(`[id="${describedBy}"]`);
    expect(await message.innerText()).toMatch(/\*\*/);
    expect(await message.isVisible()).toBe(true);
    // Next to its field: in the same table cell.
    expect(await message.evaluate((element, id) => element.closest('td')?.contains(document.getElementById(id)) ?? false, 'preference-1-type')).toBe(true);
    expect(await section.getByLabel('Event type, preference 1').getAttribute('aria-invalid')).toBeNull();
    await expect.poll(() => focused(page), { timeout: 5_000 }).toMatchObject({ id: 'preference-1-type' });
    expect((await policy(target)).preferences).toEqual([]);

    await type2.fill('error.*');
    await save.click();
    await section.getByText('Saved 2 preferences.').waitFor();
    expect(await type2.getAttribute('aria-invalid')).toBeNull();
    const expected = [
      { integration: 'deploy_host', type: 'deploy.*', enabled: true, minSeverity: 'error', channels: { browser: true, email: false, push: false, chat: false } },
      { integration: 'error_tracker', type: 'error.*', enabled: true, minSeverity: 'warning', channels: { browser: false, email: false, push: false, chat: false } },
    ];
    expect((await policy(target)).preferences).toEqual(expected);

    // A reload shows what was saved.
    await page.reload();
    await section.getByLabel('Source, preference 2').waitFor();
    expect(await section.getByLabel('Source, preference 1').inputValue()).toBe('deploy_host');
    expect(await section.getByLabel('Event type, preference 1').inputValue()).toBe('deploy.*');
    expect(await section.getByLabel('At least, preference 1').inputValue()).toBe('error');
    expect(await section.getByLabel('Browser, preference 1').isChecked()).toBe(true);
    expect(await section.getByLabel('Source, preference 2').inputValue()).toBe('error_tracker');
    expect(await section.getByLabel('Event type, preference 2').inputValue()).toBe('error.*');
    expect(await section.getByLabel('Browser, preference 2').isChecked()).toBe(false);

    // Removing a row: the focus goes to the row that took its place, then (none left) to "Add a preference".
    await section.getByRole('button', { name: /^Remove preference 1 / }).click();
    await expect.poll(() => focused(page), { timeout: 5_000 }).toMatchObject({ name: 'Source, preference 1', value: 'error_tracker' });
    await section.getByRole('button', { name: /^Remove preference 1 / }).click();
    await expect.poll(() => focused(page), { timeout: 5_000 }).toMatchObject({ name: 'Add a preference' });
    await save.click();
    await section.getByText('Saved 0 preferences.').waitFor();
    expect((await policy(target)).preferences).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('edits, orders, removes and saves rules from the keyboard alone, the focus where the keyboard user is', async () => {
    const problems: string[] = [];
    const { target, page } = await settings(problems);
    const section = page.locator('#notifications');

    // Tab from the top of the page to "Add a rule"; Enter adds one, with the focus in its name.
    await tabTo(page, named('Add a rule'), '“Add a rule”');
    await page.keyboard.press('Enter');
    const name1 = await until(() => focused(page), (now) => /^rule-.+-name$/.test(now.id), 5_000, 'the focus in the new rule’s name');
    expect(name1.value).toBe('New rule');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Deploys');

    // Space switches "Enabled" off and on again.
    expect(await page.keyboard.press('Tab').then(() => focused(page))).toMatchObject({ name: 'Enabled', checked: true });
    await page.keyboard.press('Space');
    expect(await focused(page)).toMatchObject({ checked: false });
    await page.keyboard.press('Space');
    expect(await focused(page)).toMatchObject({ checked: true });

    // Alone in the list, the rule cannot move: Tab goes past the disabled buttons to Remove, then to the sources.
    expect(await page.keyboard.press('Tab').then(() => focused(page))).toMatchObject({ name: 'Remove rule 1' });
    await tabTo(page, named('Vercel'), 'the Vercel source');
    await page.keyboard.press('Space');
    expect(await focused(page)).toMatchObject({ checked: true });

    // A glob the server refuses, and "At least" chosen with the arrow keys.
    const type = await tabTo(page, (now) => now.id === name1.id.replace(/-name$/, '-type'), 'the event type');
    await page.keyboard.type('deploy.**');
    expect(await page.keyboard.press('Tab').then(() => focused(page))).toMatchObject({ id: type.id.replace(/-type$/, '-min'), value: '' });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await focused(page)).toMatchObject({ value: 'success' });

    // Saved with Enter on "Save rules": refused, the focus goes to the field in error, which says why.
    await tabTo(page, named('Save rules'), '“Save rules”');
    await page.keyboard.press('Enter');
    await until(() => focused(page), (now) => now.id === type.id, 10_000, 'the focus on the refused type');
    const typeField = page.locator(`[id="${type.id}"]`);
    expect(await typeField.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`[id="${await typeField.getAttribute('aria-describedby')}"]`).innerText()).toMatch(/\*\*/);
    expect((await policy(target)).rules).toEqual([]);

    // Corrected there and saved with Enter from the field itself (the form's submission); the focus stays put.
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await section.getByText('Saved 1 rule.').waitFor();
    expect(await focused(page)).toMatchObject({ id: type.id, value: 'deploy.*' });
    const first = (await policy(target)).rules;
    expect(first).toEqual([
      { id: expect.stringMatching(/^rule-/), name: 'Deploys', enabled: true, match: { integrations: ['deploy_host'], type: 'deploy.*', minSeverity: 'success' }, actions: {}, stop: false },
    ]);

    // A payload condition added and removed again with Enter: the focus goes into it, then back to "Add a condition".
    await tabTo(page, named('Add a condition'), '“Add a condition”');
    await page.keyboard.press('Enter');
    await until(() => focused(page), (now) => now.id === name1.id.replace(/-name$/, '-payload-0-path'), 5_000, 'the focus in the condition’s path');
    await tabTo(page, named('Remove condition 1'), '“Remove condition 1”');
    await page.keyboard.press('Enter');
    await until(() => focused(page), (now) => now.name === 'Add a condition', 5_000, 'the focus back on “Add a condition”');

    // A second rule, moved above the first with Enter: the focus follows it, on the move that is still possible.
    await tabTo(page, named('Add a rule'), '“Add a rule”');
    await page.keyboard.press('Enter');
    const name2 = await until(() => focused(page), (now) => /^rule-.+-name$/.test(now.id) && now.id !== name1.id, 5_000, 'the focus in the second rule’s name');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Quiet Linear');
    await tabTo(page, named('Move up rule 2'), '“Move up rule 2”');
    await page.keyboard.press('Enter');
    await until(() => focused(page), (now) => now.name === 'Move down rule 1', 5_000, 'the focus on the moved rule’s “Move down”');
    expect(await focused(page)).toMatchObject({ id: name2.id.replace(/-name$/, '-down') });
    expect(await section.getByRole('group', { name: /^Rule 1:/ }).getByLabel('Name').inputValue()).toBe('Quiet Linear');

    // Escape cancels nothing here (no widget of this form uses it): the draft stays as typed.
    await page.keyboard.press('Escape');
    expect(await section.getByRole('group', { name: /^Rule 1:/ }).getByLabel('Name').inputValue()).toBe('Quiet Linear');

    // Removed with Enter: the focus goes to the rule that took its place.
    expect(await page.keyboard.press('Tab').then(() => focused(page))).toMatchObject({ name: 'Remove rule 1' });
    await page.keyboard.press('Enter');
    await until(() => focused(page), (now) => now.id === name1.id, 5_000, 'the focus on the rule now first');
    expect(await focused(page)).toMatchObject({ value: 'Deploys' });
    expect(await section.getByRole('group', { name: /^Rule \d+:/ }).count()).toBe(1);

    // Saved by Enter in the name; a reload shows the one rule as saved.
    await page.keyboard.press('Enter');
    await section.getByText('Saved 1 rule.').waitFor();
    expect((await policy(target)).rules).toEqual(first);
    await page.reload();
    const rule = section.getByRole('group', { name: /^Rule 1:/ });
    await rule.waitFor();
    expect(await rule.getByLabel('Name').inputValue()).toBe('Deploys');
    expect(await rule.getByLabel('Event type').inputValue()).toBe('deploy.*');

    // The last rule removed: the focus goes to "Add a rule".
    await rule.getByLabel('Name').focus();
    await tabTo(page, named('Remove rule 1'), '“Remove rule 1”');
    await page.keyboard.press('Enter');
    await until(() => focused(page), (now) => now.name === 'Add a rule', 5_000, 'the focus on “Add a rule”');
    expect(problems).toEqual([]);
  }, 120_000);
});
