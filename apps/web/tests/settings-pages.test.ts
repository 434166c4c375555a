// Settings as a page per section, against the built dashboard: /settings opens the first, each /settings/<section>
// holds its section alone under a side navigation that marks it, links of the one-page Settings (/settings#relay,
// #devices, #project-<slug>) land on their page, and on a phone the navigation is one select that fits, light and dark.
// The dashboard is a new user's (no VAPID_SUBJECT, no alert email, a plain-http address): Settings → Notifications →
// Devices asks for a contact for push services before "Notify this device" asks the browser anything.
import { createECDH, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { settingsPath, settingsSections } from '../src/lib/settings-sections.ts';
import { gotoHydrated, launchChromium, screenshotDir, scrollsSideways } from './browser.ts';
import { dashboardForFile } from './fixture.ts';
import { raw } from './http.ts';

const suite = dashboardForFile();
beforeAll(async () => {
  const created = await suite.dashboard.fetch('/api/projects', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ slug: 'alpha', name: 'Alpha' }) });
  expect(created.status).toBe(201);
});

/** A page of `width` px (light or dark) whose uncaught errors land in `problems`. */
async function open(problems: string[], { width = 1280, dark = false } = {}): Promise<Page> {
  const page = await suite.browser.newPage({ viewport: { width, height: 900 }, colorScheme: dark ? 'dark' : 'light' });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return page;
}

const currentLinks = (page: Page) => page.getByRole('navigation', { name: 'Settings sections' }).locator('[aria-current="page"]').allInnerTexts();

describe('Settings over HTTP', () => {
  it('/settings redirects to the first section, keeping the query', async () => {
    expect(await raw(`${suite.dashboard.url}/settings`).then((answer) => [answer.status, answer.headers.location])).toEqual([307, '/settings/projects']);
    const withQuery = await raw(`${suite.dashboard.url}/settings?tab=x&y=1`);
    expect([withQuery.status, withQuery.headers.location]).toEqual([307, '/settings/projects?tab=x&y=1']);
  });

  it("each section's page holds its own section, titled, with the navigation marking it, and no other section", async () => {
    for (const { id, title } of settingsSections) {
      const { status, body } = await raw(`${suite.dashboard.url}${settingsPath(id)}`);
      expect([id, status]).toEqual([id, 200]);
      expect(body, id).toContain(`<title>${title.replace('&', '&amp;')} · Settings · Founder dashboard</title>`);
      const holds = (section: string) => new RegExp(`<section[^>]* id="${section}"`).test(body);
      expect(holds(id), id).toBe(true);
      const others = settingsSections.filter((section) => section.id !== id && holds(section.id)).map((section) => section.id);
      expect([id, others]).toEqual([id, []]);
      expect(body, id).toMatch(new RegExp(`<a href="${settingsPath(id)}"[^>]* aria-current="page"`));
      expect(body.match(/aria-current="page"/g)?.length, id).toBe(2); // this link, and Settings in the header
    }
  });

  it('answers an unknown section with 404', async () => {
    expect((await raw(`${suite.dashboard.url}/settings/nothing-here`)).status).toBe(404);
  });
});

