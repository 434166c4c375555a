// Settings → Notifications: the flap hold of uptime monitors' outages is a setting (default 120 s), shown, saved,
// kept across a reload, and a refused value is named next to its field while the stored one stays (issue 26, 2).
import type { NotificationPolicyView } from '@dash/contracts';
import type { Browser } from 'playwright-core';
import { expect, it } from 'vitest';
import { gotoHydrated, launchChromium } from './browser.ts';
import { startDashboard } from './server.ts';
import { takeDownAfterEach } from './waiting.ts';

const cleanup = takeDownAfterEach();

it('shows the flap hold in Settings → Notifications, saves it, keeps it across a reload and refuses a negative one', async () => {
  const target = await startDashboard();
  cleanup.push(() => target.stop());
  const chromium: Browser = await launchChromium();
  cleanup.push(() => chromium.close());
  const page = await (await chromium.newContext()).newPage();
  const policy = async () => (await (await fetch(`${target.url}/api/notifications/policy`)).json()) as NotificationPolicyView;

  await gotoHydrated(page, `${target.url}/settings#notifications`);
  const section = page.locator('#notifications');
  const hold = section.getByLabel('Hold (seconds)');
  await hold.waitFor();
  expect(await hold.inputValue()).toBe('120');

  await hold.fill('30');
  await section.getByRole('button', { name: 'Save flap hold' }).click();
  await section.getByText('Flap hold saved: 30 s.').waitFor();
  expect((await policy()).flapHoldSeconds).toBe(30);

  await page.reload();
  await hold.waitFor();
  expect(await hold.inputValue()).toBe('30');

  await hold.fill('-5');
  await section.getByRole('button', { name: 'Save flap hold' }).click();
  // The message sits next to the field it names, which points at it.
  await page.locator('#flap-hold-error', { hasText: 'The flap hold is at least 0 s' }).waitFor();
  expect(await hold.getAttribute('aria-invalid')).toBe('true');
  expect(await hold.getAttribute('aria-describedby')).toBe('flap-hold-error');
  expect((await policy()).flapHoldSeconds).toBe(30);
}, 60_000);
