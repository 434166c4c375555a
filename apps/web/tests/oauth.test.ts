import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { sandboxGoogle, startSandbox, type Sandbox } from '@dash/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

/** What a poll that waits on the server allows on a machine busy with the other tests. */
const SERVER = { timeout: 10_000 };

let sandbox: Sandbox;
let dashboard: RunningDashboard;
let browser: Browser;
let gcloud: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  gcloud = mkdtempSync(join(tmpdir(), 'dash-gcloud-'));
  mkdirSync(gcloud, { recursive: true });
  writeFileSync(
    join(gcloud, 'application_default_credentials.json'),
    JSON.stringify({ account: 'founder@example.com', client_id: sandboxGoogle.clientId, client_secret: sandboxGoogle.clientSecret, refresh_token: sandboxGoogle.refreshToken, type: 'authorized_user' }),
  );
  // gcloud's directory is the test's own; the Workspace CLI's default under a home that has none.
  [dashboard, browser] = await Promise.all([startDashboard({ env: { CLOUDSDK_CONFIG: gcloud, HOME: gcloud } }), launchChromium()]);
  const post = (path: string, body: unknown) => dashboard.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  // An older Google connection pointing at the fake Google: the import replaces its tokens and keeps its base URL.
  const stale = { clientId: 'old.apps.googleusercontent.com', clientSecret: 'old', refreshToken: '1//old', baseUrl: sandbox.services.google.baseUrl };
  expect((await post('/api/credentials', { key: 'google', values: stale })).status).toBe(200);
  expect((await post('/api/projects', { slug: 'formfox', name: 'Formfox', integrations: { seo: { siteUrl: 'sc-domain:formfox.io' } } })).status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
  await sandbox?.close();
  rmSync(gcloud, { recursive: true, force: true });
});

describe('Settings → Connections → Google in a real browser', () => {
  it("imports gcloud's login with one click, and the search data loads with it", async () => {
    const before = await (await dashboard.fetch('/api/seo?project=formfox')).json();
    expect(before).toMatchObject({ error: { code: 'BAD_GATEWAY' } });

    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    const hydrated = page.waitForResponse((response) => response.url().includes('notifications.stream'));
    await page.goto(`${dashboard.url}/settings#connections`);
    await hydrated;
    const card = page.locator('details.connection').filter({ hasText: 'Google Search Console' });
    await card.getByRole('button', { name: 'Import from gcloud' }).click();
    await expect.poll(() => card.getByText(/Imported founder@example.com's Google login from .*application_default_credentials\.json; Google accepted it\./).count(), SERVER).toBe(1);
    await context.close();

    const after = await dashboard.fetch('/api/seo?project=formfox&refresh=1');
    expect(after.status).toBe(200);
    expect(after.headers.get('x-cache')).toBe('MISS');
  });
});
