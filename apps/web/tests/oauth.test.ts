import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { sandboxGitHubOAuth, sandboxGoogle, sandboxGoogleAccount, startSandbox, type Sandbox } from '@dash/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated } from './browser.ts';
import { dashboardForFile } from './fixture.ts';

/** What a poll that waits on the server allows on a machine busy with the other tests. */
const SERVER = { timeout: 10_000 };

let sandbox: Sandbox;
let gcloud: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  gcloud = mkdtempSync(join(tmpdir(), 'dash-gcloud-'));
  mkdirSync(gcloud, { recursive: true });
  writeFileSync(
    join(gcloud, 'application_default_credentials.json'),
    JSON.stringify({ account: 'founder@example.com', client_id: sandboxGoogle.clientId, client_secret: sandboxGoogle.clientSecret, refresh_token: sandboxGoogle.refreshToken, type: 'authorized_user' }),
  );
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(gcloud, { recursive: true, force: true });
});
// gcloud's directory is the test's own; the Workspace CLI's default under a home that has none.
// An imported login goes only to GOOGLE_API_URL (Google's own unless set): here the fake Google.
const suite = dashboardForFile({ dashboard: () => ({ env: { CLOUDSDK_CONFIG: gcloud, HOME: gcloud, GOOGLE_API_URL: sandbox.services.google.baseUrl } }) });
beforeAll(async () => {
  const post = (path: string, body: unknown) => suite.dashboard.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  // An older Google connection: the import replaces its tokens, and its base URL with GOOGLE_API_URL's.
  const stale = { clientId: 'old.apps.googleusercontent.com', clientSecret: 'old', refreshToken: '1//old', baseUrl: sandbox.services.google.baseUrl };
  expect((await post('/api/credentials', { key: 'google', values: stale })).status).toBe(200);
  const integrations = { seo: { siteUrl: 'sc-domain:formfox.io' }, code_host: { repos: ['formfox/web'] } };
  expect((await post('/api/projects', { slug: 'formfox', name: 'Formfox', integrations })).status).toBe(201);
});

