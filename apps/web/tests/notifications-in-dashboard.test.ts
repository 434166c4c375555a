// End to end, the dashboard's own side of webhooks and notifications, with the real relay process (apps/relay's bundle)
// on the real Redis (db 10, this file's own) where a test needs one: its local webhook route (from any origin, one
// notification with the relay's copy, 415 as the relay answers), its live stream (GET /api/notifications/stream, its
// end on SIGTERM), and in a real browser the bell and Settings → Relay. How the poller brings the relay's events in is
// relay-polling.test.ts's.
import { hash } from '@node-rs/argon2';
import type { Notification } from '@dash/contracts';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import * as github from '../../../packages/webhooks/src/github/fixtures.ts';
import * as vercel from '../../../packages/webhooks/src/vercel/fixtures.ts';
import { gotoHydrated, launchChromium, screenshotDir } from './browser.ts';
import {
  createProjects,
  deliver,
  hasTitles,
  inbox,
  mergedPr,
  POLL_SECRET,
  pollNow,
  prTitle,
  received,
  relayStatus,
  relayToDashboard,
  SECRETS,
  signed,
  titles,
  type Delivery,
} from './relay-e2e.ts';
import type { RunningDashboard } from './server.ts';
import { sleep, until } from './waiting.ts';

const { redisProblem, flushRedis, cleanup, startRelay, dashboardFor } = await relayToDashboard(10);

/** `GET /api/notifications/stream` read as an EventSource would: its events one by one. */
async function openStream(dashboard: RunningDashboard, lastEventId?: string) {
  const abort = new AbortController();
  const response = await fetch(`${dashboard.url}/api/notifications/stream`, { headers: lastEventId ? { 'last-event-id': lastEventId } : {}, signal: abort.signal });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const events: { id?: string; event?: string; data?: string; retry?: string }[] = [];
  const pump = (async (): Promise<'ended' | 'cut'> => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'ended';
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
          }
          if (Object.keys(fields).length > 0) events.push(fields);
        }
      }
    } catch {
      // Aborted by close(), or the connection was cut.
      return 'cut';
    }
  })();
  let read = 0;
  return {
    response,
    /** The next event with an `event:` field, waiting at most `ms`. */
    async next(ms = 5_000) {
      const deadline = performance.now() + ms;
      for (;;) {
        const event = events.slice(read).find((e) => e.event !== undefined);
        if (event) {
          read = events.indexOf(event) + 1;
          return { id: event.id, event: event.event, data: JSON.parse(event.data ?? 'null') as { notification?: Notification; unreadCount: number } };
        }
        if (performance.now() > deadline) throw new Error(`No event within ${ms} ms; got ${JSON.stringify(events)}`);
        await sleep(20);
      }
    },
    /** Everything received so far, events and the `retry:` advice. */
    seen: () => events,
    /** Resolves when the server ends the stream (`ended`) or the connection breaks (`cut`). */
    finished: pump,
    async close() {
      abort.abort();
      return pump;
    },
  };
}

