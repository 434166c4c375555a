import { createHmac } from 'node:crypto';
import { deployment } from '../../../packages/webhooks/src/vercel/fixtures.ts';
import { sandboxEmail, sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated, screenshotDir } from './browser.ts';
import { dashboardForFile } from './fixture.ts';
import { startDashboard } from './server.ts';

/** What a poll that waits on the server allows on a machine busy with the other tests. */
const SERVER = { timeout: 10_000 };

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox?.close());
const suite = dashboardForFile({
  dashboard: () => ({
    env: {
      BACKUP_SECRET: 'cron-secret-new, cron-secret-old',
      SENDGRID_API_KEY: sandboxTokens.sendgrid,
      ALERT_EMAIL_FROM: sandboxEmail.from,
      ALERT_EMAIL_TO: 'founder@example.com',
      SENDGRID_API_URL: sandbox.services.sendgrid.url,
      WEBHOOK_SECRET_VERCEL: 'vercel-signing-secret',
    },
  }),
});
beforeAll(async () => {
  const post = (path: string, body: unknown) => suite.dashboard.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  // Two integrations on two upstreams of the sandbox: a backup is two calls on two lanes.
  expect((await post('/api/credentials', { key: 'betterstack', values: { apiToken: sandboxTokens.betterstack, baseUrl: sandbox.services.betterstack.baseUrl } })).status).toBe(200);
  expect((await post('/api/credentials', { key: 'github', values: { token: sandboxTokens.github, baseUrl: sandbox.services.github.baseUrl } })).status).toBe(200);
  const project = { slug: 'formfox', name: 'Formfox', integrations: { uptime_monitor: { monitorIds: ['2003', '2004'] }, code_host: { repos: ['formfox/web'] } } };
  expect((await post('/api/projects', project)).status).toBe(201);
});

const backup = (authorization?: string) =>
  fetch(`${suite.dashboard.url}/api/backup`, { method: 'POST', headers: authorization === undefined ? {} : { authorization } });

describe('POST /api/backup over a real socket', () => {
  it('takes BACKUP_SECRET (either of a rotation) and nothing else', async () => {
    const missing = await backup();
    expect([missing.status, missing.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="backup"']);
    expect(await missing.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'POST /api/backup needs Authorization: Bearer <BACKUP_SECRET>.' } });
    const wrong = await backup('Bearer cron-secret-wrong');
    expect([wrong.status, wrong.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="backup", error="invalid_token"']);
    // An API token of the dashboard is not the backup secret either.
    expect((await backup('Bearer fdb_0123456789_abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq')).status).toBe(401);
    expect(sandbox.requests).toHaveLength(0);

    const done = await backup('Bearer cron-secret-old');
    expect(done.status).toBe(200);
    const result = (await done.json()) as Record<string, unknown>;
    expect(result).toEqual({ refreshed: 2, failed: 0, duration: expect.stringMatching(/^\d+s$/) as string, errors: [] });
    const status = (await (await suite.dashboard.fetch('/api/backup')).json()) as { last: { trigger: string } };
    expect(status.last.trigger).toBe('http');
  });

  it('is off, and says so, when BACKUP_SECRET is not set', async () => {
    const plain = await startDashboard();
    try {
      const off = await fetch(`${plain.url}/api/backup`, { method: 'POST', headers: { authorization: 'Bearer anything' } });
      expect(off.status).toBe(503);
      expect(await off.json()).toMatchObject({ error: { message: expect.stringContaining('set BACKUP_SECRET') as string } });
    } finally {
      await plain.stop();
    }
  });
});

describe('Settings → Refresh & alerts in a real browser', () => {
  it('shows the progress bar while a backup runs and the result after; sends a test email', async () => {
    const context = await suite.browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    await gotoHydrated(page, `${suite.dashboard.url}/settings#backups`);
    const section = page.locator('section#backups');

    // Better Stack answers slowly this once: long enough to watch the backup run.
    sandbox.inject('betterstack', { latencyMs: 2_500, times: 1 });
    await section.getByRole('button', { name: 'Refresh everything now' }).click();
    const progress = section.getByRole('progressbar', { name: 'Backup progress' });
    await expect.poll(() => progress.isVisible(), SERVER).toBe(true);
    expect(await progress.getAttribute('max')).toBe('2');
    await expect.poll(() => section.getByTestId('backup-progress').textContent(), SERVER).toMatch(/1 of 2 refreshed/);
    await expect.poll(() => section.getByRole('list', { name: 'Services' }).textContent()).toContain('Better Stack Uptime');
    await section.screenshot({ path: `${screenshotDir}/settings-backup-running.png` });
    await expect.poll(() => section.getByTestId('backup-last').textContent(), SERVER).toMatch(/Last: 2 refreshed, none failed in \d+s/);
    expect(await progress.count()).toBe(0);

    expect(await section.getByTestId('email-state').textContent()).toBe('Ready');
    await section.getByRole('button', { name: 'Send a test email' }).click();
    await expect.poll(() => section.getByText('Sent to founder@example.com').count(), SERVER).toBe(1);
    expect(sandbox.mails().map((mail) => [mail.to, mail.subject])).toEqual([[['founder@example.com'], 'Test email from your founder dashboard']]);
    await section.screenshot({ path: `${screenshotDir}/settings-backup-done.png` });
    await context.close();
  });

  it('emails a failed production deploy through the policy and lists it with SendGrid’s id', async () => {
    sandbox.reset();
    const body = deployment('deployment.error', { target: 'production' });
    const signature = createHmac('sha1', 'vercel-signing-secret').update(body).digest('hex');
    const delivered = await fetch(`${suite.dashboard.url}/api/webhooks/deploy_host`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-vercel-signature': signature }, body });
    expect(delivered.status).toBe(200);
    await expect.poll(() => sandbox.mails().length, SERVER).toBe(1);
    const [mail] = sandbox.mails();
    expect(mail?.subject).toMatch(/^\[ALERT\] /);

    const context = await suite.browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    await page.goto(`${suite.dashboard.url}/settings#backups`);
    const list = page.getByRole('list', { name: 'Notification emails' });
    await expect.poll(() => list.textContent(), SERVER).toContain(`SendGrid id ${mail?.messageId ?? ''}`);
    expect(await list.locator('li').first().locator('.state').textContent()).toBe('Sent');
    await context.close();
  });
});
