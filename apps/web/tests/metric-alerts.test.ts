// Settings → Change alerts as a founder uses it, in Chromium at 320 px against the built dashboard: a project with
// Plausible and Sentry set up (so its visitors and error events have the built-in unusual rules) and 70 days of both
// imported: the visitors' last two weeks at a third of before, the error events' last day at seven times theirs. A
// threshold rule's preview lists what it would have said before it is saved, a bad sensitivity is named at its field,
// the rule is added to the list and deleted after a confirm, and a built-in rule is switched off from the keyboard.
// With a read-only API token the rules are listed and a change is refused in words. The error events' alert (the
// import's last day) is in the bell, its "Why?" saying what else happened, under the "Metric alerts" source.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated, screenshotDir, scrollsSideways } from './browser.ts';
import { dashboardForFile } from './fixture.ts';
import { clearOfMidnight, until } from './waiting.ts';
let readToken: string;

const DAY = 86_400_000;
const json = { 'content-type': 'application/json' };
const BUILT_IN = 'default:formfox:analytics.visitors';
const ERRORS_ALERT = /Error events unusually high: 900 on a \w+, expected /;
/** The import's last day (UTC, as the rows are dated). */
let today: string;
const dateAgo = (days: number) => new Date(Date.parse(`${today}T00:00:00Z`) - days * DAY).toISOString().slice(0, 10);
/** Visitors `ago` days back: about 1,500 a day, then from 13 days ago about 530 (a weekly wiggle of 0-6). */
const visitors = (ago: number) => (ago < 14 ? 500 + (ago % 7) * 10 : 1500 + (ago % 7) * 20);
/** Error events: about 115 a day, and 900 on the last. */
const errorEvents = (ago: number) => (ago === 0 ? 900 : 100 + (ago % 7) * 5);
const dayLabel = (date: string) => new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));

interface Rule {
  id: string;
  metric: string;
  params: Record<string, unknown>;
  enabled: boolean;
  builtIn: boolean;
}

const suite = dashboardForFile();

const rules = async () => ((await (await suite.dashboard.fetch('/api/metric-alerts')).json()) as { rules: Rule[] }).rules;

beforeAll(async () => {
  const integrations = { analytics: { platforms: [{ platform: 'web', provider: 'plausible', siteId: 'formfox.example' }] }, error_tracker: { org: 'formfox', project: 'web' } };
  const created = await suite.dashboard.fetch('/api/projects', { method: 'POST', headers: json, body: JSON.stringify({ slug: 'formfox', name: 'Formfox', integrations }) });
  expect(created.status).toBe(201);
  const token = await suite.dashboard.fetch('/api/tokens', { method: 'POST', headers: json, body: JSON.stringify({ name: 'reader', scope: 'read' }) });
  readToken = ((await token.json()) as { token: string }).token;
  // The dates the preview is checked against must not move between the import and the page.
  await clearOfMidnight(60_000);
  today = new Date().toISOString().slice(0, 10);
  const days = Array.from({ length: 70 }, (_, ago) => ago);
  const rows = [
    ...days.map((ago) => `${dateAgo(ago)},formfox,analytics.visitors,${visitors(ago)},count`),
    ...days.map((ago) => `${dateAgo(ago)},formfox,errors.events,${errorEvents(ago)},count`),
  ];
  const imported = await suite.dashboard.fetch('/api/history/import', { method: 'POST', headers: { 'content-type': 'text/csv' }, body: ['date,project,metric,value,unit', ...rows].join('\n') });
  expect(imported.status).toBe(200);
  // The import's last day alerts (the error events' built-in rule): in the inbox before any page opens, so no toast
  // passes over a control the tests press.
  await until(
    async () => ((await (await suite.dashboard.fetch('/api/notifications?limit=5')).json()) as { notifications: { title: string }[] }).notifications.map((each) => each.title),
    (titles) => titles.some((title) => ERRORS_ALERT.test(title)),
    20_000,
    'the error events’ alert in the inbox',
  );
}, 120_000);

