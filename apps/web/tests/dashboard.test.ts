import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { gotoHydrated, screenshotDir } from './browser.ts';
import { dashboardForFile } from './fixture.ts';
import { sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
/** Fake upstreams for the credential tests: nothing here may reach a real service. */
let sandbox: Sandbox;

const suite = dashboardForFile();
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox?.close());

/** Uncaught errors and console errors of the pages a test opened; checked after each test. */
let problems: string[] = [];
afterEach(() => {
  const seen = problems;
  problems = [];
  expect(seen).toEqual([]);
});

async function openPage(path: string, options: { serviceWorkers?: 'allow' | 'block' } = {}): Promise<Page> {
  const page = await suite.browser.newPage({ viewport: { width: 1280, height: 900 }, ...options });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    // A refused request (400 from a bad input, an aborted script) is logged by Chromium itself.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  await gotoHydrated(page, suite.dashboard.url + path);
  await page.waitForLoadState('networkidle');
  return page;
}

const savedOrder = async () => (await (await fetch(`${suite.dashboard.url}/api/settings`)).json()) as { projectOrder: string[] };
const tabNames = (page: Page) => page.locator('nav[aria-label="Projects"] [data-tab]').allInnerTexts();

async function createProject(page: Page, name: string) {
  await page.getByLabel('Name', { exact: true }).first().fill(name);
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.getByText(`Created ${name}.`).waitFor();
}

