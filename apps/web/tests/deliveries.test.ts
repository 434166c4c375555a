// Settings → Webhooks as a founder uses it, in Chromium at 320 px against the built dashboard. GitHub's webhooks come to
// the dashboard's own route signed as GitHub signs them: a new pull request (a new notification), the same content
// again under another delivery id (a duplicate), a `ping` (ignored) and a well-signed body that is no pull request
// (invalid). The list shows each outcome in words; the outcome and text filters are the URL's (kept over a reload, the
// back button walks them); a row's detail shows the pretty body in a <pre> that scrolls inside itself; a selected row
// is replayed once even when the first try's answer is lost, and its replay is on top, marked. The bell's "Why?" of the
// pull request leads to its webhooks. With a read-only API token the page lists, and says why it cannot replay.
import { createHmac, randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import * as github from '../../../packages/webhooks/src/github/fixtures.ts';
import { gotoHydrated, screenshotDir, scrollsSideways } from './browser.ts';
import { dashboardForFile } from './fixture.ts';
let readToken: string;

const SECRET = 'github-signing-secret';
const json = { 'content-type': 'application/json' };
const PR_TITLE = /^PR #2 opened: Update the README with new information\.$/;

interface Row {
  id: string;
  outcome: string;
  eventType: string | null;
  deliveryId: string | null;
  notificationId: string | null;
  replayOf: string | null;
  title: string | null;
}

const suite = dashboardForFile({ dashboard: { env: { WEBHOOK_SECRET_GITHUB: SECRET } } });

const listed = async (query = '') => ((await (await suite.dashboard.fetch(`/api/deliveries${query}`)).json()) as { deliveries: Row[] }).deliveries;

/** A GitHub webhook to the dashboard's own route, signed with the secret it is configured with. */
async function sendGithub(event: string, body: string, deliveryId = randomUUID()): Promise<number> {
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const response = await fetch(`${suite.dashboard.url}/api/webhooks/code_host`, {
    method: 'POST',
    headers: { ...json, 'x-github-event': event, 'x-github-delivery': deliveryId, 'x-hub-signature-256': signature },
    body,
  });
  await response.body?.cancel();
  return response.status;
}

/** The delivery ids of the four webhooks, by what they become. */
const ids = { notified: randomUUID(), duplicate: randomUUID(), ignored: randomUUID(), invalid: randomUUID() };

beforeAll(async () => {
  const created = await suite.dashboard.fetch('/api/projects', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ slug: 'web', name: 'Web', integrations: { code_host: { repos: ['codertocat/hello-world'] } } }),
  });
  expect(created.status).toBe(201);
  const token = await suite.dashboard.fetch('/api/tokens', { method: 'POST', headers: json, body: JSON.stringify({ name: 'reader', scope: 'read' }) });
  readToken = ((await token.json()) as { token: string }).token;

  // In order, so the list (newest first) is invalid, ignored, duplicate, new.
  const opened = github.pullRequest('opened');
  expect(await sendGithub('pull_request', opened, ids.notified)).toBe(200);
  expect(await sendGithub('pull_request', opened, ids.duplicate)).toBe(200);
  expect(await sendGithub('ping', github.ping, ids.ignored)).toBe(200);
  // Signed with the right secret, but no pull request GitHub would send.
  expect(await sendGithub('pull_request', `${JSON.stringify({ action: 'opened', number: 'two' }, null, 2)}\n`, ids.invalid)).toBe(400);
  expect((await listed()).map((row) => [row.deliveryId, row.outcome])).toEqual([
    [ids.invalid, 'invalid'],
    [ids.ignored, 'ignored'],
    [ids.duplicate, 'duplicate'],
    [ids.notified, 'notified'],
  ]);
}, 120_000);

