// The installable app in a real Chromium against the built dashboard: the service worker installs and precaches this
// version's public files, Chromium's own installability check finds nothing missing, a page that cannot be reached
// is the offline page (with when data was last seen), an old version's cache goes on update, and signing out leaves
// no cache but the public one and forgets the "last seen" time. The worker answers only navigations and its own files,
// so the other browser tests' request hooks (page.route) still see every API call and stream.
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated, launchChromium, launchProfileChromium, screenshotDir } from './browser.ts';
import { raw } from './http.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

const PASSWORD = 'correct horse battery staple';
/** How long a poll waits for what a page or the worker does on its own (a busy machine is slow to run them). */
const WHILE = { timeout: 10_000 };

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/** The build's version, as the worker names its cache after it. */
async function versionOf(dashboard: RunningDashboard): Promise<string> {
  return ((await (await fetch(`${dashboard.url}/_app/version.json`)).json()) as { version: string }).version;
}

/** Waits until the page has an active worker controlling it (the first page too: the worker claims it). */
async function controlled(page: Page): Promise<string> {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller?.state), WHILE).toBe('activated');
  return page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? '');
}

/**
 * What a page's answer is while it is being replaced: after "Sign out everywhere" the sign-in page may load twice (the
 * app goes there, and so does its live stream's end), so a poll asks again.
 */
function navigating(error: unknown): string {
  if (error instanceof Error && error.message.includes('Execution context was destroyed')) return 'navigating';
  throw error;
}

/** The origin's caches by name. (Only keys(): caches.open() would make again a cache the page is deleting.) */
const cacheNames = (page: Page) => page.evaluate(() => caches.keys()).catch(navigating);

/** Every cache of the origin, with the paths (and queries) of what each holds. */
function cacheContents(page: Page): Promise<Record<string, string[]>> {
  return page.evaluate(async () => {
    const contents: Record<string, string[]> = {};
    for (const name of await caches.keys()) {
      const requests = await (await caches.open(name)).keys();
      contents[name] = requests.map((request) => new URL(request.url).pathname + new URL(request.url).search).sort();
    }
    return contents;
  });
}

/** Chromium's own verdict on the app at `origin`: no installability error, and the manifest as the issue asks. */
async function expectInstallable(page: Page, origin: string) {
  const cdp = await page.context().newCDPSession(page);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  expect(installabilityErrors).toEqual([]);
  const manifest = await cdp.send('Page.getAppManifest');
  expect(manifest.url).toBe(`${origin}/manifest.webmanifest`);
  expect(manifest.errors).toEqual([]);
  const parsed = JSON.parse(manifest.data ?? '{}') as Record<string, unknown>;
  expect(parsed).toMatchObject({ name: 'Founder dashboard', short_name: 'Dashboard', display: 'standalone', start_url: '/', scope: '/' });
  expect(parsed.theme_color).toMatch(/^#[0-9a-f]{6}$/);
  expect(parsed.background_color).toMatch(/^#[0-9a-f]{6}$/);
  expect(parsed.icons).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ sizes: '192x192', type: 'image/png', purpose: 'any' }),
      expect.objectContaining({ sizes: '512x512', type: 'image/png', purpose: 'any' }),
      expect.objectContaining({ sizes: '512x512', type: 'image/png', purpose: 'maskable' }),
    ]),
  );
  await cdp.detach();
}

/** Public: a file of the build or of static/ (served to anyone, signed in or not), never a page or an API answer. */
const isPublicFile = (path: string) => /^\/_app\/immutable\/.+\.(js|css)$/.test(path) || /^\/(favicon\.svg|manifest\.webmanifest|offline\.(html|css|js)|icons\/[\w-]+\.png)$/.test(path);

