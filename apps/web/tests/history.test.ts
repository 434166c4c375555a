// The history as a founder sees it, in Chromium at 320 px against the built dashboard with the demo: a widget's trend
// (its range switch slices what the page loaded, asking the server nothing; a tap and the arrow keys read a day), the
// history view of a project (every kept metric with its chart and where it comes from, the CSV download), and Settings
// → History. Once the demo's own history of Formfox is in (its snapshot and what its fake providers keep), a year of
// Formfox's visitors is imported over it, and its open bugs with a three-day gap, so what the charts say is known.
import { text } from 'node:stream/consumers';
import type { BrowserContext, Download, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated, screenshotDir, startDemo } from './browser.ts';
import { dashboardForFile } from './fixture.ts';
import { clearOfMidnight, until } from './waiting.ts';

const DAY = 86_400_000;
/** The imported year's last day: visitors of today back to 364 days ago (2000 today, one less each day before). */
let today: string;
const dateAgo = (days: number) => new Date(Date.parse(`${today}T00:00:00Z`) - days * DAY).toISOString().slice(0, 10);
const year = Array.from({ length: 365 }, (_, ago) => ago);

const suite = dashboardForFile({ dashboard: { env: { HISTORY_SNAPSHOTS: 'on' } } });

/**
 * Waits until the history keeper is done with Formfox (the demo's start has it take the day's snapshot, when its time
 * has passed, then read back what each new integration's provider keeps): Plausible's visitors are in. Nothing touches
 * Formfox's history after that but this file's own snapshot, last.
 */
async function formfoxReadBack(): Promise<void> {
  const visitorsKept = async () => {
    const { projects } = (await (await suite.dashboard.fetch('/api/history/metrics?project=formfox')).json()) as { projects: { metrics: { key: string; points: number }[] }[] };
    return projects[0]?.metrics.find((metric) => metric.key === 'analytics.visitors')?.points ?? 0;
  };
  await until(visitorsKept, (points) => points > 0, 45_000, 'Formfox’s visitors read back from Plausible', 500);
}

beforeAll(async () => {
  // The keeper on, as a user's dashboard has it: the demo's start reads its providers' past days back.
  await startDemo(suite.browser, suite.dashboard.url);
  await formfoxReadBack();
  // "Today" must not change between the import and the charts.
  await clearOfMidnight(60_000);
  today = new Date().toISOString().slice(0, 10);
  // Open bugs, a level only the snapshot keeps: the days before today (today is the snapshot's), but for 10-12 days ago.
  const rows = [
    ...year.map((ago) => `${dateAgo(ago)},formfox,analytics.visitors,${2000 - ago},count`),
    ...year.filter((ago) => ago > 0 && (ago < 10 || ago > 12)).map((ago) => `${dateAgo(ago)},formfox,bugs.open,${20 + (ago % 7)},count`),
  ];
  const imported = await suite.dashboard.fetch('/api/history/import', { method: 'POST', headers: { 'content-type': 'text/csv' }, body: ['date,project,metric,value,unit', ...rows].join('\n') });
  expect(imported.status).toBe(200);
}, 120_000);

/** A fresh phone-sized context (touch, 320 px) and its page, noting every request the page makes after it loads. */
async function phone(dark = false): Promise<{ context: BrowserContext; page: Page; requests: string[] }> {
  const context = await suite.browser.newContext({ viewport: { width: 320, height: 800 }, hasTouch: true, colorScheme: dark ? 'dark' : 'light' });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  return { context, page, requests };
}

/** A download's text (the browser is remote: its file is read through Playwright's stream). */
const downloaded = async (download: Download) => text(await download.createReadStream());
const dayLabel = (date: string) => new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
/** Requests for history or for a page's data again (SvelteKit's __data.json). */
const historyRequests = (requests: string[]) => requests.filter((url) => /history|__data\.json/.test(new URL(url).pathname + new URL(url).search));