describe('Settings in a browser', () => {
  it('opens each section from the side navigation: its heading shows and its link is marked as the page', async () => {
    const problems: string[] = [];
    const page = await open(problems);
    await gotoHydrated(page, `${suite.dashboard.url}/settings`);
    expect(page.url()).toBe(`${suite.dashboard.url}/settings/projects`);
    for (const { id, title } of settingsSections) {
      await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: title, exact: true }).click();
      await page.waitForURL(`${suite.dashboard.url}${settingsPath(id)}`);
      await page.getByRole('heading', { level: 2, name: title, exact: true }).waitFor();
      expect(await currentLinks(page)).toEqual([title]);
      expect(await page.title()).toBe(`${title} · Settings · Founder dashboard`);
      expect(await page.locator('main section[id]').evaluateAll((sections) => sections.map((section) => section.id))).toEqual([id]);
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('takes links of the one-page Settings to the page that holds their anchor', async () => {
    const problems: string[] = [];
    const page = await open(problems);
    // The old link, the page it lands on, and a heading (level 3, inside the section) that page shows.
    for (const [old, path, shows] of [
      ['#notifications', '/settings/notifications', 'Desktop alerts'],
      ['#devices', '/settings/notifications', 'Devices'],
      ['#relay', '/settings/relay', 'Relay'],
      ['#backups', '/settings/backups', 'Refresh everything'],
      ['#project-alpha', '/settings/projects', 'Alpha'],
    ] as const) {
      await page.goto(`${suite.dashboard.url}/settings${old}`);
      await page.waitForURL(`${suite.dashboard.url}${path}${old}`);
      await page.getByRole('heading', { level: 3, name: shows, exact: true }).waitFor();
      // The anchor is there, on this page, for the browser to scroll to.
      expect(await page.locator(old).count(), old).toBe(1);
    }
    // An old link followed inside the app (SvelteKit's own navigation, which drops a fragment across a redirect):
    // the dashboard's pages and widgets may still say /settings#….
    await gotoHydrated(page, `${suite.dashboard.url}/settings/layout`);
    // In the body, outside what Svelte renders (a re-render of the page would drop a node added to its own tree); the
    // router takes clicks on links anywhere in the document.
    await page.evaluate(() => {
      const link = Object.assign(document.createElement('a'), { href: '/settings#devices', textContent: 'old link' });
      document.body.append(link);
    });
    await page.getByRole('link', { name: 'old link' }).click();
    await page.waitForURL(`${suite.dashboard.url}/settings/notifications#devices`);
    await page.getByRole('heading', { level: 3, name: 'Devices', exact: true }).waitFor();
    expect(await currentLinks(page)).toEqual(['Notifications']);
    expect(problems).toEqual([]);
    await page.close();
  });

  for (const dark of [false, true]) {
    it(`at 320 px${dark ? ', dark' : ''}: the navigation is one select that fits, 44 px tall, and goes to the section chosen`, async () => {
      const problems: string[] = [];
      const page = await open(problems, { width: 320, dark });
      await gotoHydrated(page, `${suite.dashboard.url}/settings/projects`);
      expect(await page.getByRole('navigation', { name: 'Settings sections' }).isVisible()).toBe(false);
      const select = page.getByRole('combobox', { name: 'Settings section' });
      const box = await select.boundingBox();
      expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
      expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? Infinity) <= 320).toBe(true);
      expect(await select.inputValue()).toBe('/settings/projects');
      expect(await scrollsSideways(page)).toBe(false);
      await page.screenshot({ path: join(screenshotDir, `settings-phone-320${dark ? '-dark' : ''}.png`) });

      await select.selectOption({ label: 'Relay' });
      await page.waitForURL(`${suite.dashboard.url}/settings/relay`);
      await page.getByRole('heading', { level: 2, name: 'Relay', exact: true }).waitFor();
      expect(await select.inputValue()).toBe('/settings/relay');
      expect(await scrollsSideways(page)).toBe(false);
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});

/**
 * The browser's push API as the devices test meets it (in a page's init script): the permission request counted
 * (Chromium answers it as the context's grant), and `pushManager.subscribe` counted and answered with `subscription`:
 * headless Chromium cannot reach a push service (push-client-testing.ts says more).
 */
function countedPush(subscription: { endpoint: string; keys: { p256dh: string; auth: string } }) {
  const counts = window as unknown as { __asked: number; __subscribed: number };
  counts.__asked = 0;
  counts.__subscribed = 0;
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = () => {
    counts.__asked += 1;
    return ask();
  };
  PushManager.prototype.subscribe = function () {
    counts.__subscribed += 1;
    const json = { ...subscription, expirationTime: null };
    return Promise.resolve({ ...json, options: { userVisibleOnly: true }, toJSON: () => json, unsubscribe: () => Promise.resolve(true) } as unknown as PushSubscription);
  };
}

describe('Settings → Notifications → Devices without a contact for push services', () => {
  it('"Notify this device" says a contact is needed and asks the browser nothing; the owner saves one, then it subscribes (320 px, light and dark)', async () => {
    const whole = await launchChromium({ whole: true }); // the shell denies every notification permission
    try {
      const problems: string[] = [];
      const ctx = await whole.newContext({ viewport: { width: 320, height: 800 } });
      await ctx.grantPermissions(['notifications'], { origin: suite.dashboard.url });
      const p256dh = createECDH('prime256v1');
      p256dh.generateKeys();
      const subscription = {
        endpoint: `https://fcm.googleapis.com/fcm/send/${randomBytes(16).toString('base64url')}`,
        keys: { p256dh: p256dh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
      };
      await ctx.addInitScript(countedPush, subscription);
      const page = await ctx.newPage();
      page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
      await gotoHydrated(page, `${suite.dashboard.url}/settings/notifications#devices`);
      const section = page.locator('#devices');
      const counts = () =>
        page.evaluate(() => {
          const counted = window as unknown as { __asked: number; __subscribed: number };
          return { asked: counted.__asked, subscribed: counted.__subscribed };
        });

      const notice = section.locator('[data-push-state="needs-contact"]');
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/^\s*Push services need a contact before this device can be notified: save your email address above\.\s*$/);
      expect(await section.locator('[data-contact-source]').textContent()).toBe('No contact yet: until there is one, no device can be notified.');
      expect(await scrollsSideways(page)).toBe(false);
      await section.screenshot({ path: join(screenshotDir, 'settings-devices-needs-contact-320.png') });

      // The click says why, takes the focus to the field, and neither asks for the permission nor subscribes.
      await section.getByRole('button', { name: 'Notify this device' }).click();
      await expect
        .poll(() => section.locator('.subscribe').getByRole('alert').textContent())
        .toBe('Push services need a contact first: save your email address under “Contact for push services” above, then notify this device.');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('push-contact');
      expect(await counts()).toEqual({ asked: 0, subscribed: 0 });
      expect(await (await suite.dashboard.fetch('/api/push/subscriptions')).json()).toEqual({ devices: [] });

      // An address push services would refuse: the server's 400 under the field, nothing saved.
      const field = section.getByLabel('Your email address');
      await field.fill('founder@localhost');
      await section.getByRole('button', { name: 'Save contact' }).click();
      await expect.poll(() => section.locator('#push-contact-error').textContent()).toBe('An email address, such as you@example.com');
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await (await suite.dashboard.fetch('/api/push/contact')).json()).toMatchObject({ configured: false, saved: null });

      await field.fill('founder@example.com');
      await section.getByRole('button', { name: 'Save contact' }).click();
      await expect.poll(() => section.locator('[data-contact-source]').textContent()).toBe('In use: founder@example.com, saved here.');
      expect(await notice.count()).toBe(0);
      expect(await section.locator('.subscribe').getByRole('alert').count()).toBe(0);

      const name = await section.getByLabel("This device's name").inputValue();
      await section.getByRole('button', { name: 'Notify this device' }).click();
      await expect.poll(() => section.getByText(`“${name}” gets notifications now. Send it a test below.`).count(), { timeout: 30_000 }).toBe(1);
      expect(await counts()).toEqual({ asked: 1, subscribed: 1 });
      const { devices } = (await (await suite.dashboard.fetch('/api/push/subscriptions')).json()) as { devices: { name: string; pushService: string }[] };
      expect(devices).toMatchObject([{ name, pushService: 'fcm.googleapis.com' }]);
      expect(await scrollsSideways(page)).toBe(false);

      // Dark, after a reload: the saved address in the field and in use, nothing wider than the phone.
      await page.emulateMedia({ colorScheme: 'dark' });
      await gotoHydrated(page, `${suite.dashboard.url}/settings/notifications`);
      await expect.poll(() => section.locator('[data-contact-source]').textContent()).toBe('In use: founder@example.com, saved here.');
      expect(await field.inputValue()).toBe('founder@example.com');
      expect(await scrollsSideways(page)).toBe(false);
      await section.screenshot({ path: join(screenshotDir, 'settings-devices-contact-320-dark.png') });
      expect(problems).toEqual([]);
    } finally {
      await whole.close();
    }
  });
});