describe('the dashboard in a browser', () => {
  it('welcomes an empty store with the way to the first project', async () => {
    const page = await openPage('/');
    await expect(page.getByRole('heading', { name: 'Good morning.' }).isVisible()).resolves.toBe(true);
    await page.screenshot({ path: `${screenshotDir}welcome.png` });
    await page.getByRole('link', { name: 'Create your first project' }).click();
    await page.waitForURL(/\/settings/);
    await page.close();
  });

  it('creates two projects, reorders the tabs by keyboard and by dragging, and keeps the order over a reload', async () => {
    const settings = await openPage('/settings');
    await createProject(settings, 'Alpha');
    await createProject(settings, 'Beta app');
    await settings.close();

    const page = await openPage('/');
    expect(await tabNames(page)).toEqual(['Alpha', 'Beta app']);

    await page.locator('[data-tab="beta-app"]').focus();
    await page.keyboard.press('Alt+ArrowLeft');
    await expect.poll(() => tabNames(page)).toEqual(['Beta app', 'Alpha']);
    await expect.poll(async () => (await savedOrder()).projectOrder).toEqual(['beta-app', 'alpha']);
    await page.reload();
    expect(await tabNames(page)).toEqual(['Beta app', 'Alpha']);

    // Dropped on the left half of a tab, a tab lands before it; on the right half, after it.
    await page.locator('[data-tab="alpha"]').dragTo(page.locator('[data-tab="beta-app"]'), { targetPosition: { x: 4, y: 10 } });
    await expect.poll(() => tabNames(page)).toEqual(['Alpha', 'Beta app']);
    await expect.poll(async () => (await savedOrder()).projectOrder).toEqual(['alpha', 'beta-app']);
    await page.reload();
    expect(await tabNames(page)).toEqual(['Alpha', 'Beta app']);
    const beta = await page.locator('[data-tab="beta-app"]').boundingBox();
    await page.locator('[data-tab="alpha"]').dragTo(page.locator('[data-tab="beta-app"]'), { targetPosition: { x: (beta?.width ?? 80) - 4, y: 10 } });
    await expect.poll(() => tabNames(page)).toEqual(['Beta app', 'Alpha']);
    await expect.poll(async () => (await savedOrder()).projectOrder).toEqual(['beta-app', 'alpha']);

    // The move buttons beside a focused tab, by keyboard (the first tab's "left" is disabled, so one
    // Tab reaches "right"); the focus stays on the moved tab.
    await page.locator('[data-tab="beta-app"]').focus();
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).resolves.toBe('Move Beta app right');
    await page.keyboard.press('Enter');
    await expect.poll(() => tabNames(page)).toEqual(['Alpha', 'Beta app']);
    await expect(page.evaluate(() => document.activeElement?.getAttribute('data-tab'))).resolves.toBe('beta-app');
    await expect.poll(() => page.locator('[aria-live="polite"]', { hasText: 'moved to position' }).innerText()).toBe('Beta app moved to position 2 of 2.');
    await expect.poll(async () => (await savedOrder()).projectOrder).toEqual(['alpha', 'beta-app']);
    await page.reload();
    expect(await tabNames(page)).toEqual(['Alpha', 'Beta app']);

    await page.locator('[data-tab="alpha"]').click();
    await page.waitForURL(/project=alpha/);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Alpha');
    expect(await page.getByRole('region').count()).toBe(6);
    // A project with nothing set up: each widget says what to add, with a way to settings.
    await expect.poll(() => page.getByText('Alpha has no revenue source set up yet. Add one in settings.').isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Set it up in settings' }).count()).toBe(6);
    await page.screenshot({ path: `${screenshotDir}dashboard-light.png`, fullPage: true });
    await page.close();
  });

  it("shows the server's error next to a bad slug and creates nothing", async () => {
    const page = await openPage('/settings');
    await page.getByLabel('Name', { exact: true }).first().fill('Gamma');
    await page.getByLabel('Slug', { exact: true }).fill('Bad Slug!');
    await page.getByRole('button', { name: 'Create project' }).click();
    await expect(page.getByRole('alert').first().innerText()).resolves.toMatch(/^Invalid input: slug: Use lowercase letters/);
    const slug = page.getByLabel('Slug', { exact: true });
    await expect(slug.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#project-slug-error').innerText()).resolves.toMatch(/Use lowercase letters, digits and single dashes/);
    const { projects } = (await (await fetch(`${suite.dashboard.url}/api/projects`)).json()) as { projects: { slug: string }[] };
    expect(projects.map((p) => p.slug)).not.toContain('gamma');
    await page.close();
  });

  it('validates an integration on the server and saves a good one', async () => {
    const page = await openPage('/settings');
    const card = page.getByRole('article', { name: 'Alpha' });
    await card.getByRole('button', { name: 'Set up Code (GitHub)' }).click();
    await card.getByLabel('Repositories').fill('not a repo');
    await card.getByRole('form', { name: 'Code (GitHub) for alpha' }).getByRole('button', { name: 'Save' }).click();
    await expect(card.locator('#alpha-code_host-repos-error').innerText()).resolves.toBe('A repository is written owner/name');

    await card.getByLabel('Repositories').fill('acme/app, acme/site');
    await card.getByRole('form', { name: 'Code (GitHub) for alpha' }).getByRole('button', { name: 'Save' }).click();
    await card.getByText('Code (GitHub) saved.').waitFor();
    const alpha = (await (await fetch(`${suite.dashboard.url}/api/projects/alpha`)).json()) as { integrations: unknown };
    expect(alpha.integrations).toEqual({ code_host: { repos: ['acme/app', 'acme/site'] } });
    await page.close();
  });

  it('saves a credential, lists it as connected, and never shows its value', async () => {
    const secret = 'github_pat_E2eSecretValue_1234567890';
    const page = await openPage('/settings#connections');
    const github = page.locator('details', { has: page.getByText('GitHub', { exact: true }) });
    await github.locator('summary').click();
    await github.getByLabel('Fine-grained personal access token').fill(secret);
    // Tests never reach the real GitHub: the base URL points at the sandbox's fake.
    await github.getByLabel('Base URL (self-hosted or test server)').fill(sandbox.services.github.baseUrl);
    await github.getByRole('button', { name: 'Save' }).click();
    await github.getByText('GitHub is connected as “github”.').waitFor();
    await github.getByText('Connected', { exact: true }).waitFor();
    await expect(github.getByLabel('Fine-grained personal access token').inputValue()).resolves.toBe('');
    expect(await page.content()).not.toContain(secret);

    await page.reload();
    expect(await page.content()).not.toContain(secret);
    await expect(page.getByRole('list', { name: 'GitHub connections' }).innerText()).resolves.toContain('github');
    expect(await (await fetch(`${suite.dashboard.url}/api/credentials`)).json()).toEqual({ connectedKeys: ['github'] });
    expect(suite.dashboard.output()).not.toContain(secret);

    // Test sends the typed values to the service's lightest call and shows its answer.
    const vercel = page.locator('details', { has: page.getByText('Vercel', { exact: true }) });
    await vercel.locator('summary').click();
    await vercel.getByLabel('Base URL (self-hosted or test server)').fill(sandbox.services.vercel.baseUrl);
    await vercel.getByLabel('Access token').fill('vercel-token-that-is-wrong');
    await vercel.getByRole('button', { name: 'Test' }).click();
    await expect(vercel.getByRole('alert').innerText()).resolves.toBe('Vercel refused access (403): Not authorized');
    await vercel.getByLabel('Access token').fill(sandboxTokens.vercel);
    await vercel.getByRole('button', { name: 'Test' }).click();
    await vercel.getByText('Vercel accepted these credentials.').waitFor();

    // With nothing typed, Test asks about the stored key: the request carries no values.
    const connected = page.locator('details', { has: page.getByText('GitHub', { exact: true }) });
    const request = page.waitForRequest((r) => r.url().includes('credentials.test'));
    await connected.getByRole('button', { name: 'Test' }).click();
    expect((await request).postDataJSON()).toEqual({ 0: { key: 'github' } });
    await expect(connected.getByRole('alert').innerText()).resolves.toBe('GitHub rejected the credentials (401): Bad credentials');
    expect(sandbox.requestsTo('github').map((r) => r.path)).toEqual(['/user']);
    await page.evaluate(() => document.getElementById('connections')?.scrollIntoView());
    await page.screenshot({ path: `${screenshotDir}settings-connections.png` });
    await page.close();
  });

  it('puts another widget in a slot and switches showOC', async () => {
    const page = await openPage('/settings#layout');
    await page.getByLabel('Bottom, full width').selectOption('health');
    await page.getByLabel('Middle right').selectOption('');
    await page.getByRole('switch', { name: /Show funding balance/ }).check();
    await page.getByRole('button', { name: 'Save layout' }).click();
    await page.getByText('Layout saved.').waitFor();
    const settings = (await (await fetch(`${suite.dashboard.url}/api/settings`)).json()) as { widgetLayout: { slots: Record<string, string>; configs: unknown } };
    expect(settings.widgetLayout.slots).toEqual({ revenue: 'revenue', shipping: 'shipping', ideas: 'ideas', analytics: 'analytics', detail: 'health' });
    expect(settings.widgetLayout.configs).toEqual({ revenue: { showOC: true } });
    await page.goto(`${suite.dashboard.url}/settings`);
    await page.screenshot({ path: `${screenshotDir}settings.png`, fullPage: true });

    await page.goto(`${suite.dashboard.url}/`);
    await expect(page.getByRole('region', { name: 'Uptime' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('region', { name: 'Empty slot' }).isVisible()).resolves.toBe(true);
    await page.close();
  });

  it('switches to the dark theme and keeps it over a reload, without a light first paint', async () => {
    // No service worker: the app's scripts are kept from the page by page.route below, which never sees what a worker
    // serves from its cache.
    const page = await openPage('/', { serviceWorkers: 'block' });
    await expect(page.getByRole('radio', { name: 'System' }).isChecked()).resolves.toBe(true);
    await page.screenshot({ path: `${screenshotDir}dashboard-all-light.png`, fullPage: true });
    // Arrow keys move through the three radios: System -> Dark.
    await page.getByRole('radio', { name: 'System' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect(page.getByRole('radio', { name: 'Dark' }).isChecked()).resolves.toBe(true);
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe('dark');

    // The stored choice is applied before the app's code runs: no light flash, and the toggle agrees.
    // Without the app's JavaScript only the inline script in the page's head can set the theme.
    await page.route('**/_app/immutable/**/*.js', (route) => route.abort());
    await page.reload();
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe('dark');
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(14, 14, 17)');
    await page.unroute('**/_app/immutable/**/*.js');
    // The blocked scripts' own failure is expected; anything after this point still counts.
    problems = problems.filter((problem) => !problem.includes('Failed to fetch dynamically imported module'));
    await page.reload();
    await page.waitForLoadState('networkidle');
    await expect(page.getByRole('radio', { name: 'Dark' }).isChecked()).resolves.toBe(true);
    await page.screenshot({ path: `${screenshotDir}dashboard-dark.png`, fullPage: true });

    await page.goto(`${suite.dashboard.url}/settings`);
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: `${screenshotDir}settings-dark.png` });

    await page.getByRole('radio', { name: 'Light' }).check();
    await page.reload();
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe('light');
    await page.getByRole('radio', { name: 'System' }).check();
    await expect(page.evaluate(() => localStorage.getItem('theme'))).resolves.toBe(null);
    await page.close();
  });

  it('deletes a project after confirmation and drops its tab', async () => {
    const page = await openPage('/settings');
    const card = page.getByRole('article', { name: 'Beta app' });
    await card.getByRole('button', { name: 'Delete project…' }).click();
    // The question takes the button's place; the focus goes to Cancel, and comes back when cancelled.
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Cancel');
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Delete project…');
    await page.keyboard.press('Enter');
    await card.getByRole('button', { name: 'Delete Beta app' }).click();
    await page.getByRole('article', { name: 'Beta app' }).waitFor({ state: 'detached' });
    await page.goto(`${suite.dashboard.url}/`);
    expect(await tabNames(page)).toEqual(['Alpha']);
    await page.close();
  });
});