describe.skipIf(redisProblem !== undefined && process.env.CI !== 'true')('webhooks from the relay process on Redis to the built dashboard', () => {
  beforeEach(flushRedis);

  it('makes one notification of a delivery that comes both to the local route and through the relay, in either order', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(relay, { WEBHOOK_SECRET_GITHUB: SECRETS.WEBHOOK_SECRET_GITHUB });
    const local = (delivery: Delivery) => deliver(`${dashboard.url}/api/webhooks/${delivery.integration}`, delivery);

    // Straight to the dashboard first, then the same bytes and headers through the relay.
    const seven = mergedPr(7);
    expect(await local(seven)).toEqual(received);
    expect(titles(await inbox(dashboard))).toEqual([prTitle(7)]);
    expect(await relay.send(seven)).toEqual(received);

    // Through the relay first, then straight.
    const eight = mergedPr(8);
    expect(await relay.send(eight)).toEqual(received);
    // The relay serves in order: once 8 is in, so is the relay's copy of 7.
    await until(() => inbox(dashboard), hasTitles(prTitle(8)), 5_000, 'PR 8');
    expect(await local(eight)).toEqual(received);

    await sleep(500);
    expect(await pollNow(dashboard)).toMatchObject({ status: 200, body: { eventCount: 0 } });
    const box = await inbox(dashboard);
    expect(box.notifications.map((n) => [n.title, n.eventCount]).sort()).toEqual([
      [prTitle(7), 1],
      [prTitle(8), 1],
    ]);
    expect(box.unreadCount).toBe(2);
  });

  it('streams new notifications over GET /api/notifications/stream, and replays what a reconnect missed', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(relay);
    const stream = await openStream(dashboard);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.response.headers.get('cache-control')).toBe('no-store');
    await until(() => Promise.resolve(stream.seen().length), (n) => n > 0, 2_000, 'the retry advice');
    expect(stream.seen()[0]).toEqual({ retry: '5000' });
    await sleep(200);

    expect(await relay.send(mergedPr(1))).toEqual(received);
    const first = await stream.next();
    expect(first).toMatchObject({ id: expect.stringMatching(/^\d+$/), event: 'notification', data: { notification: { title: prTitle(1), readAt: null }, unreadCount: 1 } });
    await stream.close();

    // Missed while away.
    expect(await relay.send(mergedPr(2))).toEqual(received);
    await until(() => inbox(dashboard), hasTitles(prTitle(2)), 5_000, 'PR 2');

    const again = await openStream(dashboard, first.id);
    const replayed = await again.next();
    expect(replayed).toMatchObject({ event: 'notification', data: { notification: { title: prTitle(2) }, unreadCount: 2 } });
    expect(Number(replayed.id)).toBeGreaterThan(Number(first.id));
    // And only that: the one it had already seen is not sent again; new ones follow live.
    expect(await relay.send(mergedPr(3))).toEqual(received);
    const live = await again.next();
    expect(live).toMatchObject({ event: 'notification', data: { notification: { title: prTitle(3) }, unreadCount: 3 } });
    expect(Number(live.id)).toBeGreaterThan(Number(replayed.id));
    await again.close();
  });

  it('shows a webhook posted to the relay in the open dashboard’s bell without a reload, and clears the badge on "Mark all read"', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(relay);
    // Closed before the dashboard stops: an open page's live stream would hold its shutdown up.
    const browser = await launchChromium();
    cleanup.push(() => browser.close());
    await createProjects(dashboard);

    const problems: string[] = [];
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
    });
    await gotoHydrated(page, dashboard.url);
    await sleep(300);
    await page.evaluate(() => (document.body.dataset.sameDocument = 'yes'));

    const bell = page.locator('.bell > button');
    expect(await bell.getAttribute('aria-label')).toBe('Notifications');
    await bell.click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    await panel.getByText('No notifications yet.').waitFor();

    expect(await relay.send(signed.vercel(vercel.deployment('deployment.error')))).toEqual(received);
    await page.getByRole('button', { name: 'Notifications, 1 unread' }).waitFor({ timeout: 10_000 });
    await panel.getByRole('listitem').filter({ hasText: 'Deploy failed: my-app (production)' }).waitFor();
    expect(await page.locator('.bell .count').innerText()).toBe('1');

    expect(await relay.send(signed.github(github.pullRequest('closed', true)))).toEqual(received);
    await page.getByRole('button', { name: 'Notifications, 2 unread' }).waitFor({ timeout: 10_000 });
    // The title links to the source.
    const link = panel.getByRole('link', { name: 'PR #2 merged: Update the README with new information.' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('https://github.com/Codertocat/Hello-World/pull/2');
    // Newest first, each with its source and project.
    const items = panel.getByRole('listitem');
    expect(await items.count()).toBe(2);
    expect(await items.nth(0).innerText()).toMatch(/PR #2 merged: Update the README with new information\.[\s\S]*GitHub\s·\sWeb\s·\s/);
    expect(await items.nth(1).innerText()).toMatch(/Deploy failed: my-app \(production\)[\s\S]*Vercel\s·\sWeb\s·\songoing\s·\s/);
    expect(await page.evaluate(() => document.body.dataset.sameDocument)).toBe('yes');
    await page.screenshot({ path: `${screenshotDir}notifications-bell.png` });

    await panel.getByRole('button', { name: 'Mark all read' }).click();
    await page.locator('.bell > button[aria-label="Notifications"]').waitFor();
    expect(await page.locator('.bell .count').count()).toBe(0);
    expect(await panel.getByRole('button', { name: 'Mark all read' }).isDisabled()).toBe(true);
    expect(await (await fetch(`${dashboard.url}/api/notifications/unread`)).json()).toMatchObject({ unreadCount: 0 });
    // Still the same page: nothing reloaded.
    expect(await page.evaluate(() => document.body.dataset.sameDocument)).toBe('yes');
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('connects the relay from Settings → Relay: a wrong secret gets the relay’s reason, the right one polls at once, and the secret never comes back', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(undefined);
    const browser = await launchChromium();
    cleanup.push(() => browser.close());
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    await gotoHydrated(page, `${dashboard.url}/settings#relay`);
    const section = page.locator('#relay');
    const status = section.locator('[data-poller-state]');
    expect(await status.innerText()).toBe('Not configured: set the URL and the secret');

    await section.getByLabel('Relay URL').fill(relay.url);
    await section.getByLabel('Poll secret').fill('not-the-relay-secret-at-all');
    await section.getByRole('button', { name: 'Test connection' }).click();
    await section.getByText(/Poll: The relay refused the poll secret/).waitFor({ timeout: 10_000 });

    await section.getByLabel('Poll secret').fill(POLL_SECRET);
    await section.getByRole('button', { name: 'Test connection' }).click();
    await section.getByText(/The relay answers and accepts the secret/).waitFor({ timeout: 10_000 });
    await section.getByRole('button', { name: 'Save', exact: true }).first().click();
    await section.getByText('Saved. Polling starts (or stops) at once.').waitFor();

    // Polling started without a restart: a webhook reaches the inbox, and the status says so after a reload.
    expect(await relay.send(mergedPr(7))).toEqual(received);
    await until(() => inbox(dashboard), hasTitles(prTitle(7)), 10_000, 'the webhook in the inbox');
    await page.reload();
    await until(() => status.getAttribute('data-poller-state'), (state) => state === 'polling', 5_000, 'the poller polling');
    expect(await section.getByLabel('Poll secret').inputValue()).toBe('');
    expect(await page.content()).not.toContain(POLL_SECRET);
    expect(JSON.stringify(await relayStatus(dashboard))).not.toContain(POLL_SECRET);
    await page.screenshot({ path: `${screenshotDir}settings-relay.png`, fullPage: true });
    await page.close();
  }, 120_000);

  it('takes provider webhooks on POST /api/webhooks/:integration from any origin and without sign-in, judging them by their signature', async () => {
    const password = 'correct horse battery staple';
    const dashboard = await dashboardFor(undefined, { DASHBOARD_PASSWORD_HASH: await hash(password), WEBHOOK_SECRET_GITHUB: SECRETS.WEBHOOK_SECRET_GITHUB });
    const route = (integration: string) => `${dashboard.url}/api/webhooks/${integration}`;

    // Everything else of this dashboard asks for a sign-in.
    const closed = await fetch(`${dashboard.url}/api/notifications`);
    expect([closed.status, ((await closed.json()) as { error: { code: string } }).error.code]).toEqual([401, 'UNAUTHORIZED']);

    // A provider posts from anywhere, with no cookie: the cross-site guard does not stand in its way.
    expect(await deliver(route('code_host'), mergedPr(5), { origin: 'https://evil.example' })).toEqual(received);
    expect(await deliver(route('github'), mergedPr(6))).toEqual(received);

    const forged = await deliver(route('code_host'), mergedPr(9, 'Codertocat/Hello-World', 'not-the-secret'), { origin: 'https://evil.example' });
    expect(forged).toEqual({
      status: 401,
      contentType: expect.stringMatching(/^application\/json/),
      body: { error: { code: 'UNAUTHORIZED', message: expect.stringMatching(/signature/) } },
    });
    const unknown = await deliver(route('gitlab'), mergedPr(10));
    expect(unknown).toEqual({ status: 404, contentType: expect.stringMatching(/^application\/json/), body: { error: { code: 'NOT_FOUND', message: expect.stringContaining('gitlab') } } });

    // Signed in, the owner finds the two genuine ones, and not the forgery.
    const login = await fetch(`${dashboard.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: dashboard.url, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password }).toString(),
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.getSetCookie().find((c) => c.startsWith('dash_session=')) ?? '').split(';')[0] ?? '';
    expect(titles(await inbox(dashboard, { cookie }))).toEqual([prTitle(5), prTitle(6)]);
  });

  // GitHub lets a webhook send application/x-www-form-urlencoded. The relay answers such a delivery
  // 415 "Send application/json", which tells the owner what to change; the local route must too.
  it('answers a form-encoded webhook on the local route 415 JSON, as the relay does', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(relay, { WEBHOOK_SECRET_GITHUB: SECRETS.WEBHOOK_SECRET_GITHUB });
    const delivery = mergedPr(11);
    const form = { ...delivery, headers: { ...delivery.headers, 'content-type': 'application/x-www-form-urlencoded' } };
    const unsupported = { status: 415, contentType: expect.stringMatching(/^application\/json/), body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send application/json' } } };
    expect(await relay.send(form)).toEqual(unsupported);
    expect(await deliver(`${dashboard.url}/api/webhooks/code_host`, form)).toEqual(unsupported);
  });

  // The relay answers its held polls and exits at once on SIGTERM; the dashboard's live streams (an open
  // tab's bell, a REST client) must not hold its stop up for adapter-node's 30 s either.
  it('stops within moments of SIGTERM while a live stream is open, and ends the stream', async () => {
    const dashboard = await dashboardFor(undefined);
    const stream = await openStream(dashboard);
    await until(() => Promise.resolve(stream.seen().length), (n) => n > 0, 2_000, 'the retry advice');
    const signalled = performance.now();
    await dashboard.stop();
    const stopping = performance.now() - signalled;
    expect(stopping).toBeLessThan(3_000);
    expect(await stream.finished).toBe('ended');
  });
});
