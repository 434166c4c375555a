import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { gotoHydrated, launchChromium, screenshotDir } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

/** What a poll that waits on the server allows on a machine busy with the other tests. */
const SERVER = { timeout: 10_000 };

let browser: Browser;
const cleanup: (() => unknown)[] = [];

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A dashboard whose database is chosen in Settings (no DATABASE_URL), with the credentials key given. */
async function dashboard(key: string): Promise<RunningDashboard> {
  const started = await startDashboard({ env: { DATABASE_URL: undefined, CREDENTIALS_KEY: key } });
  cleanup.push(() => started.stop());
  return started;
}

async function settingsPage(target: RunningDashboard): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, acceptDownloads: true });
  cleanup.push(() => context.close());
  const page = await context.newPage();
  await gotoHydrated(page, `${target.url}/settings#database`);
  return page;
}

/** The Database section of the settings page. */
function section(page: Page) {
  return page.locator('section#database');
}

const json = async (target: RunningDashboard, path: string) => (await (await target.fetch(path)).json()) as Record<string, unknown>;

/** What a user sees, through the API the pages use. */
async function seen(target: RunningDashboard) {
  return { projects: await json(target, '/api/projects'), settings: await json(target, '/api/settings'), credentials: await json(target, '/api/credentials') };
}

async function fill(target: RunningDashboard) {
  const post = (path: string, body: unknown) => target.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect((await post('/api/projects', { slug: 'formfox', name: 'FormFox', integrations: { code_host: { repos: ['acme/formfox'] } } })).status).toBe(201);
  expect((await post('/api/projects', { slug: 'tally', name: 'Tally' })).status).toBe(201);
  expect((await post('/api/settings', { projectOrder: ['tally', 'formfox'] })).status).toBe(200);
  expect((await post('/api/credentials', { key: 'github', values: { token: 'ghp_browserTestToken0123456789' } })).status).toBe(200);
}