/** A phone-sized context (touch, 320 px) and its page, with the API token given as every request's. */
async function phone(token?: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await suite.browser.newContext({
    viewport: { width: 320, height: 800 },
    hasTouch: true,
    ...(token ? { extraHTTPHeaders: { authorization: `Bearer ${token}` } } : {}),
  });
  return { context, page: await context.newPage() };
}

describe('Settings → Change alerts', () => {
  it('previews a threshold rule before it is saved, names a bad field, saves it, deletes it after a confirm, and switches a built-in rule off', async () => {
    const { context, page } = await phone();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await gotoHydrated(page, `${suite.dashboard.url}/settings/metric-alerts`);

    // The built-in rule of Formfox's visitors: in words, a switch and edit, no delete.
    const builtIn = page.locator(`li[data-rule="${BUILT_IN}"]`);
    expect(await builtIn.locator('[data-words]').innerText()).toBe('Unusually high or low for its weekday (sensitivity z 4)');
    expect(await builtIn.getByText('Built-in', { exact: true }).count()).toBe(1);
    expect(await builtIn.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    expect(await builtIn.getByRole('switch').isChecked()).toBe(true);

    // A threshold on the visitors (the metric Formfox has set up comes first): the preview waits for a value.
    expect(await page.getByLabel('Project', { exact: true }).inputValue()).toBe('formfox');
    expect(await page.getByLabel('Metric', { exact: true }).inputValue()).toBe('analytics.visitors');
    expect(await page.getByRole('radio', { name: /^Threshold/ }).isChecked()).toBe(true);
    const preview = page.getByRole('article', { name: 'Preview' });
    await preview.getByText('Give a value to see what this rule would have said.').waitFor();
    await page.getByLabel('Value', { exact: true }).fill('800');
    const messages = () => preview.getByRole('list', { name: 'What would have alerted' }).locator('.message').allInnerTexts();
    await expect.poll(messages, { timeout: 15_000 }).toEqual(['Visitors below 800: 560', 'Visitors below 800 for 7 days now: 560']);
    const firings = preview.getByRole('list', { name: 'What would have alerted' }).getByRole('listitem');
    expect(await firings.evaluateAll((items) => items.map((item) => item.getAttribute('data-verdict')))).toEqual(['open', 'remind']);
    expect(await firings.first().locator('time').innerText()).toBe(dayLabel(dateAgo(13)));
    expect(await firings.first().innerText()).toContain('Alert');
    expect(await preview.locator('.summary').innerText()).toMatch(/^1 alert and 1 reminder from .+\. 70 days of history read\.$/);

    // Unusual with a sensitivity out of range: the preview and the save both say what is wrong, at the field.
    await page.getByRole('radio', { name: /^Unusual/ }).check();
    await page.getByLabel('Sensitivity (z)').fill('11');
    await preview.getByText('The preview failed: z is between 2 and 10').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Add the rule' }).click();
    const z = page.getByLabel('Sensitivity (z)');
    await expect.poll(() => z.getAttribute('aria-invalid'), { timeout: 10_000 }).toBe('true');
    expect(await page.locator('#alert-z-error').innerText()).toBe('z is between 2 and 10');
    expect(await z.evaluate((input) => input === document.activeElement)).toBe(true);

    // Back to the threshold (its value kept): the preview comes back, and the rule is added to Formfox's list.
    await page.getByRole('radio', { name: /^Threshold/ }).check();
    await expect.poll(messages, { timeout: 15_000 }).toEqual(['Visitors below 800: 560', 'Visitors below 800 for 7 days now: 560']);
    await page.getByRole('button', { name: 'Add the rule' }).click();
    await page.getByText('Added: Visitors, below 800, in Formfox.').waitFor({ timeout: 10_000 });
    const added = page.locator('li[data-rule]').filter({ hasText: 'Below 800' });
    expect(await added.locator('[data-words]').innerText()).toBe('Below 800');
    expect(await added.getByText('Warning', { exact: true }).count()).toBe(1);
    const saved = (await rules()).find((rule) => !rule.builtIn);
    expect(saved).toMatchObject({ metric: 'analytics.visitors', params: { kind: 'threshold', direction: 'below', value: 800 }, enabled: true });
    expect(await scrollsSideways(page)).toBe(false);
    await page.screenshot({ path: `${screenshotDir}metric-alerts-320.png`, fullPage: true });
    // Dark, without the colours' transition caught half-way.
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await page.screenshot({ path: `${screenshotDir}metric-alerts-320-dark.png`, fullPage: true });

    // The built-in rule switched off from the keyboard: saved at once.
    const toggle = builtIn.getByRole('switch');
    await toggle.focus();
    await page.keyboard.press('Space');
    await expect.poll(async () => (await rules()).find((rule) => rule.id === BUILT_IN)?.enabled, { timeout: 10_000 }).toBe(false);
    expect(await toggle.isChecked()).toBe(false);

    // The added rule deleted, after its confirm.
    await added.getByRole('button', { name: /^Delete… / }).click();
    await added.getByText('Delete this rule?').waitFor();
    expect(await added.getByRole('button', { name: 'Cancel' }).evaluate((button) => button === document.activeElement)).toBe(true);
    await added.getByRole('button', { name: /^Delete Visitors/ }).click();
    await added.waitFor({ state: 'detached', timeout: 10_000 });
    expect((await rules()).map((rule) => rule.id)).toEqual([BUILT_IN, 'default:formfox:errors.events']);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists the rules for a read-only API token, and says why a change is refused', async () => {
    const { context, page } = await phone(readToken);
    await gotoHydrated(page, `${suite.dashboard.url}/settings/metric-alerts`);
    const builtIn = page.locator(`li[data-rule="${BUILT_IN}"]`);
    const toggle = builtIn.getByRole('switch');
    const enabled = (await rules()).find((rule) => rule.id === BUILT_IN)?.enabled;
    expect(await toggle.isChecked()).toBe(enabled);
    await toggle.click();
    await builtIn.getByRole('alert').waitFor({ timeout: 10_000 });
    expect(await builtIn.getByRole('alert').innerText()).toBe('This API token is read-only; create a write token to change anything.');
    // The switch shows what is saved, which did not change.
    expect(await toggle.isChecked()).toBe(enabled);
    expect((await rules()).find((rule) => rule.id === BUILT_IN)?.enabled).toBe(enabled);
    await context.close();
  });
});

describe('a change alert in the bell', () => {
  it('says in "Why?" what else happened, without a verdict, and is found under the "Metric alerts" source', async () => {
    const context = await suite.browser.newContext({ viewport: { width: 320, height: 800 }, hasTouch: true, colorScheme: 'dark' });
    const page = await context.newPage();
    await gotoHydrated(page, `${suite.dashboard.url}/settings/metric-alerts`);
    await page.locator('.bell > button').click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const row = panel.locator('li[data-notification]').filter({ hasText: ERRORS_ALERT });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.locator('.meta').innerText()).toMatch(/^Metric alerts\s·\sFormfox\s·/);
    await row.getByText('Why?').click();
    const trace = row.getByRole('list', { name: /^How “Error events unusually high: .+” was decided$/ });
    await trace.waitFor();
    const context_ = trace.locator('li[data-stage="context"]');
    expect(await context_.count()).toBeGreaterThan(0);
    for (const line of await context_.allInnerTexts()) expect(line).toMatch(/^What else happened: \S/);
    expect(await context_.locator('.verdict').count()).toBe(0);

    // The source filter offers the dashboard's own alerts, and keeps this one.
    const source = panel.getByRole('combobox', { name: 'Source' });
    expect(await source.locator('option').allInnerTexts()).toContain('Metric alerts');
    await source.selectOption({ label: 'Metric alerts' });
    // (The visitors' drop, imported out of range since 13 days, is told too: once, as the day it went out.)
    const shown = () => panel.locator('li[data-notification]').allInnerTexts().then((texts) => texts.map((text) => text.split('\n')[0]).sort());
    await expect.poll(shown, { timeout: 10_000 }).toEqual([expect.stringMatching(/^Error events unusually high/), expect.stringMatching(/^Visitors unusually low/)]);
    await context.close();
  });
});
