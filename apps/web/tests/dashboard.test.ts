import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, screenshotDir } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

let dashboard: RunningDashboard;
let browser: Browser;

beforeAll(async () => {
  dashboard = await startDashboard();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

async function openPage(path: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(dashboard.url + path);
  await page.waitForLoadState('networkidle');
  return page;
}

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
    await expect.poll(async () => (await (await fetch(`${dashboard.url}/api/settings`)).json()) as unknown).toMatchObject({ projectOrder: ['beta-app', 'alpha'] });
    await page.reload();
    expect(await tabNames(page)).toEqual(['Beta app', 'Alpha']);

    await page.locator('[data-tab="alpha"]').dragTo(page.locator('[data-tab="beta-app"]'));
    await expect.poll(() => tabNames(page)).toEqual(['Alpha', 'Beta app']);
    await expect.poll(async () => ((await (await fetch(`${dashboard.url}/api/settings`)).json()) as { projectOrder: string[] }).projectOrder).toEqual(['alpha', 'beta-app']);
    await page.reload();
    expect(await tabNames(page)).toEqual(['Alpha', 'Beta app']);

    await page.locator('[data-tab="alpha"]').click();
    await page.waitForURL(/project=alpha/);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Alpha');
    expect(await page.getByRole('region').count()).toBe(6);
    await expect(page.getByText('Not available yet').first().isVisible()).resolves.toBe(true);
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
    const { projects } = (await (await fetch(`${dashboard.url}/api/projects`)).json()) as { projects: { slug: string }[] };
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
    const alpha = (await (await fetch(`${dashboard.url}/api/projects/alpha`)).json()) as { integrations: unknown };
    expect(alpha.integrations).toEqual({ code_host: { repos: ['acme/app', 'acme/site'] } });
    await page.close();
  });

  it('saves a credential, lists it as connected, and never shows its value', async () => {
    const secret = 'github_pat_E2eSecretValue_1234567890';
    const page = await openPage('/settings#connections');
    const github = page.locator('details', { has: page.getByText('GitHub', { exact: true }) });
    await github.locator('summary').click();
    await github.getByLabel('Fine-grained personal access token').fill(secret);
    await github.getByRole('button', { name: 'Save' }).click();
    await github.getByText('GitHub is connected as “github”.').waitFor();
    await github.getByText('Connected', { exact: true }).waitFor();
    await expect(github.getByLabel('Fine-grained personal access token').inputValue()).resolves.toBe('');
    expect(await page.content()).not.toContain(secret);

    await page.reload();
    expect(await page.content()).not.toContain(secret);
    await expect(page.getByRole('list', { name: 'GitHub connections' }).innerText()).resolves.toContain('github');
    expect(await (await fetch(`${dashboard.url}/api/credentials`)).json()).toEqual({ connectedKeys: ['github'] });
    expect(dashboard.output()).not.toContain(secret);

    const testButton = page.locator('details', { has: page.getByText('Vercel', { exact: true }) });
    await testButton.locator('summary').click();
    await testButton.getByLabel('Access token').fill('vercel-token');
    await testButton.getByRole('button', { name: 'Test' }).click();
    await expect(testButton.getByRole('alert').innerText()).resolves.toMatch(/Vercel credentials is not available yet/);
    await page.screenshot({ path: `${screenshotDir}settings-connections.png`, fullPage: false });
    await page.close();
  });

  it('puts another widget in a slot and switches showOC', async () => {
    const page = await openPage('/settings#layout');
    await page.getByLabel('Detail slot').selectOption('health');
    await page.getByLabel('Seo slot').selectOption('');
    await page.getByRole('switch', { name: /Show funding balance/ }).check();
    await page.getByRole('button', { name: 'Save layout' }).click();
    await page.getByText('Layout saved.').waitFor();
    const settings = (await (await fetch(`${dashboard.url}/api/settings`)).json()) as { widgetLayout: { slots: Record<string, string>; configs: unknown } };
    expect(settings.widgetLayout.slots).toEqual({ revenue: 'revenue', shipping: 'shipping', ideas: 'ideas', analytics: 'analytics', detail: 'health' });
    expect(settings.widgetLayout.configs).toEqual({ revenue: { showOC: true } });
    await page.screenshot({ path: `${screenshotDir}settings.png`, fullPage: true });

    await page.goto(`${dashboard.url}/`);
    await expect(page.getByRole('region', { name: 'Uptime' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('region', { name: 'Empty slot' }).isVisible()).resolves.toBe(true);
    await page.close();
  });

  it('switches to the dark theme and keeps it over a reload', async () => {
    const page = await openPage('/');
    await page.getByRole('button', { name: /System theme/ }).click();
    await page.getByRole('button', { name: /Light theme/ }).click();
    await page.getByRole('button', { name: /Dark theme/ }).waitFor();
    await page.reload();
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe('dark');
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(14, 14, 17)');
    await page.screenshot({ path: `${screenshotDir}dashboard-dark.png`, fullPage: true });
    await page.close();
  });

  it('deletes a project after confirmation and drops its tab', async () => {
    const page = await openPage('/settings');
    const card = page.getByRole('article', { name: 'Beta app' });
    await card.getByRole('button', { name: 'Delete project…' }).click();
    await card.getByRole('button', { name: 'Delete Beta app' }).click();
    await page.getByRole('article', { name: 'Beta app' }).waitFor({ state: 'detached' });
    await page.goto(`${dashboard.url}/`);
    expect(await tabNames(page)).toEqual(['Alpha']);
    await page.close();
  });
});