describe('the trend on a widget', () => {
  it('shows the headline metric, switches range without a request, and reads a day by tap and by keyboard', async () => {
    const { context, page, requests } = await phone();
    await gotoHydrated(page, `${suite.dashboard.url}/?project=formfox`);
    const trend = page.locator('[data-trend="analytics"]');
    const chart = trend.getByRole('img');
    await chart.waitFor();
    expect(await trend.getByRole('combobox').inputValue()).toBe('analytics.visitors');
    expect(await chart.getAttribute('aria-label')).toMatch(/^Visitors, the last 30 days \(.+\): 1,971 on .+ to 2,000 on .+, up 1 %; 30 of 30 days recorded\.$/);
    const path = () => chart.locator('path').getAttribute('d');
    const monthPath = await path();
    const before = requests.length;

    await trend.getByRole('button', { name: '7 days' }).click();
    await expect.poll(() => chart.getAttribute('aria-label')).toMatch(/^Visitors, the last 7 days .*; 7 of 7 days recorded\.$/);
    expect(await path()).not.toBe(monthPath);
    expect(await path()).toMatch(/^M[^M]+$/);
    await trend.getByRole('button', { name: 'a year' }).click();
    await expect.poll(() => chart.getAttribute('aria-label')).toMatch(/^Visitors, the last year .*: 1,636 on .+ to 2,000 on .+, up 22 %; 365 of 365 days recorded\.$/);
    expect(await trend.getByRole('button', { name: 'a year' }).getAttribute('aria-pressed')).toBe('true');
    await trend.getByRole('button', { name: '30 days' }).click();
    await expect.poll(path).toBe(monthPath);
    // The range switch sliced what the page already had.
    expect(historyRequests(requests.slice(before))).toEqual([]);

    // A tap at the right edge reads today; the arrow key steps to yesterday.
    const box = await chart.boundingBox();
    await chart.tap({ position: { x: (box?.width ?? 1) - 2, y: (box?.height ?? 1) / 2 } });
    await expect.poll(() => trend.locator('[data-readout]').innerText()).toBe(`${dayLabel(today)}: 2,000 visitors`);
    await chart.focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => trend.locator('[data-readout]').innerText()).toBe(`${dayLabel(dateAgo(1))}: 1,999 visitors`);
    // The days are in a table for a screen reader too.
    expect(await trend.locator('table tbody tr').count()).toBe(30);

    await trend.getByRole('button', { name: '90 days' }).click();
    await page.locator('[data-widget="analytics"]').screenshot({ path: `${screenshotDir}history-widget-trend-320.png` });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('[data-widget="analytics"]').screenshot({ path: `${screenshotDir}history-widget-trend-320-dark.png` });
    expect(historyRequests(requests.slice(before))).toEqual([]);
    await context.close();
  });

  it('charts another of the widget’s metrics when asked, and on All projects offers only what adds up', async () => {
    const { context, page } = await phone();
    await gotoHydrated(page, `${suite.dashboard.url}/?project=formfox`);
    const ideas = page.locator('[data-trend="ideas"]');
    await ideas.getByRole('combobox').selectOption('bugs.open');
    await ideas.getByRole('button', { name: 'a year' }).click();
    const bugs = ideas.getByRole('img');
    await expect.poll(() => bugs.getAttribute('aria-label')).toMatch(/^Open bugs, the last year /);
    // The three days without a value are a break in the line (a second subpath), not a drop to zero.
    expect((await bugs.locator('path').getAttribute('d'))?.match(/M/g)?.length).toBeGreaterThanOrEqual(2);
    expect(await bugs.getAttribute('aria-label')).toMatch(/; 36[12] of 365 days recorded\.$/);

    await gotoHydrated(page, `${suite.dashboard.url}/`);
    const search = page.locator('[data-trend="seo"]');
    await search.waitFor();
    // A click-through rate and an average position do not add up across projects: only clicks and impressions are offered.
    expect(await search.getByRole('combobox').locator('option').allInnerTexts()).toEqual(['Search clicks', 'Search impressions']);
    await context.close();
  });
});

