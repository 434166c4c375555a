import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  analyticsSchema,
  errorTrackerSchema,
  fundingSchema,
  healthSchema,
  ideasSchema,
  revenueSchema,
  seoSchema,
  shippingSchema,
  storefrontSchema,
} from '@dash/contracts';
import { gotoHydrated, screenshotDir, scrollsSideways } from './browser.ts';
import { dashboardForFile } from './fixture.ts';

const suite = dashboardForFile();

/** A page at `path`, hydrated, and (unless `idle` is false) once its widgets' requests have settled. */
async function openPage(path: string, { idle = true } = {}): Promise<Page> {
  const page = await suite.browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await gotoHydrated(page, suite.dashboard.url + path);
  if (idle) await page.waitForLoadState('networkidle');
  return page;
}

const widget = (page: Page, name: string) => page.locator(`[data-widget="${name}"]`);
const api = async (path: string) => {
  const response = await fetch(suite.dashboard.url + path);
  return { status: response.status, cache: response.headers.get('x-cache'), json: (await response.json()) as unknown };
};

describe('the demo, in a browser, through the real connectors and the sandbox', () => {
  it('starts from the empty dashboard and fills every widget with the three products', async () => {
    const page = await openPage('/');
    await page.getByRole('button', { name: 'Try it with demo data' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Demo data' }).isVisible(), { timeout: 20_000 }).toBe(true);
    await expect.poll(() => page.locator('nav[aria-label="Projects"] [data-tab]').allInnerTexts()).toEqual(['Pocket Ledger', 'Formfox', 'Tideline']);

    // All projects: every widget leaves its loading state with data.
    await expect.poll(() => widget(page, 'revenue').locator('[data-figure="mrr"]').innerText(), { timeout: 30_000 }).toMatch(/^\$[\d,]+(\.\d\d)?$/);
    await expect.poll(() => widget(page, 'shipping').locator('li').count(), { timeout: 30_000 }).toBeGreaterThan(5);
    await expect.poll(() => widget(page, 'ideas').locator('li').count(), { timeout: 30_000 }).toBeGreaterThan(5);
    await expect.poll(() => widget(page, 'errortracker').locator('tbody tr').count(), { timeout: 30_000 }).toBeGreaterThan(5);
    await expect.poll(() => widget(page, 'analytics').locator('[data-figure="visitors"]').innerText(), { timeout: 30_000 }).toMatch(/^[\d.]+[KM]?$/);
    await expect.poll(() => widget(page, 'seo').locator('tbody tr').count(), { timeout: 30_000 }).toBeGreaterThan(3);
    const sources = await widget(page, 'shipping').locator('.meta').allInnerTexts();
    for (const source of ['PR merged', 'Issue done', 'Deployed']) expect(sources.some((text) => text.startsWith(source))).toBe(true);
    await page.screenshot({ path: `${screenshotDir}demo-all-projects.png`, fullPage: true });
    await page.close();
  });

  it('shows every widget a project set up: the six slots, then the rest below them (Uptime too), with the page itself', async () => {
    const page = await suite.browser.newPage({ viewport: { width: 1280, height: 1000 } });
    /** The widgets' data requests (tRPC batches the calls of one moment into one): none, their data comes with the page. */
    const dataRequests: string[] = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.startsWith('/api/trpc/') && pathname.includes('data.')) dataRequests.push(decodeURIComponent(pathname));
    });
    await gotoHydrated(page, `${suite.dashboard.url}/?project=pocket-ledger`);
    await expect(page.locator('.sub').innerText()).resolves.toMatch(/^9 of 10 integrations set up/);
    const shown = () => page.locator('[data-widget]').evaluateAll((sections) => sections.map((section) => section.getAttribute('data-widget')));
    // Everything but funding, which Pocket Ledger has not set up: app store and uptime in the row below the slots.
    expect(await shown()).toEqual(['revenue', 'shipping', 'ideas', 'analytics', 'seo', 'errortracker', 'storefront', 'health']);
    const uptime = widget(page, 'health');
    await expect.poll(() => uptime.locator('.summary').innerText(), { timeout: 30_000 }).toBe('All 2 monitors up');
    await expect.poll(() => widget(page, 'storefront').locator('[data-figure="average-rating"]').innerText(), { timeout: 30_000 }).toMatch(/^[1-5]\.\d$/);
    // Below the slots: under the full-width one.
    const detail = await widget(page, 'errortracker').boundingBox();
    expect((await uptime.boundingBox())?.y).toBeGreaterThan((detail?.y ?? Infinity) + (detail?.height ?? 0) - 1);
    expect(dataRequests).toEqual([]);
    await page.screenshot({ path: `${screenshotDir}demo-pocket-ledger-row.png`, fullPage: true });

    // All projects: whatever any project set up, Tideline's funding included.
    await page.getByRole('link', { name: 'All projects' }).click();
    await expect.poll(shown).toEqual(['revenue', 'shipping', 'ideas', 'analytics', 'seo', 'errortracker', 'storefront', 'health', 'funding']);
    await expect.poll(() => uptime.locator('.summary').innerText(), { timeout: 30_000 }).toMatch(/^1 of \d+ monitors down$/);
    await expect.poll(() => widget(page, 'funding').locator('[data-figure="balance"]').innerText(), { timeout: 30_000 }).toMatch(/\d/);
    await page.close();
  });

  it('reorders the row below the slots in the layout form, by keyboard, and the view follows', async () => {
    // The layout's own page (an old `/settings#layout` link is taken there after hydration, a step this test does not need).
    const form = await openPage('/settings/layout');
    const row = form.getByRole('list', { name: 'Row below the slots' });
    const listed = () => row.locator('li').evaluateAll((items) => items.map((item) => item.getAttribute('data-more')));
    await row.waitFor();
    expect(await listed()).toEqual(['storefront', 'health', 'funding']);
    await form.getByRole('button', { name: 'Move Uptime up' }).focus();
    await form.keyboard.press('Enter');
    await expect.poll(listed).toEqual(['health', 'storefront', 'funding']);
    // At the top its "up" is disabled: the focus stays with Uptime, on its "down".
    expect(await form.getByRole('button', { name: 'Move Uptime up' }).isDisabled()).toBe(true);
    await expect(form.evaluate(() => document.activeElement?.getAttribute('aria-label'))).resolves.toBe('Move Uptime down');
    await expect.poll(() => form.locator('[aria-live="polite"]', { hasText: 'moved to position' }).innerText()).toBe('Uptime moved to position 1 of 3.');
    await form.getByRole('button', { name: 'Move Funding up' }).click();
    await expect.poll(listed).toEqual(['health', 'funding', 'storefront']);
    await form.getByRole('button', { name: 'Save layout' }).click();
    await form.getByText('Layout saved.').waitFor();
    await form.reload();
    expect(await listed()).toEqual(['health', 'funding', 'storefront']);
    await form.close();

    const page = await openPage('/?project=tideline');
    const shown = () => page.locator('[data-widget]').evaluateAll((sections) => sections.map((section) => section.getAttribute('data-widget')));
    expect((await shown()).slice(6)).toEqual(['health', 'funding', 'storefront']);
    await page.getByRole('link', { name: 'Pocket Ledger' }).click();
    await expect.poll(async () => (await shown()).slice(6)).toEqual(['health', 'storefront']);
    await page.close();

    // On a phone, light and dark: each move button is a 44 px target, and nothing scrolls sideways.
    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await suite.browser.newPage({ viewport: { width: 320, height: 800 }, colorScheme });
      await gotoHydrated(phone, `${suite.dashboard.url}/settings/layout`);
      for (const mover of await phone.getByRole('list', { name: 'Row below the slots' }).getByRole('button').all()) {
        const box = await mover.boundingBox();
        expect(Math.min(box?.width ?? 0, box?.height ?? 0)).toBeGreaterThanOrEqual(44);
      }
      expect(await scrollsSideways(phone)).toBe(false);
      await phone.getByRole('list', { name: 'Row below the slots' }).scrollIntoViewIfNeeded();
      await phone.screenshot({ path: `${screenshotDir}layout-row-320-${colorScheme}.png` });
      await phone.close();
    }
    await suite.dashboard.fetch(`/api/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetLayout: { more: null } }),
    });
  }, 120_000);

  it('answers every data route with the spec’s JSON from the sandbox, then from the cache', async () => {
    for (const [path, schema] of [
      ['/api/revenue?range=30d', revenueSchema],
      ['/api/ideas', ideasSchema],
      ['/api/shipping', shippingSchema],
      ['/api/errortracker', errorTrackerSchema],
      ['/api/health', healthSchema],
      ['/api/storefront', storefrontSchema],
      ['/api/analytics', analyticsSchema],
      ['/api/analytics?platform=web&range=7d', analyticsSchema],
      ['/api/seo', seoSchema],
      ['/api/funding', fundingSchema],
    ] as const) {
      const first = await api(path);
      expect(first.status, path).toBe(200);
      expect(schema.safeParse(first.json).success, path).toBe(true);
      const second = await api(path);
      expect(second.cache, path).toBe('HIT');
    }
    const revenue = revenueSchema.parse((await api('/api/revenue?range=30d')).json);
    expect(revenue.chart).toHaveLength(30);
    expect(revenue.mrr).toBeGreaterThan(0);
  });

  it('puts uptime in a slot and shows its down monitor, incident and response times', async () => {
    await suite.dashboard.fetch(`/api/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetLayout: { slots: { seo: 'health' } } }),
    });
    const page = await openPage('/?project=formfox');
    const uptime = widget(page, 'health');
    await expect.poll(() => uptime.locator('.summary').innerText(), { timeout: 20_000 }).toBe('1 of 3 monitors down');
    await expect(uptime.getByRole('alert').innerText()).resolves.toMatch(/Submission worker: Status 503\s+ongoing since/);
    await expect(uptime.locator('.time').first().innerText()).resolves.toMatch(/^\d+ ms$/);
    await page.screenshot({ path: `${screenshotDir}demo-formfox.png`, fullPage: true });
    await page.close();
  });

  it('shows Tideline’s App Store reviews, its funding, and its collective’s balance beside revenue with showOC', async () => {
    await suite.dashboard.fetch(`/api/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetLayout: { slots: { analytics: 'storefront', seo: 'funding' }, configs: { revenue: { showOC: true } } } }),
    });
    const page = await openPage('/?project=tideline');
    const store = widget(page, 'storefront');
    await expect.poll(() => store.locator('[data-figure="average-rating"]').innerText(), { timeout: 20_000 }).toMatch(/^[1-5]\.\d$/);
    expect(await store.locator('.reviews li').count()).toBeGreaterThan(0);
    await expect(store.locator('.versions').innerText()).resolves.toMatch(/Ready for distribution/);
    const funding = widget(page, 'funding');
    await expect.poll(() => funding.locator('[data-figure="balance"]').innerText(), { timeout: 20_000 }).toMatch(/\d/);
    expect(await funding.locator('.avatars li').count()).toBeGreaterThan(3);
    await expect.poll(() => widget(page, 'revenue').locator('[data-figure="oc-balance"]').innerText(), { timeout: 20_000 }).toBe(
      await funding.locator('[data-figure="balance"]').innerText(),
    );
    await page.screenshot({ path: `${screenshotDir}demo-tideline.png`, fullPage: true });
    await page.close();
    // Formfox has no collective: its funding widget says so instead of showing everyone's.
    const formfox = await openPage('/?project=formfox');
    await expect.poll(() => widget(formfox, 'funding').locator('.note').innerText()).toBe('This project has no funding platform set up yet. Add one in settings.');
    await formfox.close();
    await suite.dashboard.fetch(`/api/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetLayout: { slots: { analytics: 'analytics', seo: 'health' }, configs: { revenue: { showOC: false } } } }),
    });
  });

  it('switches analytics between platforms and sorts search queries by a column', async () => {
    await suite.dashboard.fetch(`/api/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetLayout: { slots: { seo: 'seo' } } }),
    });
    const page = await openPage('/?project=pocket-ledger');
    const analytics = widget(page, 'analytics');
    await expect.poll(() => analytics.locator('[data-figure="visitors"]').innerText(), { timeout: 20_000 }).toMatch(/\d/);
    const both = await analytics.locator('[data-figure="visitors"]').innerText();
    await analytics.getByLabel('Platform').selectOption('web');
    await expect.poll(() => analytics.locator('[data-figure="visitors"]').innerText(), { timeout: 20_000 }).not.toBe(both);
    const seo = widget(page, 'seo');
    await expect.poll(() => seo.locator('tbody tr').count(), { timeout: 20_000 }).toBeGreaterThan(3);
    await seo.getByRole('button', { name: /^Pos\./ }).click();
    const positions = (await seo.locator('tbody tr td:nth-child(5)').allInnerTexts()).map(Number);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    await page.screenshot({ path: `${screenshotDir}demo-pocket-ledger.png`, fullPage: true });
    await page.close();
    await suite.dashboard.fetch(`/api/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetLayout: { slots: { seo: 'health' } } }),
    });
  });

  it('keeps showing cached data, marked stale with the reason, when the source rejects a refresh', async () => {
    const page = await openPage('/?project=formfox');
    const uptime = widget(page, 'health');
    await expect.poll(() => uptime.locator('.summary').innerText(), { timeout: 20_000 }).toBe('1 of 3 monitors down');
    // The demo's Better Stack token is replaced by a wrong one: the sandbox answers 401 from now on.
    const saved = await suite.dashboard.fetch(`/api/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'betterstack:demo', values: { apiToken: 'revoked-token', baseUrl: 'http://127.0.0.1:9/api' } }),
    });
    expect(saved.status).toBe(200);
    await uptime.getByRole('button', { name: 'Refresh uptime' }).click();
    await expect.poll(() => uptime.locator('.badge.stale').isVisible(), { timeout: 20_000 }).toBe(true);
    await expect(uptime.locator('.stale-note').innerText()).resolves.toMatch(/^Showing data from .+: Formfox: Better Stack could not be reached/);
    expect(await uptime.locator('.summary').innerText()).toBe('1 of 3 monitors down');
    await page.screenshot({ path: `${screenshotDir}demo-stale.png` });
    await page.close();
  });

  it('shows the not-configured state with a way to settings for a project without integrations', async () => {
    await suite.dashboard.fetch(`/api/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'side-project', name: 'Side project' }),
    });
    const page = await openPage('/?project=side-project');
    const revenue = widget(page, 'revenue');
    await expect.poll(() => revenue.locator('.note').innerText()).toBe('Side project has no revenue source set up yet. Add one in settings.');
    expect(await revenue.getByRole('link', { name: 'Set it up in settings' }).getAttribute('href')).toBe('/settings/projects#project-side-project');
    await page.screenshot({ path: `${screenshotDir}not-configured.png` });
    await page.close();
    await suite.dashboard.fetch(`/api/projects/side-project`, { method: 'DELETE' });
  });

  it('removes the demo with its projects and credentials, back to the empty dashboard', async () => {
    // The button is there once the page is hydrated: whether its widgets have settled is not this test's (a loaded CI
    // machine once took more than 30 s to let them).
    const page = await openPage('/', { idle: false });
    await page.getByRole('button', { name: 'Remove the demo' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Good morning.' }).isVisible(), { timeout: 20_000 }).toBe(true);
    expect(await page.getByRole('region', { name: 'Demo data' }).count()).toBe(0);
    expect(await (await fetch(`${suite.dashboard.url}/api/projects`)).json()).toEqual({ projects: [] });
    expect(await (await fetch(`${suite.dashboard.url}/api/credentials`)).json()).toEqual({ connectedKeys: [] });
    await page.close();
  });
});
