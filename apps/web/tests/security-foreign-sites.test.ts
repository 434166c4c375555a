// Pages of another origin against the dashboard, in a real Chromium: a foreign name that resolves to this machine
// (DNS rebinding), and another site on this machine (127.0.0.1, another port) while the owner is signed in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, screenshotDir } from './browser.ts';
import { PASSWORD, setPassword } from './security-testing.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

/** A name the browser resolves to this machine, as a rebinding attacker's DNS would. */
const REBIND_HOST = 'rebind.test';

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium({ extraArgs: [`--host-resolver-rules=MAP ${REBIND_HOST} 127.0.0.1`] });
});
afterAll(async () => {
  await browser?.close();
});

async function signIn(page: Page, url: string, password: string) {
  await page.goto(`${url}/login`);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${url}/`);
}

/** Whether `password` opens the dashboard (a sign-in as its login form posts it; the throttle forgives a success). */
async function passwordWorks(dashboard: RunningDashboard, password: string): Promise<boolean> {
  const response = await dashboard.fetch('/login', {
    method: 'POST',
    body: new URLSearchParams({ password }),
    headers: { accept: 'text/html' },
    redirect: 'manual',
  });
  return response.status === 303 && (response.headers.get('set-cookie') ?? '').startsWith('dash_session=');
}

interface Site {
  origin: string;
  close(): Promise<void>;
}

/** Another site on this machine: 127.0.0.1 on another port (same site, another origin), serving the given pages. */
async function startAttacker(pages: Record<string, string>): Promise<Site> {
  const server = createServer((request, response) => {
    const html = pages[request.url ?? '/'];
    response.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' }).end(html ?? 'Not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Exchange {
  method?: string;
  url?: string;
  /** The Cookie header as sent. */
  cookie?: string;
  /** The status as received, also for a response the page itself may not read (no-cors, blocked by CORP). */
  status?: number;
}

/** Every request of `page` with the headers Chromium really sent and the status it got, from the DevTools protocol. */
async function watchNetwork(page: Page): Promise<Map<string, Exchange>> {
  const seen = new Map<string, Exchange>();
  const update = (id: string, change: Exchange) => seen.set(id, { ...seen.get(id), ...change });
  const cdp = await page.context().newCDPSession(page);
  cdp.on('Network.requestWillBeSent', ({ requestId, request }) => update(requestId, { method: request.method, url: request.url }));
  cdp.on('Network.requestWillBeSentExtraInfo', ({ requestId, headers }) => update(requestId, { cookie: headers.Cookie ?? headers.cookie ?? '' }));
  cdp.on('Network.responseReceivedExtraInfo', ({ requestId, statusCode }) => update(requestId, { status: statusCode }));
  await cdp.send('Network.enable');
  return seen;
}

describe('a page under a foreign name that resolves to this machine (DNS rebinding)', () => {
  let dashboard: RunningDashboard;
  beforeAll(async () => {
    dashboard = await startDashboard();
  });
  afterAll(async () => {
    await dashboard?.stop();
  });

  it('gets a 403 naming DASHBOARD_ALLOWED_HOSTS instead of the open dashboard, and so do its API requests', async () => {
    const before = await (await fetch(`${dashboard.url}/api/settings`)).json();
    // In a real attack the first page under this name is the attacker's own, without the dashboard's
    // CSP; bypassCSP stands in for it, so the page's requests really reach the server.
    const context = await browser.newContext({ bypassCSP: true });
    try {
      const page = await context.newPage();
      const origin = `http://${REBIND_HOST}:${dashboard.port}`;
      const response = await page.goto(`${origin}/`);
      expect(response?.status()).toBe(403);
      expect(await page.locator('body').innerText()).toBe(
        `Blocked request: host "${REBIND_HOST}" is not allowed. To serve this name, add it to DASHBOARD_ALLOWED_HOSTS.`,
      );

      // The browser thinks the API is same-origin: without the Host guard it would read and write freely.
      const answers = await page.evaluate(async () => {
        const read = await fetch('/api/settings');
        const write = await fetch('/api/settings', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ widgetLayout: { slots: { detail: 'funding' } } }),
        });
        return [
          { status: read.status, body: (await read.json()) as unknown },
          { status: write.status, body: (await write.json()) as unknown },
        ];
      });
      for (const answer of answers) {
        expect(answer).toEqual({ status: 403, body: { error: { code: 'FORBIDDEN', message: expect.stringContaining('DASHBOARD_ALLOWED_HOSTS') } } });
      }
      expect(await context.cookies(origin)).toEqual([]);
      expect(await (await fetch(`${dashboard.url}/api/settings`)).json()).toEqual(before);

      // The same browser opens the dashboard under its own address.
      expect((await page.goto(`${dashboard.url}/`))?.status()).toBe(200);
    } finally {
      await context.close();
    }
  });
});