/** A phone-sized context (touch, 320 px) and its page, with the API token given as every request's. */
async function phone(token?: string): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await suite.browser.newContext({
    viewport: { width: 320, height: 800 },
    hasTouch: true,
    ...(token ? { extraHTTPHeaders: { authorization: `Bearer ${token}` } } : {}),
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  return { context, page, problems };
}

const rows = (page: Page) => page.getByRole('list', { name: 'Webhooks, newest first' }).locator(':scope > li');
const badges = (page: Page) => rows(page).locator('.badge.outcome').allInnerTexts();
const rowOf = (page: Page, deliveryId: string) => rows(page).filter({ has: page.locator(`[title="Delivery ${deliveryId}"]`) });

describe('Settings → Webhooks', () => {
  it('lists each outcome in words, filters by outcome and text in the URL, opens a pretty body, and replays a row once', async () => {
    const { context, page, problems } = await phone();
    await gotoHydrated(page, `${suite.dashboard.url}/settings/webhooks`);
    expect(await page.getByRole('article', { name: 'Turned away' }).innerText()).toContain('Nothing refused in the last hour.');
    expect(await badges(page)).toEqual(['Invalid', 'Ignored', 'Duplicate', 'New notification']);
    const notified = rowOf(page, ids.notified);
    expect(await notified.locator('.title').innerText()).toMatch(PR_TITLE);
    const meta = (await notified.locator('.meta').innerText()).replace(/\s+/g, ' ');
    expect(meta).toMatch(/^\d\d:\d\d:\d\d \((just now|1 minute ago)\) · GitHub · pr\.opened · web · delivery [0-9a-f]{8}…$/);
    expect(ids.notified.startsWith(meta.slice(-9, -1))).toBe(true);
    expect(await rowOf(page, ids.ignored).locator('.why').innerText()).toMatch(/^Nothing we handle: no notification comes of this "ping" webhook from GitHub/);
    expect(await rowOf(page, ids.invalid).locator('.why').innerText()).toMatch(/^The body did not parse as a GitHub webhook: /);

    // By outcome: the URL says so, a reload keeps it, the back button undoes it.
    await page.getByLabel('Outcome').selectOption({ label: 'Duplicate' });
    await page.waitForURL(`${suite.dashboard.url}/settings/webhooks?outcome=duplicate`);
    await expect.poll(() => badges(page)).toEqual(['Duplicate']);
    await page.reload();
    await expect.poll(() => badges(page)).toEqual(['Duplicate']);
    expect(await page.getByLabel('Outcome').inputValue()).toBe('duplicate');
    await page.goBack();
    await page.waitForURL(`${suite.dashboard.url}/settings/webhooks`);
    await expect.poll(() => badges(page)).toEqual(['Invalid', 'Ignored', 'Duplicate', 'New notification']);

    // By text (the event type): the same, and a search that matches nothing says so.
    await page.getByRole('searchbox', { name: 'Search' }).fill('ping');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(`${suite.dashboard.url}/settings/webhooks?q=ping`);
    await expect.poll(() => badges(page)).toEqual(['Ignored']);
    await page.reload();
    await expect.poll(() => badges(page)).toEqual(['Ignored']);
    expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('ping');
    await page.getByRole('searchbox', { name: 'Search' }).fill('nothing like this');
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await page.getByText('No webhooks match these filters.').waitFor();
    await page.getByRole('link', { name: 'Show all' }).click();
    await expect.poll(() => badges(page)).toEqual(['Invalid', 'Ignored', 'Duplicate', 'New notification']);

    // The new pull request's detail: its words, its notification, its decision and its body, pretty-printed.
    await notified.getByRole('button', { name: /^Details/ }).click();
    const detail = notified.locator('[data-detail]');
    await detail.locator('pre').waitFor();
    expect(await detail.locator('[data-outcome-words]').innerText()).toMatch(/^New notification\. It became a new notification\./);
    const own = (await listed()).find((row) => row.deliveryId === ids.notified && row.replayOf === null);
    expect(await detail.getByRole('link', { name: 'Open the notification it became' }).getAttribute('href')).toBe(`/?notification=${own?.notificationId}`);
    expect(await detail.getByRole('list', { name: 'How this delivery’s event was decided' }).locator('li').count()).toBeGreaterThan(0);
    const body = detail.getByRole('region', { name: 'Body' });
    expect(await body.innerText()).toContain('\n  "action": "opened",\n  "number": 2,');
    // The body scrolls inside itself; the page never sideways.
    expect(await body.evaluate((pre) => getComputedStyle(pre).overflowX)).toBe('auto');
    expect(await body.evaluate((pre) => pre.scrollWidth > pre.clientWidth)).toBe(true);
    expect(await scrollsSideways(page)).toBe(false);
    await page.screenshot({ path: `${screenshotDir}webhooks-320.png`, fullPage: true });

    // Replay it; the first try's answer is lost on the way: the second sends the same request, replayed once.
    const sent: string[] = [];
    let dropped = false;
    await page.route('**/api/trpc/deliveries.replay**', async (route) => {
      sent.push(route.request().postData() ?? '');
      if (dropped) return route.continue();
      dropped = true;
      return route.abort('failed');
    });
    await notified.getByRole('checkbox').check();
    const replay = page.getByRole('button', { name: 'Replay 1 selected' });
    await replay.click();
    await page.getByRole('alert').filter({ hasText: 'The replay failed' }).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: 'The replay failed' }).innerText()).toContain('Trying again sends the same request');
    await replay.click();
    await page.getByText('Replayed 1: the new row is at the top.').waitFor({ timeout: 15_000 });
    const requestIds = sent.map((text) => /"requestId":"([\w-]+)"/.exec(text)?.[1]);
    expect(requestIds).toHaveLength(2);
    expect(requestIds[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIds[1]).toBe(requestIds[0]);
    const top = rows(page).first();
    expect(await top.locator('.badge.replay').innerText()).toBe('Replayed');
    expect(await top.locator('.title').innerText()).toMatch(PR_TITLE);
    const after = await listed();
    expect(after.filter((row) => row.replayOf === own?.id)).toHaveLength(1);
    expect(after[0]?.replayOf).toBe(own?.id);

    // Its detail says which webhook it replays; its "Why?" trace says it was replayed.
    await top.getByRole('button', { name: /^Details/ }).click();
    await top.getByRole('link', { name: 'The webhook it replays' }).waitFor();
    expect(await top.locator('li[data-stage="replay"]').innerText()).toMatch(/^Replayed: /);

    // Dark, every control still on the screen.
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    expect(await scrollsSideways(page)).toBe(false);
    await page.screenshot({ path: `${screenshotDir}webhooks-320-dark.png`, fullPage: true });

    // The link to the row it replays: that row alone, opened, naming its replay.
    await top.getByRole('link', { name: 'The webhook it replays' }).click();
    await page.waitForURL(`${suite.dashboard.url}/settings/webhooks?delivery=${own?.id}`);
    await page.getByText('One delivery · show all').waitFor();
    expect(await rows(page).count()).toBe(1);
    const replays = rows(page).locator('[data-detail]').getByRole('list', { name: 'Replays of it' });
    expect(await replays.locator('li').allInnerTexts()).toEqual([expect.stringMatching(/^\d\d:\d\d:\d\d: New notification$/)]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('leads from the bell’s "Why?" of a notification to its webhooks, for that notification alone', async () => {
    const { context, page, problems } = await phone();
    await page.emulateMedia({ colorScheme: 'dark' });
    await gotoHydrated(page, `${suite.dashboard.url}/settings/relay`);
    await page.locator('.bell > button').click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    // The notification the first webhook became (its replay, under the same delivery id, made one of its own).
    const notificationId = (await listed()).find((row) => row.deliveryId === ids.notified && row.replayOf === null)?.notificationId ?? '';
    const item = panel.locator(`li[data-notification="${notificationId}"]`);
    await item.waitFor({ timeout: 10_000 });
    await item.getByText('Why?').click();
    await item.getByRole('link', { name: /^See the webhooks behind it/ }).click();
    await page.waitForURL(`${suite.dashboard.url}/settings/webhooks?notification=${notificationId}`);
    await page.getByText('For one notification · show all').waitFor();
    // The panel closed to show the page; the list is that notification's webhooks only.
    expect(await panel.count()).toBe(0);
    const theirs = await listed(`?notification=${notificationId}`);
    // The webhook it came of, and the copy of it (a duplicate names the notification its first copy became).
    expect(theirs.map((row) => row.deliveryId)).toEqual(expect.arrayContaining([ids.notified, ids.duplicate]));
    const mine = theirs.map((row) => row.id);
    await expect.poll(() => rows(page).evaluateAll((items) => items.map((li) => li.getAttribute('data-delivery')))).toEqual(mine);
    expect(await scrollsSideways(page)).toBe(false);
    await page.getByRole('link', { name: 'show all' }).click();
    await page.waitForURL(`${suite.dashboard.url}/settings/webhooks`);
    await expect.poll(() => rows(page).count()).toBe((await listed()).length);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists for a read-only API token without bodies or replay, and says why', async () => {
    const { context, page, problems } = await phone(readToken);
    await gotoHydrated(page, `${suite.dashboard.url}/settings/webhooks?outcome=invalid`);
    await expect.poll(() => badges(page)).toEqual(['Invalid']);
    expect(await page.locator('[data-token-note]').innerText()).toMatch(/^Replaying is for the owner from a signed-in browser/);
    expect(await page.getByRole('button', { name: /^Replay/ }).count()).toBe(0);
    expect(await page.getByRole('checkbox').count()).toBe(0);
    await rows(page).first().getByRole('button', { name: /^Details/ }).click();
    await page.locator('[data-body-note="owner_only"]').waitFor();
    expect(await page.locator('[data-body-note]').innerText()).toBe('Only the signed-in owner sees bodies: this page is read with an API token.');
    expect(problems).toEqual([]);
    await context.close();
  });
});
