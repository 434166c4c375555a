// Upstream URLs as the pages render them, in Chromium against the built dashboard: a link only for http(s). A
// `javascript:` URL an upstream sends (the sandbox's GitHub listing a merged pull request with one, which GitHub's
// schema does not forbid) shows as its title, in no href, on the dashboard and in the briefing.
import type { Page } from 'playwright-core';
import { sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated } from './browser.ts';
import { dashboardForFile } from './fixture.ts';

let sandbox: Sandbox;

/** A merged pull request as `GET /repos/{owner}/{repo}/pulls` lists it. */
const pull = (number: number, title: string, htmlUrl: string) => {
  const at = new Date(Date.now() - number * 3_600_000).toISOString();
  return { number, title, html_url: htmlUrl, state: 'closed', updated_at: at, merged_at: at, user: { login: 'ada', id: 1 } };
};

const suite = dashboardForFile();
beforeAll(async () => {
  sandbox = await startSandbox();
  const post = (path: string, body: unknown) => suite.dashboard.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect((await post('/api/credentials', { key: 'github', values: { token: sandboxTokens.github, baseUrl: sandbox.services.github.baseUrl } })).status).toBe(200);
  expect((await post('/api/projects', { slug: 'formfox', name: 'Formfox', integrations: { code_host: { repos: ['formfox/web'] } } })).status).toBe(201);
  // Every answer of the fake GitHub from now on: one page of pulls (the shipping section's only request).
  sandbox.inject('github', {
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: [pull(1, 'Evil link', 'javascript:alert(document.domain)'), pull(2, 'Odd link', 'data:text/html,<script>alert(1)</script>'), pull(3, 'Good link', 'https://github.com/formfox/web/pull/3')],
  });
});
afterAll(() => sandbox?.close());

async function expectSafeLinks(page: Page) {
  await page.getByText('Evil link').first().waitFor({ timeout: 30_000 });
  expect(await page.getByRole('link', { name: 'Good link' }).first().getAttribute('href')).toBe('https://github.com/formfox/web/pull/3');
  expect(await page.getByRole('link', { name: 'Evil link' }).count()).toBe(0);
  expect(await page.getByRole('link', { name: 'Odd link' }).count()).toBe(0);
  expect(await page.locator('a[href^="javascript:" i], a[href^="data:" i]').count()).toBe(0);
}

describe('links to upstream items', () => {
  it('are links only for http(s): a javascript: or data: URL from an upstream shows as plain text, on the dashboard and in the briefing', async () => {
    const page = await suite.browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await gotoHydrated(page, `${suite.dashboard.url}/?project=formfox`);
    await expectSafeLinks(page);
    await gotoHydrated(page, `${suite.dashboard.url}/briefing`);
    await expectSafeLinks(page);
    await page.close();
  });
});