describe('Settings → Connections → Google in a real browser', () => {
  it("imports gcloud's login with one click, and the search data loads with it", async () => {
    const before = await (await suite.dashboard.fetch('/api/seo?project=formfox')).json();
    expect(before).toMatchObject({ error: { code: 'BAD_GATEWAY' } });

    const context = await suite.browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    await gotoHydrated(page, `${suite.dashboard.url}/settings#connections`);
    const card = page.locator('details.connection').filter({ hasText: 'Google Search Console' });
    await card.getByRole('button', { name: 'Import from gcloud' }).click();
    await expect.poll(() => card.getByText(/Imported founder@example.com's Google login from .*application_default_credentials\.json; Google accepted it\./).count(), SERVER).toBe(1);
    await context.close();

    const after = await suite.dashboard.fetch('/api/seo?project=formfox&refresh=1');
    expect(after.status).toBe(200);
    expect(after.headers.get('x-cache')).toBe('MISS');
  });
});

/** Settings in a fresh browser context, hydrated (the live stream is its last request). */
async function openSettings(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  await gotoHydrated(page, `${suite.dashboard.url}/settings#connections`);
  return { context, page };
}

const card = (page: Page, name: string) => page.locator('details.connection').filter({ hasText: name });
const banner = (page: Page) => page.locator('#connections .outcome');

/** Types the OAuth client into a card and saves it (the credential is replaced: no token yet). */
async function saveClient(page: Page, service: 'google' | 'github', client: { clientId: string; clientSecret: string }, baseUrl: string) {
  await page.locator(`#${service}-clientId`).fill(client.clientId);
  await page.locator(`#${service}-clientSecret`).fill(client.clientSecret);
  await page.locator(`#${service}-baseUrl`).fill(baseUrl);
  await card(page, service === 'google' ? 'Google Search Console' : 'GitHub').getByRole('button', { name: /^(Save|Replace)$/ }).click();
  const saved = card(page, service === 'google' ? 'Google Search Console' : 'GitHub');
  await expect.poll(() => saved.getByText('Client saved, not connected yet.').count(), SERVER).toBe(1);
  expect(await saved.locator('summary .badge').textContent()).toBe('Client saved');
}

describe('Settings → Connections → Connect with Google/GitHub in a real browser', () => {
  let callback = '';

  it('saves the Google client, shows the redirect URI to register, consents on Google’s page and lands on ?oauth=success; the Search widget loads', async () => {
    const { context, page } = await openSettings();
    const google = card(page, 'Google Search Console');
    await expect.poll(() => google.getByText(`${suite.dashboard.url}/api/auth/google/callback`, { exact: true }).count()).toBe(1);
    // The redirect URI to register is one click away from the clipboard.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.dashboard.url });
    await google.getByRole('button', { name: 'Copy the Google redirect URI' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`${suite.dashboard.url}/api/auth/google/callback`);
    await expect.poll(() => google.getByRole('button', { name: /^Copied/ }).count()).toBe(1);
    await saveClient(page, 'google', sandboxGoogle, sandbox.services.google.baseUrl);
    page.on('request', (request) => {
      if (request.url().includes('/api/auth/google/callback')) callback = request.url();
    });
    await google.getByRole('link', { name: /Connect with Google/ }).click();
    await page.waitForURL(`${sandbox.services.google.url}/o/oauth2/v2/auth?**`);
    await expect.poll(() => page.getByText(`Signed in as ${sandboxGoogleAccount}`).count()).toBe(1);
    await page.getByRole('link', { name: 'Allow', exact: true }).click();
    await page.waitForURL(`${suite.dashboard.url}/settings/connections?oauth=success`);
    await expect.poll(() => banner(page).textContent(), SERVER).toContain('Connected.');
    await expect.poll(() => google.getByText(`Connected as ${sandboxGoogleAccount} with Google sign-in.`, { exact: false }).count(), SERVER).toBe(1);
    // The flow's cookie is gone; no token is in the page.
    expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain('dash_oauth');
    expect(await page.content()).not.toMatch(/ya29\.|1\/\/0/);

    await page.goto(`${suite.dashboard.url}/?project=formfox`);
    const search = page.getByRole('region', { name: 'Search' });
    await expect.poll(() => search.getByRole('cell', { name: 'formfox', exact: true }).count(), SERVER).toBe(1);
    await context.close();
  });

  it('ends a replayed callback, a forged state and a flow whose cookie expired in oauth=error&reason=state, storing nothing', async () => {
    expect(callback).toContain('code=');
    const { context, page } = await openSettings();
    await page.goto(callback);
    await page.waitForURL(`${suite.dashboard.url}/settings/connections?oauth=error&reason=state`);
    await expect.poll(() => banner(page).textContent(), SERVER).toContain('That sign-in expired or was finished in another browser');

    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state-forged-state-forged-state-0000');
    await page.goto(forged.href);
    await page.waitForURL(`${suite.dashboard.url}/settings/connections?oauth=error&reason=state`);

    // Connect, then ten minutes pass on the consent page: the browser drops the flow's cookie (Max-Age=600).
    await card(page, 'Google Search Console').getByRole('link', { name: /Connect again/ }).click();
    await page.waitForURL(`${sandbox.services.google.url}/o/oauth2/v2/auth?**`);
    const [flow] = (await context.cookies(callback)).filter((cookie) => cookie.name === 'dash_oauth');
    expect(flow).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/auth/' });
    expect((flow?.expires ?? 0) - Date.now() / 1000).toBeGreaterThan(590);
    expect((flow?.expires ?? 0) - Date.now() / 1000).toBeLessThanOrEqual(600);
    await context.clearCookies({ name: 'dash_oauth' });
    await page.getByRole('link', { name: 'Allow', exact: true }).click();
    await page.waitForURL(`${suite.dashboard.url}/settings/connections?oauth=error&reason=state`);
    // Still the first connection's account: nothing was replaced.
    await expect.poll(() => card(page, 'Google Search Console').getByText(`Connected as ${sandboxGoogleAccount}`, { exact: false }).count(), SERVER).toBe(1);
    await context.close();
  });

  it('says so when the user declines on the consent page', async () => {
    const { context, page } = await openSettings();
    await card(page, 'Google Search Console').getByRole('link', { name: /Connect again/ }).click();
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL(`${suite.dashboard.url}/settings/connections?oauth=error&reason=access_denied`);
    await expect.poll(() => banner(page).textContent(), SERVER).toBe('You declined on the provider’s page, so nothing was connected.');
    await context.close();
  });

  it('shows "Needs reconnect" when Google refuses the refresh token (invalid_grant), and Reconnect mends it', async () => {
    sandbox.revokeOAuth('google');
    // The widget keeps showing the last numbers (marked stale) while Google refuses.
    const failed = await suite.dashboard.fetch('/api/seo?project=formfox&refresh=1');
    expect(failed.headers.get('x-cache')).toBe('STALE');
    const { context, page } = await openSettings();
    const google = card(page, 'Google Search Console');
    await expect.poll(() => google.locator('summary .badge').textContent(), SERVER).toBe('Needs reconnect');
    await expect.poll(() => google.getByText(/revoked the dashboard's access \(invalid_grant/).count()).toBe(1);
    await google.getByRole('link', { name: /Reconnect/ }).click();
    await page.getByRole('link', { name: 'Allow', exact: true }).click();
    await page.waitForURL(`${suite.dashboard.url}/settings/connections?oauth=success`);
    await expect.poll(() => google.locator('summary .badge').textContent(), SERVER).toBe('Connected');
    await context.close();
    expect((await suite.dashboard.fetch('/api/seo?project=formfox&refresh=1')).status).toBe(200);
  });

  it('answers the redirect route’s mistakes as JSON, sets the flow cookie, and moves a flow opened on another loopback name to the public origin', async () => {
    const unknown = await suite.dashboard.fetch('/api/auth/gitlab/redirect?credKey=gitlab', { redirect: 'manual' });
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: { code: 'NOT_FOUND', message: 'No OAuth provider "gitlab": google or github' } }]);
    const noClient = await suite.dashboard.fetch('/api/auth/github/redirect?credKey=github:work', { redirect: 'manual' });
    expect([noClient.status, await noClient.json()]).toEqual([
      400,
      { error: { code: 'BAD_REQUEST', message: 'Save GitHub\'s OAuth client ID and client secret under "github:work" first (Settings → Connections → GitHub), then connect.' } },
    ]);
    const started = await suite.dashboard.fetch('/api/auth/google/redirect?credKey=google', { redirect: 'manual' });
    expect(started.status).toBe(302);
    expect(started.headers.get('location')).toMatch(new RegExp(`^${sandbox.services.google.url}/o/oauth2/v2/auth\\?`));
    const cookie = started.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^dash_oauth=[\w.-]+; Max-Age=600; Path=\/api\/auth\/; HttpOnly; SameSite=Lax$/);
    // Opened as localhost: first to the address the provider will send the browser back to.
    const port = new URL(suite.dashboard.url).port;
    const alias = await new Promise<{ status: number | undefined; location: string | undefined }>((resolve, reject) =>
      get({ host: '127.0.0.1', port, path: '/api/auth/google/redirect?credKey=google', headers: { host: `localhost:${port}` } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode, location: res.headers.location });
      }).on('error', reject),
    );
    expect(alias).toEqual({ status: 302, location: `${suite.dashboard.url}/api/auth/google/redirect?credKey=google` });
  });

  it('connects GitHub with an OAuth app, named by its login, and the shipping widget’s data comes with the new token', async () => {
    const { context, page } = await openSettings();
    const github = card(page, 'GitHub');
    await github.locator('summary').click();
    await saveClient(page, 'github', sandboxGitHubOAuth.oauthApp, sandbox.services.github.baseUrl);
    await github.getByRole('link', { name: /Connect with GitHub/ }).click();
    await page.waitForURL(`${sandbox.services.github.url}/login/oauth/authorize?**`);
    await page.getByRole('link', { name: 'Allow', exact: true }).click();
    await page.waitForURL(`${suite.dashboard.url}/settings/connections?oauth=success`);
    await expect.poll(() => github.getByText('Connected as demo-founder with GitHub sign-in. The token does not expire.').count(), SERVER).toBe(1);
    await context.close();
    expect((await suite.dashboard.fetch('/api/shipping?project=formfox&refresh=1')).status).toBe(200);
  });
});