describe('the history view of a project', () => {
  it('lists every kept metric with its chart and its source, switches range in place, and downloads CSV', async () => {
    const { context, page, requests } = await phone();
    await gotoHydrated(page, `${suite.dashboard.url}/?project=formfox`);
    await page.getByRole('link', { name: 'History', exact: true }).first().click();
    await page.waitForURL(/\/history\?project=formfox/);
    await page.getByRole('heading', { level: 1, name: 'History of Formfox' }).waitFor();
    const visitors = page.locator('[data-metric="analytics.visitors"]');
    expect(await visitors.getByRole('heading', { level: 2 }).innerText()).toBe('Visitors');
    expect(await visitors.locator('.fact').innerText()).toMatch(/^(Backfilled from Plausible since|History starts on) \d+ \w+ \d{4}.*; [\d,]+ days kept\.$/);
    expect(await visitors.getByRole('img').getAttribute('aria-label')).toMatch(/^Visitors, the last 90 days .*; 90 of 90 days recorded\.$/);
    // Every metric the project keeps is listed, each with a line saying where its days come from.
    const listed = await page.locator('[data-metric]').evaluateAll((articles) => articles.map((article) => article.getAttribute('data-metric')));
    expect(listed).toContain('analytics.visitors');
    expect(listed.length).toBeGreaterThan(1);
    for (const fact of await page.locator('[data-metric] .fact').allInnerTexts()) expect(fact).toMatch(/Backfilled from|History starts|No days yet|days kept/);

    const before = requests.length;
    await page.getByRole('group', { name: 'Range of every chart' }).getByRole('button', { name: 'a year' }).click();
    await expect.poll(() => visitors.getByRole('img').getAttribute('aria-label')).toMatch(/365 of 365 days recorded\.$/);
    expect(historyRequests(requests.slice(before))).toEqual([]);
    await page.screenshot({ path: `${screenshotDir}history-view-320.png`, fullPage: true });

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
    const csv = await downloaded(download);
    expect(download.suggestedFilename()).toMatch(/^history-formfox.*\.csv$/);
    expect(csv.split('\n')[0]).toBe('date,project,metric,value,unit');
    expect(csv).toContain(`${today},formfox,analytics.visitors,2000,count`);
    const [one] = await Promise.all([page.waitForEvent('download'), visitors.getByRole('link', { name: 'Download Visitors as CSV' }).click()]);
    const lines = (await downloaded(one)).trim().split('\n');
    expect(lines.slice(1).every((line) => line.includes(',analytics.visitors,'))).toBe(true);
    await context.close();
  });

  it('is drawn dark as well as light, in the same colours as the theme', async () => {
    const { context, page } = await phone(true);
    await gotoHydrated(page, `${suite.dashboard.url}/history?project=formfox`);
    const line = page.locator('[data-metric="analytics.visitors"] path').first();
    const stroke = await line.evaluate((path) => getComputedStyle(path).stroke);
    const accent = await page.evaluate(() => getComputedStyle(document.querySelector('.trend') ?? document.body).color);
    expect(stroke).toBe(accent);
    await page.screenshot({ path: `${screenshotDir}history-view-320-dark.png`, fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await line.evaluate((path) => getComputedStyle(path).stroke)).not.toBe(stroke);
    await context.close();
  });
});

describe('Settings → History and Database', () => {
  it('shows the schedule and the rows kept, and takes a snapshot on demand', async () => {
    const { context, page } = await phone();
    await gotoHydrated(page, `${suite.dashboard.url}/settings/database`);
    expect(Number((await page.getByTestId('history-rows').innerText()).replace(/\D/g, ''))).toBeGreaterThanOrEqual(365 + 361);
    await gotoHydrated(page, `${suite.dashboard.url}/settings/history`);
    expect(await page.getByLabel('Time', { exact: true }).inputValue()).toMatch(/^\d\d:\d\d$/);
    await page.getByRole('button', { name: 'Take a snapshot now' }).click();
    await expect.poll(() => page.getByText(/^Snapshot of .+ taken: [\d,]+ values kept\./).count(), { timeout: 20_000 }).toBe(1);
    expect(await page.locator('[data-last-snapshot]').innerText()).not.toBe('None yet');
    await context.close();
  });
});
