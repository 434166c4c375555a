// GET /api/openapi.json and the /api/docs reference over the production build: the access rules of /api, the
// reference rendered by Scalar from this origin under the pages' CSP, and the link to it from Settings → Security.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { invalidRequests, validRequests } from '@dash/api/testing';
import { screenshotDir } from './browser.ts';
import { dashboardForFile } from './fixture.ts';
import { cookieOf, raw } from './http.ts';

const PASSWORD = 'correct horse battery staple';
const BACKUP_SECRET = 'backup-secret-that-must-not-leak-0123456789';
let cookie: string;
/** A read token, made as its owner makes one. */
let readToken: string;

const suite = dashboardForFile({ dashboard: { env: { BACKUP_SECRET } } });
beforeAll(async () => {
  const set = await suite.dashboard.fetch('/settings/security?/password', {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ newPassword: PASSWORD, confirm: PASSWORD }),
  });
  expect(set.status).toBe(200);
  const login = await raw(`${suite.dashboard.url}/login`, {
    method: 'POST',
    headers: { origin: suite.dashboard.url, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password: PASSWORD }).toString(),
  });
  cookie = cookieOf(login);
  const made = await raw(`${suite.dashboard.url}/api/tokens`, {
    method: 'POST',
    headers: { cookie, origin: suite.dashboard.url, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'docs reader', scope: 'read', password: PASSWORD }),
  });
  readToken = (JSON.parse(made.body) as { token: string }).token;
});

describe('the OpenAPI document and the reference', () => {
  it('are behind the sign-in like the rest of /api; a read token opens the document, which holds no secret', async () => {
    for (const path of ['/api/openapi.json', '/api/docs']) expect([path, (await raw(suite.dashboard.url + path)).status]).toEqual([path, 401]);
    const answer = await raw(`${suite.dashboard.url}/api/openapi.json`, { headers: { authorization: `Bearer ${readToken}` } });
    expect([answer.status, answer.headers['content-type']]).toEqual([200, 'application/json']);
    const document = JSON.parse(answer.body) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/revenue', '/api/projects/{slug}', '/api/webhooks/{integration}']));
    for (const secret of [BACKUP_SECRET, PASSWORD, readToken, cookie.split('=')[1] ?? cookie]) expect(answer.body).not.toContain(secret);
  });

  it('renders from this origin alone, with no CSP violation, is linked from Settings → Security, and tries a route with a token', async () => {
    const context = await suite.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const violations: string[] = [];
    const elsewhere: string[] = [];
    try {
      await context.addCookies([{ name: 'dash_session', value: cookie.split('=')[1] ?? '', url: suite.dashboard.url }]);
      await context.exposeBinding('reportCspViolation', (_source, text: string) => void violations.push(text));
      await context.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          const report = (window as unknown as { reportCspViolation: (text: string) => void }).reportCspViolation;
          report(`${event.violatedDirective} blocked ${event.blockedURI || 'inline'} at ${event.sourceFile}:${event.lineNumber}`);
        });
      });
      const page = await context.newPage();
      page.on('request', (request) => {
        if (!request.url().startsWith(suite.dashboard.url) && !request.url().startsWith('data:')) elsewhere.push(request.url());
      });
      page.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) violations.push(message.text());
      });

      await page.goto(`${suite.dashboard.url}/settings#security`);
      await page.getByRole('link', { name: 'API reference' }).click();
      await page.waitForURL(`${suite.dashboard.url}/api/docs`);
      // The document's title, then a route found from the sidebar: its summary, as Scalar renders it from the document.
      await expect.poll(() => page.getByRole('heading', { name: 'Founder dashboard API' }).isVisible(), { timeout: 30_000 }).toBe(true);
      await page.getByRole('button', { name: 'data', exact: true }).or(page.getByText('data', { exact: true })).first().click();
      await expect.poll(() => page.getByText('Revenue: gross, MRR, net, subscribers and a daily chart').first().isVisible(), { timeout: 10_000 }).toBe(true);
      await page.screenshot({ path: `${screenshotDir}api-docs.png` });

      // "Try it": the route's test request, signed with the read token typed in, answered by this dashboard.
      await page.getByRole('button', { name: /Test Request \(get \/api\/settings\)/ }).click();
      await page.getByPlaceholder('Token').fill(readToken);
      const answered = page.waitForResponse((response) => response.url() === `${suite.dashboard.url}/api/settings` && response.request().headers().authorization === `Bearer ${readToken}`);
      await page.getByRole('button', { name: /^Send/ }).first().click();
      expect((await answered).status()).toBe(200);
      await expect.poll(() => page.getByText('200 OK').first().isVisible(), { timeout: 10_000 }).toBe(true);

      expect(violations).toEqual([]);
      expect(elsewhere).toEqual([]);
    } finally {
      await context.close();
    }
  });

  /**
   * The /api routes outside the table are not reachable in-process: requests written from the served document go to
   * them over the socket (`raw` holds each answer to its operation). The event stream is left out: it never ends.
   */
  it('answers requests written from the document to the routes outside the table with what it lists, never a 5xx', async () => {
    const document = JSON.parse((await raw(`${suite.dashboard.url}/api/openapi.json`, { headers: { cookie } })).body) as Record<string, unknown>;
    const operations: [string, string][] = [
      ['POST', '/api/webhooks/{integration}'],
      ['GET', '/api/auth/{provider}/redirect'],
      ['GET', '/api/auth/{provider}/callback'],
      ['GET', '/api/openapi.json'],
    ];
    for (const [method, template] of operations) {
      for (const requests of [validRequests, invalidRequests]) {
        await fc.assert(
          fc.asyncProperty(requests(document, method, template), async (request) => {
            const headers: Record<string, string> = { cookie, origin: suite.dashboard.url, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) };
            const answer = await raw(suite.dashboard.url + request.path, { method, headers, ...(request.body === undefined ? {} : { body: request.body }) });
            expect(answer.status, `${method} ${request.path} → ${answer.body}`).toBeLessThan(500);
          }),
          { numRuns: 10 },
        );
      }
    }
  });
});