describe('Settings → Database in a real browser', () => {
  it('exports from one dashboard and imports onto a fresh one with the same key: everything a user sees comes back', async () => {
    const key = randomBytes(32).toString('hex');
    const source = await dashboard(key);
    await fill(source);
    const page = await settingsPage(source);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export' }).click();
    // Saved where this test can read it: the shared Chromium is connected to, and keeps its downloads to itself.
    const saved = mkdtempSync(join(tmpdir(), 'dash-export-'));
    onTestFinished(() => rmSync(saved, { recursive: true, force: true }));
    const file = join(saved, (await download).suggestedFilename());
    await (await download).saveAs(file);
    const dump = JSON.parse(readFileSync(file, 'utf8')) as { version: number; tables: { projects: unknown[] } };
    expect(dump.version).toBe(1);
    expect(readFileSync(file, 'utf8')).not.toContain('ghp_browserTestToken0123456789');

    const fresh = await dashboard(key);
    const target = await settingsPage(fresh);
    await section(target).getByLabel('Choose an export to import').setInputFiles(file);
    // The summary before anything changes: two projects where there are none.
    const summary = section(target).locator('.summary');
    await expect.poll(() => summary.textContent(), SERVER).toMatch(/would replace/);
    await expect.poll(async () => (await summary.locator('tr', { hasText: 'projects' }).textContent())?.replace(/\s+/g, ' '), SERVER).toMatch(/projects\s*0\s*2/);
    expect(((await json(fresh, '/api/projects')).projects as unknown[]).length).toBe(0);
    await section(target).getByRole('button', { name: 'Import and replace' }).click();
    await expect.poll(() => section(target).getByText(/^Imported \d+ rows\.$/).count(), SERVER).toBe(1);
    await section(target).screenshot({ path: `${screenshotDir}settings-database-import.png` });

    expect(await seen(fresh)).toEqual(await seen(source));
    // The dashboard's own page shows the projects in their order, and the connection as connected.
    await target.goto(`${fresh.url}/`);
    const tabs = target.locator('nav a.tab');
    await expect.poll(async () => (await tabs.allTextContents()).map((text) => text.trim()), SERVER).toEqual(expect.arrayContaining(['Tally', 'FormFox']));
  }, 120_000);

  it('switches to another SQLite file with a copy, and serves the same data from it', async () => {
    const target = await dashboard(randomBytes(32).toString('hex'));
    await fill(target);
    const before = await seen(target);
    // A file given here must lie in the data directory.
    const dir = target.dataDir;
    const page = section(await settingsPage(target));
    await page.getByLabel('File').fill(join(dir, 'moved.db'));
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => page.getByText(/Embedded SQLite answers; it has no tables yet/).count(), SERVER).toBe(1);
    await page.getByLabel('Copy this dashboard’s data there').check();
    await page.getByRole('button', { name: 'Switch', exact: true }).click();
    await expect.poll(() => page.getByText('Switched to Embedded SQLite, with this dashboard’s data copied there.').count(), SERVER).toBe(1);
    await expect.poll(() => page.getByTestId('database-serving').textContent(), SERVER).toContain(join(dir, 'moved.db'));
    expect(await seen(target)).toEqual(before);
  });

  it('refuses a file that is not an export, or one from a newer dashboard, and changes nothing', async () => {
    const target = await dashboard(randomBytes(32).toString('hex'));
    await fill(target);
    const before = await seen(target);
    const dir = mkdtempSync(join(tmpdir(), 'dash-bad-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const page = section(await settingsPage(target));

    writeFileSync(join(dir, 'notes.json'), 'this is not json');
    await page.getByLabel('Choose an export to import').setInputFiles(join(dir, 'notes.json'));
    await expect.poll(() => page.getByRole('alert').allTextContents(), SERVER).toContain('notes.json is not a JSON export: choose a file the Export button downloaded.');

    const dump = (await (await target.fetch('/api/database/export')).json()) as Record<string, unknown>;
    writeFileSync(join(dir, 'newer.json'), JSON.stringify({ ...dump, version: 2 }));
    await page.getByLabel('Choose an export to import').setInputFiles(join(dir, 'newer.json'));
    await expect.poll(() => page.getByRole('alert').allTextContents(), SERVER).toContain(
      'This dump is version 2, newer than this dashboard reads (1): update the dashboard, then import it',
    );
    expect(await page.locator('.summary').count()).toBe(0);
    expect(await seen(target)).toEqual(before);
  });
});

describe('Settings → Database once a password is set', () => {
  it('asks for the password to import: none or a wrong one says so, the right one imports', async () => {
    const PASSWORD = 'correct horse battery staple';
    const target = await dashboard(randomBytes(32).toString('hex'));
    await fill(target);
    const dump = (await (await target.fetch('/api/database/export')).json()) as Record<string, unknown>;
    const dir = mkdtempSync(join(tmpdir(), 'dash-owner-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'export.json'), JSON.stringify(dump));
    const set = await target.fetch('/settings/security?/password', {
      method: 'POST',
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ newPassword: PASSWORD, confirm: PASSWORD }),
    });
    expect(set.status).toBe(200);

    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    cleanup.push(() => context.close());
    const tab = await context.newPage();
    await tab.goto(`${target.url}/login?next=/settings/database`);
    await tab.getByLabel('Password').fill(PASSWORD);
    // Signed in, the page is hydrated once the bell opens its live stream: a file chosen before then lands on the
    // server's HTML, with no handler yet, and nothing happens (gotoHydrated's sign).
    const hydrated = tab.waitForResponse((response) => response.url().includes('notifications.stream'));
    await tab.getByRole('button', { name: /sign in/i }).click();
    await tab.waitForURL(`${target.url}/settings/database`);
    await hydrated;
    const page = section(tab);

    await page.getByLabel('Choose an export to import').setInputFiles(join(dir, 'export.json'));
    await expect.poll(() => page.getByRole('alert').allTextContents(), SERVER).toContain('Confirm this with the dashboard password (the password field).');
    await page.getByLabel('Your password').fill('not the password at all');
    await page.getByLabel('Choose an export to import').setInputFiles(join(dir, 'export.json'));
    await expect.poll(() => page.getByRole('alert').allTextContents(), SERVER).toContain('That password is not right.');
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByLabel('Choose an export to import').setInputFiles(join(dir, 'export.json'));
    await expect.poll(() => page.locator('.summary').textContent(), SERVER).toMatch(/would replace/);
    await page.getByRole('button', { name: 'Import and replace' }).click();
    await expect.poll(() => page.getByText(/^Imported \d+ rows\.$/).count(), SERVER).toBe(1);
    await section(tab).screenshot({ path: `${screenshotDir}settings-database-owner.png` });
  });
});
