// Settings → Notifications' live preview with email set up, in a real Chromium against the built dashboard: the
// preview says what the email channel does (the planner's own answer), beside the browser notification.
import { describe, expect, it } from 'vitest';
import { gotoHydrated, launchChromium } from './browser.ts';
import { startDashboard } from './server.ts';
import { takeDownAfterEach } from './waiting.ts';

const cleanup = takeDownAfterEach();

describe('the notification preview with email set up', () => {
  it('shows the email outcome of the sample beside the browser one, and follows unsaved rules that take email away', async () => {
    // SendGrid is only configured, never called: the preview writes and sends nothing.
    const target = await startDashboard({ env: { SENDGRID_API_KEY: 'SG.preview-test-key', ALERT_EMAIL_FROM: 'alerts@example.com', ALERT_EMAIL_TO: 'founder@example.com' } });
    cleanup.push(() => target.stop());
    const chromium = await launchChromium();
    cleanup.push(() => chromium.close());
    const ctx = await chromium.newContext({ viewport: { width: 1280, height: 1000 } });
    cleanup.push(() => ctx.close());
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
    await gotoHydrated(page, `${target.url}/settings#notifications`);
    const section = page.locator('#notifications');
    const preview = section.locator('[data-preview-status]');

    // The sample, a failed production deploy, is an error: a browser notification and an email, both at once.
    const email = preview.locator('[data-email-status]');
    await email.waitFor({ timeout: 10_000 });
    await expect.poll(() => email.getAttribute('data-email-status'), { timeout: 10_000 }).toBe('now');
    expect(await email.innerText()).toBe('Email now (queued for SendGrid)');
    expect(await preview.getAttribute('data-preview-status')).toBe('now');

    // An unsaved rule that takes email away from deploys: the preview says so, the browser notification stays.
    await section.getByRole('button', { name: 'Add a rule' }).click();
    const rule = section.getByRole('group', { name: /^Rule 1:/ });
    await rule.getByLabel('Name').fill('No deploy email');
    await rule.getByLabel('Event type').fill('deploy.*');
    await rule.getByLabel('Email', { exact: true }).selectOption('remove');
    await expect.poll(() => email.getAttribute('data-email-status'), { timeout: 10_000 }).toBe('none');
    expect(await email.innerText()).toBe('No email (no email: its decision does not open that channel)');
    expect(await preview.getAttribute('data-preview-status')).toBe('now');
    expect(problems).toEqual([]);
  }, 60_000);
});