describe('the installable app on a local dashboard', () => {
  let dashboard: RunningDashboard;
  let context: BrowserContext;
  let version: string;
  beforeAll(async () => {
    dashboard = await startDashboard();
    version = await versionOf(dashboard);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  });
  afterAll(async () => {
    await context?.close();
    await dashboard?.stop();
  });

  it("installs the worker, which precaches this version's public files and nothing else", async () => {
    const page = await context.newPage();
    await gotoHydrated(page, `${dashboard.url}/`);
    expect(await controlled(page)).toBe(`${dashboard.url}/service-worker.js`);
    const contents = await cacheContents(page);
    expect(Object.keys(contents)).toEqual([`dashboard-${version}`]);
    const files = contents[`dashboard-${version}`] ?? [];
    for (const path of ['/offline.html', '/offline.css', '/offline.js', '/manifest.webmanifest', '/icons/icon-192.png', '/icons/icon-512.png', '/icons/icon-maskable-512.png']) {
      expect(files).toContain(path);
    }
    expect(files.filter((path) => path.startsWith('/_app/immutable/entry/')).length).toBeGreaterThanOrEqual(2);
    expect(files.filter((path) => !isPublicFile(path))).toEqual([]);
    // The API reference's 4.8 MB bundle is left to /api/docs, which needs the network anyway.
    expect(files.some((path) => path.includes('standalone'))).toBe(false);

    // Browsing pages and the API puts nothing more in any cache.
    await page.goto(`${dashboard.url}/settings`);
    await page.evaluate(() => fetch('/api/settings').then((response) => response.text()));
    expect(await cacheContents(page)).toEqual(contents);
    await page.close();
  });

  it("passes Chromium's installability check: the manifest, its icons and the worker", async () => {
    // A profile of its own: Chromium offers no install in an incognito context, which every newContext is.
    const profile = await launchProfileChromium();
    try {
      const page = await profile.newPage();
      await gotoHydrated(page, `${dashboard.url}/`);
      await controlled(page);
      await expectInstallable(page, dashboard.url);
    } finally {
      await profile.close();
    }
  });

  it('serves the manifest and the worker behind the same guards as every file, each under its own policy', async () => {
    const manifest = await raw(`${dashboard.url}/manifest.webmanifest`);
    expect(manifest.status).toBe(200);
    expect(manifest.headers['content-type']).toBe('application/manifest+json');
    const worker = await raw(`${dashboard.url}/service-worker.js`);
    expect(worker.status).toBe(200);
    expect(worker.headers['content-type']).toMatch(/^text\/javascript/);
    expect(worker.headers['content-security-policy']).toBe("default-src 'none'; connect-src 'self'; img-src 'self'");
    // Always asked again: a new version's worker is seen on the next visit.
    expect(worker.headers['cache-control']).toBe('no-store');
    const offline = await raw(`${dashboard.url}/offline.html`);
    expect(offline.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self';/);
    for (const path of ['/manifest.webmanifest', '/service-worker.js', '/offline.html', '/icons/icon-512.png']) {
      expect((await raw(`${dashboard.url}${path}`, { headers: { host: 'rebound.example' } })).status).toBe(403);
    }
  });

  it('shows the offline page, with when data was last seen, on a reload without network, and the page again once online', async () => {
    const page = await context.newPage();
    await gotoHydrated(page, `${dashboard.url}/settings/projects`);
    await controlled(page);
    const seen = await page.evaluate(() => localStorage.getItem('dashboard:last-seen'));
    expect(seen).not.toBeNull();

    await context.setOffline(true);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'The dashboard cannot be reached' }).count(), WHILE).toBe(1);
    expect(page.url()).toBe(`${dashboard.url}/settings/projects`);
    const line = page.locator('#last-seen');
    await expect.poll(() => line.textContent(), WHILE).toMatch(/^Data last seen .+ \(.+\)\.$/);
    expect(await line.locator('time').getAttribute('datetime')).toBe(new Date(seen ?? '').toISOString());

    // Back online: the page sees the dashboard answer again and turns back into it.
    const back = page.waitForResponse((response) => response.url().includes('notifications.stream'), { timeout: 20_000 });
    await context.setOffline(false);
    await back;
    await expect.poll(() => page.getByRole('heading', { name: 'The dashboard cannot be reached' }).count()).toBe(0);
    await page.close();
  });

  it('fits the offline page on a 320 px phone, light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await browser.newContext({ viewport: { width: 320, height: 640 }, colorScheme, isMobile: true, hasTouch: true });
      const page = await phone.newPage();
      await gotoHydrated(page, `${dashboard.url}/`);
      await controlled(page);
      await phone.setOffline(true);
      await page.reload();
      await expect.poll(() => page.getByRole('heading', { name: 'The dashboard cannot be reached' }).count(), WHILE).toBe(1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
      const background = await page.evaluate(() => getComputedStyle(document.querySelector('main') as Element).backgroundColor);
      expect(background).toBe(colorScheme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(22, 22, 26)');
      const retry = await page.getByRole('link', { name: 'Try again' }).boundingBox();
      expect(retry?.height).toBeGreaterThanOrEqual(40);
      await page.screenshot({ path: `${screenshotDir}offline-320-${colorScheme}.png`, fullPage: true });
      await phone.close();
    }
  });

  it("drops an old version's cache when the worker of this version takes over", async () => {
    const fresh = await browser.newContext();
    const page = await fresh.newPage();
    // A static page registers no worker: the old version's cache is put there first.
    await page.goto(`${dashboard.url}/offline.html`);
    await page.evaluate(async () => {
      const old = await caches.open('dashboard-1700000000000');
      await old.put('/_app/immutable/entry/app.old.js', new Response('// the old version'));
    });
    await gotoHydrated(page, `${dashboard.url}/`);
    await controlled(page);
    await expect.poll(() => cacheNames(page), WHILE).toEqual([`dashboard-${version}`]);
    await fresh.close();
  });
});

