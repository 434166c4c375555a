// The morning briefing as the founder meets it, in Chromium against the built dashboard over the demo's sandbox:
// linked from the dashboard until read, "needs you" (or a quiet day) first, every product with its figures and
// lists, a source that cannot be read named while the rest shows, in light and dark and at a phone's width, and
// an empty dashboard's briefing saying what to do. Screenshots go to test-results/screenshots.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { gotoHydrated, screenshotDir } from './browser.ts';
import { dashboardForFile } from './fixture.ts';
import { clearOfMidnight } from './waiting.ts';

const suite = dashboardForFile();

async function open(path: string, options: { width?: number; dark?: boolean; timezoneId?: string } = {}): Promise<{ page: Page; problems: string[] }> {
  const page = await suite.browser.newPage({
    viewport: { width: options.width ?? 1280, height: 1000 },
    colorScheme: options.dark ? 'dark' : 'light',
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
  });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  await gotoHydrated(page, suite.dashboard.url + path);
  return { page, problems };
}

describe('the briefing in the browser', () => {
  it('says what to do on an empty dashboard', async () => {
    const { page, problems } = await open('/briefing');
    await page.getByRole('heading', { name: 'Nothing to brief yet' }).waitFor();
    expect(await page.getByRole('link', { name: 'Create a project' }).getAttribute('href')).toBe('/settings/projects');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('is linked from the dashboard until read, with what needs you first and every product’s figures', async () => {
    // Read today stays read today: the day must not turn between the read and the look at the dashboard.
    await clearOfMidnight(30_000);
    const { page, problems } = await open('/');
    await page.getByRole('button', { name: 'Try it with demo data' }).click();
    await page.getByRole('region', { name: 'Demo data' }).waitFor({ timeout: 20_000 });
    const link = page.getByRole('link', { name: /Today’s briefing/ });
    await link.waitFor();
    await link.click();
    await page.waitForURL('**/briefing');

    const needs = page.getByRole('region', { name: 'Needs you' });
    await needs.waitFor({ timeout: 30_000 });
    // Either lines with their number and a link, or the quiet day's one line.
    const lines = needs.locator('li');
    if ((await lines.count()) > 0) {
      for (const line of await lines.all()) expect(await line.getByRole('link').getAttribute('href')).toMatch(/^\/\?(project=|notification=)/);
    } else {
      expect(await needs.innerText()).toMatch(/A quiet day: nothing needs you across all 3 projects\./);
    }
    const cards = page.locator('section[data-project]');
    await expect.poll(() => cards.count()).toBe(3);
    expect(await cards.locator('h2').allInnerTexts()).toEqual(['Pocket Ledger', 'Formfox', 'Tideline']);
    const formfox = page.locator('section[data-project="formfox"]');
    expect(await formfox.getByRole('term').first().innerText()).toBe('Revenue yesterday');
    expect(await formfox.getByRole('link', { name: /^\$[\d,.]+$/ }).first().getAttribute('href')).toBe('/?project=formfox#widget-revenue');
    expect(await formfox.getByRole('heading', { name: 'Uptime' }).isVisible()).toBe(true);
    await page.screenshot({ path: `${screenshotDir}briefing-light.png`, fullPage: true });

    // An outage leads to its thread: the dashboard opens the bell at it, highlighted.
    const outage = formfox.locator('a[href^="/?notification="]').first();
    const href = (await outage.getAttribute('href')) ?? '';
    await outage.click();
    const id = new URLSearchParams(href.slice(2)).get('notification') ?? '';
    await page.getByRole('dialog', { name: 'Notifications' }).locator(`li.highlight[data-notification="${id}"]`).waitFor({ timeout: 10_000 });

    // Read: the dashboard no longer links it.
    await page.goto(`${suite.dashboard.url}/`);
    await page.locator('[data-widget]').first().waitFor();
    expect(await page.getByRole('link', { name: /Today’s briefing/ }).count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('reads well in dark mode and at a phone’s width, without sideways scrolling', async () => {
    for (const [name, options] of [
      ['briefing-dark', { dark: true }],
      ['briefing-phone', { width: 390 }],
    ] as const) {
      const { page, problems } = await open('/briefing', options);
      await page.locator('section[data-project]').first().waitFor({ timeout: 30_000 });
      const widths = await page.evaluate(() => ({
        content: document.documentElement.scrollWidth,
        viewport: window.innerWidth,
        wide: [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 8).map((el) => `${el.tagName}.${el.className}`),
      }));
      expect(widths.content, `${name}: wider than the screen: ${widths.wide.join(', ')}`).toBeLessThanOrEqual(widths.viewport);
      await page.screenshot({ path: `${screenshotDir}${name}.png`, fullPage: true });
      expect(problems).toEqual([]);
      await page.close();
    }
  });

  it('switches to the weekly briefing at 320 px: each product against the week before, with its 7 days drawn and said', async () => {
    // A fortnight of history up to yesterday (UTC), as a founder's CSV brings it: the day must not turn meanwhile.
    await clearOfMidnight(30_000);
    const DAY = 86_400_000;
    const yesterday = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) - DAY;
    const day = (daysBefore: number) => new Date(yesterday - daysBefore * DAY).toISOString().slice(0, 10);
    const rows = Array.from({ length: 14 }, (_, i) => 13 - i).flatMap((ago) => [
      `${day(ago)},formfox,analytics.visitors,${230 - ago * 10},count`,
      `${day(ago)},formfox,bugs.open,${23 - ago},count`,
      ...(ago < 7 ? [`${day(ago)},formfox,errors.events,5,count`] : []),
    ]);
    const imported = await suite.dashboard.fetch('/api/history/import', { method: 'POST', headers: { 'content-type': 'text/csv' }, body: ['date,project,metric,value,unit', ...rows].join('\n') });
    expect(imported.status).toBe(200);

    const { page, problems } = await open('/briefing?project=formfox', { width: 320 });
    const formfox = page.locator('section[data-project="formfox"]');
    await formfox.waitFor({ timeout: 30_000 });
    // Daily first: the last day against the same weekday a week before, in words, with no sparkline.
    const visitors = formfox.locator('li[data-metric="analytics.visitors"]');
    expect(await visitors.innerText()).toMatch(/Visitors\s+230\s+▲ \+44 %\s+against 160 the same day last week/);
    expect(await formfox.locator('svg[role="img"]').count()).toBe(0);

    await page.getByRole('navigation', { name: 'Period' }).getByRole('link', { name: 'Weekly' }).click();
    await page.waitForURL('**/briefing?project=formfox&period=week');
    await formfox.getByRole('heading', { name: 'Against the week before' }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('link', { name: 'Weekly' }).getAttribute('aria-current')).toBe('page');
    // The week summed against the one before, the change in words (an arrow and a sign), its colour beside them.
    expect(await visitors.innerText()).toMatch(/Visitors\s+1,400\s+▲ \+54 %\s+against 910 the week before/);
    expect(await visitors.locator('.change').getAttribute('class')).toContain('good');
    // More open bugs is bad news, in words and in colour; a stock's week is its last value.
    const bugs = formfox.locator('li[data-metric="bugs.open"]');
    expect(await bugs.innerText()).toMatch(/Open bugs\s+23\s+▲ \+44 %\s+against 16 the week before/);
    expect(await bugs.locator('.change').getAttribute('class')).toContain('bad');
    // Nothing kept the week before: said, never 0 %.
    expect(await formfox.locator('li[data-metric="errors.events"]').innerText()).toMatch(/Error events\s+35\s+no history yet for the week before/);
    // Each sparkline is an image whose label says its 7 days' values.
    const spark = visitors.getByRole('img');
    expect(await spark.getAttribute('aria-label')).toMatch(/^Visitors, \w{3} \d{1,2} \w{3} to \w{3} \d{1,2} \w{3}: \w{3} \d{1,2} \w{3} 170, .* 230$/);
    expect(await formfox.getByRole('img').count()).toBe(3);

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const widths = await page.evaluate(() => ({ content: document.documentElement.scrollWidth, viewport: window.innerWidth }));
      expect(widths.content, scheme).toBeLessThanOrEqual(widths.viewport);
      await page.screenshot({ path: `${screenshotDir}briefing-weekly-320${scheme === 'dark' ? '-dark' : ''}.png`, fullPage: true });
    }
    // The project switch keeps the period.
    expect(await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'All projects' }).getAttribute('href')).toBe('/briefing?period=week');
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('names a source it could not read, and still shows the rest', async () => {
    // A fourth product whose Sentry cannot be reached: nothing is cached for it.
    const saved = await suite.dashboard.fetch('/api/credentials', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'sentry:broken', values: { authToken: 'sntrys_broken', orgSlug: 'acme', baseUrl: 'http://127.0.0.1:9/api' } }),
    });
    expect(saved.status).toBe(200);
    const created = await suite.dashboard.fetch('/api/projects', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'side-project', name: 'Side project', integrations: { error_tracker: { org: 'acme', project: 'side', credentialKey: 'sentry:broken' } } }),
    });
    expect(created.status).toBe(201);
    const { page, problems } = await open('/briefing');
    const partial = page.getByRole('region', { name: 'Not read this time' });
    await partial.waitFor({ timeout: 30_000 });
    expect(await partial.innerText()).toMatch(/Side project: errors — .*Sentry/);
    await expect.poll(() => page.locator('section[data-project]').count()).toBe(4);
    expect(await page.locator('section[data-project="formfox"] dl').isVisible()).toBe(true);
    await page.screenshot({ path: `${screenshotDir}briefing-partial.png`, fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('schedules the briefing email in Settings → Briefing, sends a test one, and keeps a threshold across a reload', async () => {
    const { page, problems } = await open('/settings#briefing', { timezoneId: 'Europe/Berlin' });
    const section = page.locator('#briefing');
    // The demo's email goes to the sandbox's SendGrid: the email is offered, in this browser's zone.
    await section.getByLabel('Send the briefing by email').check();
    expect(await section.getByLabel('Time zone').inputValue()).toBe('Europe/Berlin');
    await section.getByLabel('Time', { exact: true }).fill('07:30');
    // A weekly email on Mondays with what needs you and the figures only.
    await section.getByLabel('Each email covers').selectOption('week');
    for (const day of ['Tue', 'Wed', 'Thu', 'Fri']) await section.getByLabel(day, { exact: true }).uncheck();
    for (const part of ['What shipped', 'Reviews', 'Metric alerts']) await section.getByLabel(part, { exact: true }).uncheck();
    await section.getByRole('button', { name: 'Save schedule' }).click();
    await section.getByText(/^Saved: the next briefing email goes out /).waitFor();
    const saved = (await (await suite.dashboard.fetch('/api/briefing/settings')).json()) as { schedule: { enabled: boolean; time: string; timezone: string } };
    expect(saved.schedule).toEqual({ enabled: true, time: '07:30', timezone: 'Europe/Berlin', days: ['mon'], period: 'week', parts: ['needs_you', 'figures'] });
    await section.getByRole('button', { name: 'Send a test briefing now' }).click();
    await section.getByText('Test briefing sent: check the inbox it goes to.').waitFor({ timeout: 20_000 });

    await section.getByLabel('Revenue drop (%)').fill('10');
    await section.getByRole('button', { name: 'Save thresholds' }).click();
    await section.getByText('Thresholds saved: the next briefing uses them.').waitFor();
    await page.reload();
    expect(await page.locator('#briefing').getByLabel('Revenue drop (%)').inputValue()).toBe('10');
    expect(problems).toEqual([]);
    await page.close();
  });
});