describe('another site on this machine (127.0.0.1, another port) while the owner is signed in', () => {
  let dashboard: RunningDashboard;
  let attacker: Site;
  let context: BrowserContext;
  /** What the owner's browser session reads (a 401 here would mean it was signed out). */
  const asOwner = async (path: string) => {
    const response = await context.request.get(`${dashboard.url}${path}`);
    expect(response.status(), path).toBe(200);
    return (await response.json()) as unknown;
  };

  beforeAll(async () => {
    dashboard = await startDashboard();
    const created = await dashboard.fetch('/api/projects', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'alpha', name: 'Alpha' }),
    });
    expect(created.status).toBe(201);
    await setPassword(dashboard, PASSWORD);
    const url = dashboard.url;
    const autoSubmit = (action: string, fields: string, enctype = 'application/x-www-form-urlencoded') =>
      `<!doctype html><form method="POST" action="${url}${action}" enctype="${enctype}">${fields}</form><script>document.forms[0].submit()</script>`;
    attacker = await startAttacker({
      '/fetch': `<!doctype html><title>Win a prize</title><script>
        window.sent = Promise.allSettled([
          fetch(${JSON.stringify(`${url}/api/settings`)}, {
            method: 'POST', mode: 'no-cors', credentials: 'include',
            body: new Blob([JSON.stringify({ projectOrder: [], widgetLayout: { slots: { detail: 'funding' } } })]),
          }),
          fetch(${JSON.stringify(`${url}/api/projects`)}, {
            method: 'POST', mode: 'no-cors', credentials: 'include',
            headers: { 'content-type': 'text/plain' },
            body: JSON.stringify({ slug: 'pwned', name: 'Pwned' }),
          }),
        ]).then(() => 'sent');
      </script>`,
      '/logout': autoSubmit('/logout', '<input name="x" value="1">'),
      '/password': autoSubmit(
        '/settings/security?/password',
        `<input name="currentPassword" value="guess"><input name="newPassword" value="attacker-chosen-pass"><input name="confirm" value="attacker-chosen-pass">`,
      ),
      // The old trick for a JSON body from a form: name and value make `{"slug":"pwned2","name":"Pwned","x":"="}`.
      '/text-plain': autoSubmit('/api/projects', `<input name='{"slug":"pwned2","name":"Pwned","x":"' value='"}'>`, 'text/plain'),
      '/frame': `<!doctype html><title>Click here</title>
        <iframe id="dashboard" src="${url}/" width="800" height="500"></iframe>
        <iframe id="own" src="/inner" width="300" height="100"></iframe>`,
      '/inner': '<!doctype html><p>The attacker’s own frame</p>',
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, url, PASSWORD);
    await page.close();
  });
  afterAll(async () => {
    await context?.close();
    await attacker?.close();
    await dashboard?.stop();
  });

  it('creates an API token in settings → Security and shows it once, to copy', async () => {
    const page = await context.newPage();
    try {
      await page.goto(`${dashboard.url}/settings#security`);
      const security = page.locator('#security');
      await security.getByLabel('Name').fill('security test');
      await security.getByLabel('Scope').selectOption('read');
      // Making a token is the owner's: the password again.
      await security.getByLabel('Your password').fill(PASSWORD);
      await security.getByRole('button', { name: 'Create token' }).click();
      const box = security.getByRole('status').filter({ hasText: 'It is shown only this once.' });
      await expect.poll(() => box.isVisible()).toBe(true);
      const token = await box.getByLabel('The new token').inputValue();
      expect(token.length).toBeGreaterThan(20);
      await expect.poll(() => security.getByRole('list', { name: 'API tokens' }).innerText()).toContain('security test');
      await security.screenshot({ path: `${screenshotDir}settings-security.png` });
      // Shown once: a reload lists the token without its value.
      await page.reload();
      await expect.poll(() => page.locator('#security').getByRole('list', { name: 'API tokens' }).innerText()).toContain('security test');
      expect(await page.content()).not.toContain(token);

      // It reads without a browser, and only reads.
      const bearer = { authorization: `Bearer ${token}` };
      expect((await fetch(`${dashboard.url}/api/settings`, { headers: bearer })).status).toBe(200);
      const write = await fetch(`${dashboard.url}/api/settings`, {
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify({ projectOrder: [] }),
      });
      expect([write.status, await write.json()]).toEqual([403, { error: { code: 'FORBIDDEN', message: expect.stringContaining('read-only') } }]);
    } finally {
      await page.close();
    }
  });

  it('cannot change settings, create a project, sign the owner out or change the password, although the session cookie rides along', async () => {
    const settingsBefore = await asOwner('/api/settings');
    const projectsBefore = await asOwner('/api/projects');
    expect(projectsBefore).toEqual({ projects: [expect.objectContaining({ slug: 'alpha' })] });
    const url = dashboard.url;
    const page = await context.newPage();
    try {
      const network = await watchNetwork(page);
      const toDashboard = () =>
        [...network.values()]
          .filter((exchange) => exchange.method === 'POST' && exchange.url?.startsWith(`${url}/`) && exchange.status !== undefined)
          .map((exchange) => ({ url: exchange.url, status: exchange.status, withSession: (exchange.cookie ?? '').includes('dash_session=') }))
          .sort((a, b) => (a.url ?? '').localeCompare(b.url ?? ''));

      // (1) no-cors fetches: a JSON body without a Content-Type, and JSON as text/plain. The page cannot
      // read the answers (CORP), but the network can.
      await page.goto(`${attacker.origin}/fetch`);
      expect(await page.evaluate(() => (window as unknown as { sent: Promise<string> }).sent)).toBe('sent');
      await expect.poll(() => toDashboard().length).toBe(2);
      // Cookies are per host, not per port: the other site's requests carry the owner's session, but cannot read it.
      expect(await page.evaluate(() => document.cookie)).not.toContain('dash_session');

      // (2) auto-submitted forms: sign out, change the password; (3) a text/plain form to the API.
      for (const [path, target] of [
        ['/logout', `${url}/logout`],
        ['/password', `${url}/settings/security?/password`],
        ['/text-plain', `${url}/api/projects`],
      ] as const) {
        await page.goto(`${attacker.origin}${path}`);
        await page.waitForURL(target);
        expect(JSON.parse(await page.locator('body').innerText()), path).toMatchObject({ error: { code: 'CROSS_SITE' } });
      }
      await expect.poll(() => toDashboard().length).toBe(5);
      expect(toDashboard()).toEqual(
        [`${url}/api/projects`, `${url}/api/projects`, `${url}/api/settings`, `${url}/logout`, `${url}/settings/security?/password`].map((target) => ({
          url: target,
          status: 403,
          withSession: true,
        })),
      );

      // Nothing changed, and the owner is still signed in with the same password.
      expect(await asOwner('/api/settings')).toEqual(settingsBefore);
      expect(await asOwner('/api/projects')).toEqual(projectsBefore);
      await page.goto(`${url}/settings/security`);
      expect(page.url()).toBe(`${url}/settings/security`);
      expect(await passwordWorks(dashboard, PASSWORD)).toBe(true);
      expect(await passwordWorks(dashboard, 'attacker-chosen-pass')).toBe(false);
    } finally {
      await page.close();
    }
  });

  it('cannot show the dashboard in a frame (clickjacking)', async () => {
    const page = await context.newPage();
    try {
      const answer = page.waitForResponse((r) => r.url() === `${dashboard.url}/`);
      await page.goto(`${attacker.origin}/frame`);
      const headers = (await answer).headers();
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");

      // The attacker's own frame renders (frames work here); the dashboard's is Chromium's error page.
      const own = page.frameLocator('#own');
      await expect.poll(() => own.locator('p').innerText()).toBe('The attacker’s own frame');
      const framed = () => page.frame({ name: 'dashboard' });
      await expect.poll(() => framed()?.url()).toBe('chrome-error://chromewebdata/');
      expect(page.frames().some((frame) => frame.url().startsWith(dashboard.url))).toBe(false);
      const text = await framed()?.locator('body').innerText();
      expect(text).not.toContain('Founder dashboard');
      expect(text).not.toContain('Alpha');
    } finally {
      await page.close();
    }
  });
});
