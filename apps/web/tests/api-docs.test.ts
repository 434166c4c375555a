// GET /api/openapi.json and the /api/docs reference over the production build: the access rules of /api, the
// reference rendered by Scalar from this origin under the pages' CSP, and the link to it from Settings → Security.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, screenshotDir } from './browser.ts';
import { cookieOf, raw } from './http.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

const PASSWORD = 'correct horse battery staple';
const BACKUP_SECRET = 'backup-secret-that-must-not-leak-0123456789';

let dashboard: RunningDashboard;
let browser: Browser;
let cookie: string;

beforeAll(async () => {
  [dashboard, browser] = await Promise.all([startDashboard({ env: { BACKUP_SECRET } }), launchChromium()]);
  const set = await dashboard.fetch('/settings?/password', {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ newPassword: PASSWORD, confirm: PASSWORD }),
  });
  expect(set.status).toBe(200);
  const login = await raw(`${dashboard.url}/login`, {
    method: 'POST',
    headers: { origin: dashboard.url, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password: PASSWORD }).toString(),
  });
  cookie = cookieOf(login);
});
afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

describe('the OpenAPI document and the reference', () => {
  it('are behind the sign-in like the rest of /api; a read token opens the document, which holds no secret', async () => {
    for (const path of ['/api/openapi.json', '/api/docs']) expect([path, (await raw(dashboard.url + path)).status]).toEqual([path, 401]);
    const made = await raw(`${dashboard.url}/api/tokens`, {
      method: 'POST',
      headers: { cookie, origin: dashboard.url, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'docs reader', scope: 'read', password: PASSWORD }),
    });
    const { token } = JSON.parse(made.body) as { token: string };
    const answer = await raw(`${dashboard.url}/api/openapi.json`, { headers: { authorization: `Bearer ${token}` } });
    expect([answer.status, answer.headers['content-type']]).toEqual([200, 'application/json']);
    const document = JSON.parse(answer.body) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/revenue', '/api/projects/{slug}', '/api/webhooks/{integration}']));
    for (const secret of [BACKUP_SECRET, PASSWORD, token, cookie.split('=')[1] ?? cookie]) expect(answer.body).not.toContain(secret);
  });

  it('renders from this origin alone, with no CSP violation, and Settings → Security links to it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const violations: string[] = [];
    const elsewhere: string[] = [];
    try {
      await context.addCookies([{ name: 'dash_session', value: cookie.split('=')[1] ?? '', url: dashboard.url }]);
      await context.exposeBinding('reportCspViolation', (_source, text: string) => void violations.push(text));
      await context.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          const report = (window as unknown as { reportCspViolation: (text: string) => void }).reportCspViolation;
          report(`${event.violatedDirective} blocked ${event.blockedURI || 'inline'} at ${event.sourceFile}:${event.lineNumber}`);
        });
      });
      const page = await context.newPage();
      page.on('request', (request) => {
        if (!request.url().startsWith(dashboard.url) && !request.url().startsWith('data:')) elsewhere.push(request.url());
      });
      page.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) violations.push(message.text());
      });

      await page.goto(`${dashboard.url}/settings#security`);
      await page.getByRole('link', { name: 'API reference' }).click();
      await page.waitForURL(`${dashboard.url}/api/docs`);
      // The document's title, then a route found from the sidebar: its summary, as Scalar renders it from the document.
      await expect.poll(() => page.getByRole('heading', { name: 'Founder dashboard API' }).isVisible(), { timeout: 30_000 }).toBe(true);
      await page.getByRole('button', { name: 'data', exact: true }).or(page.getByText('data', { exact: true })).first().click();
      await expect.poll(() => page.getByText('Revenue: gross, MRR, net, subscribers and a daily chart').first().isVisible(), { timeout: 10_000 }).toBe(true);
      await page.screenshot({ path: `${screenshotDir}api-docs.png` });

      expect(violations).toEqual([]);
      expect(elsewhere).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
