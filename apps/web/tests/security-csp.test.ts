// The Content Security Policy on every page of the dashboard, in a real Chromium: a nonce for scripts, no violation
// anywhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Response } from 'playwright-core';
import { gotoHydrated, launchChromium } from './browser.ts';
import { PASSWORD } from './security-testing.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

/** The run's shared whole Chromium (the file needs no flags of its own). */
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium({ whole: true });
});
afterAll(async () => {
  await browser?.close();
});

describe('the Content Security Policy on every page', () => {
  let dashboard: RunningDashboard;
  beforeAll(async () => {
    dashboard = await startDashboard();
  });
  afterAll(async () => {
    await dashboard?.stop();
  });

  const setSlots = async (slots: Record<string, string>) => {
    const response = await dashboard.fetch('/api/settings', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widgetLayout: { slots } }),
    });
    expect(response.status).toBe(200);
  };

  /** script-src of a page's CSP: a nonce, no 'unsafe-inline'. */
  const expectNonceOnly = (response: Response | null, what: string) => {
    const policy = response?.headers()['content-security-policy'] ?? '';
    const scriptSrc = policy.split(';').map((directive) => directive.trim()).find((directive) => directive.startsWith('script-src '));
    expect(scriptSrc, what).toMatch(/'nonce-[A-Za-z0-9+/=_-]+'/);
    expect(scriptSrc, what).not.toContain('unsafe-inline');
    expect(policy, what).toContain("frame-ancestors 'none'");
  };

  it('reports no violation through the demo, every project, every widget, settings, the theme and the sign-in page', async () => {
    const violations: string[] = [];
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    try {
      await context.exposeBinding('reportCspViolation', (_source, text: string) => void violations.push(text));
      await context.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          const report = (window as unknown as { reportCspViolation: (text: string) => void }).reportCspViolation;
          report(`${event.violatedDirective} blocked ${event.blockedURI || 'inline'} at ${event.sourceFile}:${event.lineNumber} on ${location.href}`);
        });
      });
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) violations.push(`console ${message.type()}: ${message.text()}`);
      });
      const widgets = page.locator('[data-widget]');
      const loaded = async () => {
        // The six slots, then the row of every other configured widget.
        await expect.poll(() => widgets.count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(6);
        await expect.poll(() => page.locator('[data-widget][aria-busy="true"]').count(), { timeout: 30_000 }).toBe(0);
      };
      const shown = new Set<string>();
      const visit = async (path: string) => {
        const response = await page.goto(`${dashboard.url}${path}`);
        expectNonceOnly(response, path);
        await loaded();
        for (const name of await widgets.evaluateAll((sections) => sections.map((section) => section.getAttribute('data-widget') ?? ''))) shown.add(name);
      };

      expectNonceOnly(await gotoHydrated(page, `${dashboard.url}/`), '/');
      await page.getByRole('button', { name: 'Try it with demo data' }).click();
      await expect.poll(() => page.getByRole('region', { name: 'Demo data' }).isVisible(), { timeout: 20_000 }).toBe(true);
      await loaded();
      await expect.poll(() => page.locator('[data-widget="revenue"] [data-figure="mrr"]').innerText(), { timeout: 30_000 }).toMatch(/^\$/);
      const slugs = await page.locator('nav[aria-label="Projects"] [data-tab]').evaluateAll((tabs) => tabs.map((tab) => tab.getAttribute('data-tab') ?? ''));
      expect(slugs).toEqual(['pocket-ledger', 'formfox', 'tideline']);

      // The theme: dark, then light, applied by script on the page.
      await page.getByTitle('Dark theme').click();
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      await page.reload();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      await page.getByTitle('Light theme').click();
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');

      await visit('/');
      for (const slug of slugs) await visit(`/?project=${slug}`);
      // The other three widgets, where the demo has their data.
      await setSlots({ analytics: 'storefront', seo: 'health', detail: 'funding' });
      await visit('/?project=formfox');
      await expect.poll(() => page.locator('[data-widget="health"] .summary').innerText(), { timeout: 20_000 }).toBe('1 of 3 monitors down');
      await visit('/?project=tideline');
      await expect.poll(() => page.locator('[data-widget="storefront"] [data-figure="average-rating"]').innerText()).toMatch(/^[1-5]\.\d$/);
      await expect.poll(() => page.locator('[data-widget="funding"] .avatars li').count()).toBeGreaterThan(3);
      await visit('/');
      expect([...shown].sort()).toEqual(['analytics', 'errortracker', 'funding', 'health', 'ideas', 'revenue', 'seo', 'shipping', 'storefront']);

      // Settings, with a connection card open; then a password set there, which signs this browser in.
      expectNonceOnly(await gotoHydrated(page, `${dashboard.url}/settings/connections`), '/settings/connections');
      // Connected cards start open: GitHub's is closed and opened again.
      const github = page.locator('#connections details', { has: page.locator('summary', { hasText: 'github:demo' }) });
      const githubForm = page.getByRole('form', { name: 'Connect GitHub' });
      await expect.poll(() => githubForm.isVisible()).toBe(true);
      await github.locator('summary').click();
      await expect.poll(() => githubForm.isVisible()).toBe(false);
      await github.locator('summary').click();
      await expect.poll(() => githubForm.isVisible()).toBe(true);
      expectNonceOnly(await gotoHydrated(page, `${dashboard.url}/settings/security`), '/settings/security');
      const security = page.locator('#security');
      await security.getByLabel('New password').fill(PASSWORD);
      await security.getByLabel('The same again').fill(PASSWORD);
      await security.getByRole('button', { name: 'Set a password' }).click();
      // Hashing the password is slow on purpose (argon2id), and slower still on a machine busy with the other tests.
      await expect.poll(() => security.getByText('Password set. This dashboard now asks for it.').isVisible(), { timeout: 10_000 }).toBe(true);

      // Signed out (the Sign out button has its own test below).
      await context.clearCookies();
      expectNonceOnly(await page.goto(`${dashboard.url}/login`), '/login');
      await page.getByLabel('Password').fill('not the password at all');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').innerText()).toBe('That password is not right.');

      expect(violations).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