describe('the installable app when the server is gone', () => {
  it('shows the offline page when the dashboard does not answer at all', async () => {
    const dashboard = await startDashboard();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await gotoHydrated(page, `${dashboard.url}/`);
      await controlled(page);
      await dashboard.stop();
      await page.goto(`${dashboard.url}/briefing`);
      await expect.poll(() => page.getByRole('heading', { name: 'The dashboard cannot be reached' }).count(), WHILE).toBe(1);
      await expect.poll(() => page.locator('#last-seen').textContent(), WHILE).toMatch(/^Data last seen /);
    } finally {
      await context.close();
      await dashboard.stop();
    }
  });
});

describe('signing out', () => {
  let dashboard: RunningDashboard;
  let version: string;
  beforeAll(async () => {
    dashboard = await startDashboard();
    version = await versionOf(dashboard);
    const form = { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' };
    const set = await dashboard.fetch('/settings/security?/password', { method: 'POST', headers: form, body: new URLSearchParams({ newPassword: PASSWORD, confirm: PASSWORD }) });
    expect(set.status).toBe(200);
  });
  afterAll(() => dashboard?.stop());

  async function signIn(page: Page) {
    await page.goto(`${dashboard.url}/login`);
    await page.getByLabel('Password').fill(PASSWORD);
    const hydrated = page.waitForResponse((response) => response.url().includes('notifications.stream'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await hydrated;
  }

  /** A cache of signed-in answers as an older version, or any later change, might have left one. */
  const leaveSignedInCache = (page: Page) =>
    page.evaluate(async () => {
      const cache = await caches.open('dashboard-runtime');
      await cache.put('/api/settings', new Response('{"alertEmail":"founder@example.com"}', { headers: { 'content-type': 'application/json' } }));
      await cache.put('/settings', new Response('<h1>Settings</h1>', { headers: { 'content-type': 'text/html' } }));
    });

  const lastSeen = (page: Page) => page.evaluate(() => localStorage.getItem('dashboard:last-seen')).catch(navigating);

  it('with "Sign out" leaves only the public cache and forgets when data was last seen', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await signIn(page);
      await controlled(page);
      await leaveSignedInCache(page);
      expect(await lastSeen(page)).not.toBeNull();

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${dashboard.url}/login`);
      await expect.poll(() => cacheNames(page), WHILE).toEqual([`dashboard-${version}`]);
      expect((await cacheContents(page))[`dashboard-${version}`]?.filter((path) => !isPublicFile(path))).toEqual([]);
      expect(await lastSeen(page)).toBeNull();

      // Offline now, the offline page still comes, and says nothing of the session that ended.
      await context.setOffline(true);
      await page.goto(`${dashboard.url}/`);
      await expect.poll(() => page.getByRole('heading', { name: 'The dashboard cannot be reached' }).count(), WHILE).toBe(1);
      expect(await page.locator('#last-seen').textContent()).toBe('No data from the dashboard has been seen on this device since the last sign-in.');
    } finally {
      await context.close();
    }
  });

  it('with "Sign out everywhere" does the same', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await signIn(page);
      await controlled(page);
      // Hydrated, or the button has no handler yet.
      await gotoHydrated(page, `${dashboard.url}/settings#security`);
      await leaveSignedInCache(page);
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      // The page goes to sign in, or the live stream's end takes it there first (with ?next=).
      await page.waitForURL((url) => url.pathname === '/login');
      await expect.poll(() => cacheNames(page), WHILE).toEqual([`dashboard-${version}`]);
      await expect.poll(() => lastSeen(page), WHILE).toBeNull();
    } finally {
      await context.close();
    }
  });
});

describe('the installable app behind https', () => {
  const HOSTNAME = 'dash.example.test';
  let dir: string;
  let proxy: TlsServer;
  let dashboard: RunningDashboard;
  let origin: string;
  beforeAll(async () => {
    // A self-signed certificate for the public name, and a TLS-terminating proxy in front of the dashboard (as Caddy or
    // nginx in the README): bytes through, the Host as the browser sent it.
    dir = mkdtempSync(join(tmpdir(), 'dash-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${HOSTNAME}`, '-addext', `subjectAltName=DNS:${HOSTNAME}`, '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    let upstream = 0;
    proxy = createTlsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (socket) => {
      const toDashboard = connect(upstream, '127.0.0.1');
      socket.pipe(toDashboard).pipe(socket);
      const close = () => (socket.destroy(), toDashboard.destroy());
      socket.on('error', close);
      toDashboard.on('error', close);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    origin = `https://${HOSTNAME}:${(proxy.address() as AddressInfo).port}`;
    writeFileSync(join(dir, 'password'), `${PASSWORD}\n`, { mode: 0o600 });
    dashboard = await startDashboard({ env: { HOST: '127.0.0.1', ORIGIN: origin, DASHBOARD_PASSWORD_FILE: join(dir, 'password') } });
    upstream = dashboard.port;
  });
  afterAll(async () => {
    await dashboard?.stop();
    await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("installs the worker and passes Chromium's installability check at the https origin", async () => {
    // The name resolves to the proxy on loopback, and the test's certificate is trusted by its key, as a user's CA would
    // make it: no certificate error, which Chromium would count against a secure origin ("not-from-secure-origin").
    const spki = createHash('sha256').update(new X509Certificate(readFileSync(join(dir, 'cert.pem'))).publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
    const profile = await launchProfileChromium({}, [`--host-resolver-rules=MAP ${HOSTNAME} 127.0.0.1`, `--ignore-certificate-errors-spki-list=${spki}`]);
    try {
      const page = await profile.newPage();
      await page.goto(`${origin}/login`);
      expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
      expect(await controlled(page)).toBe(`${origin}/service-worker.js`);
      await expectInstallable(page, origin);
    } finally {
      await profile.close();
    }
  });
});
