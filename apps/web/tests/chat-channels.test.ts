// Settings → Notifications → Chat and webhooks, from the keyboard alone (focus, typing, Enter, the arrow keys; no
// pointer), in a real Chromium against the built dashboard, whose Slack and Discord webhooks and Telegram's Bot API go
// to the sandbox's fakes (CHAT_*_URL). A Slack connection is added (after a refusal that keeps what was typed), tested
// (the message arrives in the fake Slack; a second test within the minute is our own 429), a second one whose webhook
// was deleted in Slack fails its test and shows "Needs attention" with Slack's reason until it is edited with a new
// webhook URL, a signed webhook's secret is shown once with a Copy button, the policy's chat channel and its preview
// follow the connections without a reload, the card fits a 320 px phone in light and dark with everything open, and
// removing every connection brings the empty state back.
//
// One test a minute per connection (the server's TestSends, a lease per connection): a connection whose test failed
// cannot be tested again within the minute, so the success after the fix is not asked for; that refusal is what its
// Send a test shows instead.
import type { BriefingDestinations } from '@dash/contracts';
import { startSandbox, type Sandbox } from '@dash/sandbox';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated, screenshotDir, scrollsSideways } from './browser.ts';
import { dashboardForFile } from './fixture.ts';

/** How long a poll waits for what the page does after a key (a busy machine is slow). */
const WHILE = { timeout: 15_000 };

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox?.close());
const suite = dashboardForFile({
  dashboard: () => ({ env: { CHAT_SLACK_URL: sandbox.services.slack.url, CHAT_DISCORD_URL: sandbox.services.discord.url, CHAT_TELEGRAM_URL: sandbox.services.telegram.url } }),
});

/** The URL Slack's "Copy" gives for a webhook of the fake: the service's own address, which the dashboard sends under CHAT_SLACK_URL. */
const slackUrl = (webhook: { url: string }) => webhook.url.replace(sandbox.services.slack.url, 'https://hooks.slack.com');

/** What has the focus: its id and its text. */
const focused = (page: Page) => page.evaluate(() => ({ id: document.activeElement?.id ?? '', text: document.activeElement?.textContent?.trim() ?? '' }));

/** Focuses the control and types into it, as a user who tabbed there would. */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.locator(selector).focus();
  await page.keyboard.type(text);
}

/** Focuses a button and presses Enter on it. */
async function press(page: Page, locator: ReturnType<Page['locator']>, key = 'Enter'): Promise<void> {
  await locator.focus();
  await page.keyboard.press(key);
}

/**
 * At 320 px, light and dark: nothing in the card is wider than the screen and every control in it is a finger's target
 * (a radio or checkbox inside its label, which is). The viewport is put back as it was.
 */
async function fitsAPhone(page: Page, { card: selector, picture }: { card: string; picture: string } = { card: '#chat', picture: 'chat-connections' }): Promise<void> {
  const before = page.viewportSize();
  await page.setViewportSize({ width: 320, height: 800 });
  const card = page.locator(selector);
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    // What is wider than the screen and not inside something that scrolls on its own (the preferences' table).
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll('body *')]
        .filter((element) => {
          if (element.getBoundingClientRect().right <= document.documentElement.clientWidth + 1) return false;
          for (let parent = element.parentElement; parent; parent = parent.parentElement) if (getComputedStyle(parent).overflowX !== 'visible') return false;
          return true;
        })
        .map((element) => `${element.tagName.toLowerCase()}#${element.id}.${element.className}`)
        .slice(0, 5),
    );
    expect(wide).toEqual([]);
    expect(await scrollsSideways(page)).toBe(false);
    const small = await card.evaluate((root) =>
      [...root.querySelectorAll<HTMLElement>('button, summary, select, input, label.check')].flatMap((control) => {
        const box = control.getBoundingClientRect();
        if (box.width === 0 || box.height === 0) return [];
        const inLabel = control instanceof HTMLInputElement && (control.type === 'radio' || control.type === 'checkbox');
        const least = inLabel ? 24 : 44;
        return box.height + 0.5 < least || box.right > 321 ? [`${control.outerHTML.slice(0, 80)}: ${Math.round(box.height)} px tall, right edge ${Math.round(box.right)}`] : [];
      }),
    );
    expect(small).toEqual([]);
    await card.screenshot({ path: `${screenshotDir}${picture}-320-${colorScheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (before) await page.setViewportSize(before);
}

describe('Settings → Notifications → Chat and webhooks, by keyboard', () => {
  it('adds, tests, flags, fixes and removes connections, shows a signed webhook’s secret once, and opens the policy’s chat channel', async () => {
    const ctx = await suite.browser.newContext({ viewport: { width: 1280, height: 1000 } });
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.dashboard.url });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
    page.on('dialog', (dialog) => void dialog.accept());

    await gotoHydrated(page, `${suite.dashboard.url}/settings#chat`);
    await page.waitForURL(`${suite.dashboard.url}/settings/notifications#chat`);
    const card = page.locator('#chat');
    expect(await card.getByRole('heading', { level: 3 }).textContent()).toBe('Chat and webhooks');
    await expect.poll(() => card.locator('[data-chat-empty]').innerText(), WHILE).toMatch(/a Slack or Discord channel, a Telegram chat, the ntfy app on a phone, or a signed webhook/);
    // No connection: the policy offers no chat, and says why; a new rule's chat action is shown, not offered.
    expect(await page.locator('#chat-reason').textContent()).toMatch(/^Chat and webhooks: Add a connection first/);
    await press(page, page.locator('#add-rule'));
    const ruleChat = page.locator('select[id^="rule-"][id$="-chat"]');
    await expect.poll(() => ruleChat.isDisabled(), WHILE).toBe(true);
    expect(await page.locator(`#${await ruleChat.getAttribute('aria-describedby')}`).textContent()).toBe('No connection ready');
    const chatOutcome = page.locator('.chat-outcome');
    expect(await chatOutcome.count()).toBe(0);

    // Added with the form open (nothing yet): Slack is the kind already chosen. Without a name: refused next to the
    // name, the focus taken there, and the webhook URL typed still in its field.
    const ops = sandbox.createSlackWebhook('#ops');
    await typeInto(page, '#chat-add-webhook-url', slackUrl(ops));
    await page.screenshot({ path: `${screenshotDir}chat-connections-add.png` });
    expect(await page.locator('#chat-add-webhook-url').getAttribute('type')).toBe('password');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page), WHILE).toMatchObject({ id: 'chat-add-name' });
    expect(await page.locator('#chat-add-name').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#chat-add-name-error').textContent()).toBe('Name the connection (“#ops”, “Phone”)');
    expect(await page.locator('#chat-add-webhook-url').inputValue()).toBe(slackUrl(ops));
    await page.keyboard.type('#ops');
    await page.keyboard.press('Enter');
    await expect.poll(() => card.getByText('“#ops” added. Send it a test to see it arrive.').count(), WHILE).toBe(1);
    const opsRow = card.locator('li[data-connection]').filter({ has: page.locator('strong', { hasText: /^#ops$/ }) });
    // The focus on its test, the next thing to do.
    await expect.poll(() => focused(page), WHILE).toMatchObject({ text: 'Send a test to #ops' });
    expect(await opsRow.locator('[data-target]').textContent()).toBe(`hooks.slack.com · ${ops.team}/${ops.id}`);
    expect(await opsRow.locator('[data-floor]').textContent()).toBe('Warnings and errors');
    expect((await opsRow.locator('[data-last-success]').textContent())?.trim()).toBe('Never');
    expect(await opsRow.locator('.what').innerText()).toMatch(/^#ops\s+Slack$/);
    // The policy's chat channel opens without a reload: the preview's failed deploy goes to #ops.
    await expect.poll(() => chatOutcome.textContent(), WHILE).toBe('Chat now to #ops (queued for each chat and webhook connection)');
    expect(await page.locator('#chat-reason').count()).toBe(0);
    expect(await ruleChat.isDisabled()).toBe(false);

    // Send a test (Enter on the focused button): Slack took it, and it arrived there.
    await page.keyboard.press('Enter');
    await expect.poll(() => opsRow.locator('.result').textContent(), WHILE).toBe('Sent: Slack accepted it');
    expect(sandbox.slackMessages().filter((message) => message.webhookId === ops.id).map((message) => message.text)).toEqual([expect.stringContaining('Test from your founder dashboard')]);
    expect((await opsRow.locator('[data-last-success]').textContent())?.trim()).not.toBe('Never');
    // The focus is back on the button once the test is done, and a second test within the minute is our own refusal.
    await expect.poll(() => focused(page), WHILE).toMatchObject({ text: 'Send a test to #ops' });
    await page.keyboard.press('Enter');
    await expect.poll(() => opsRow.getByRole('alert').textContent(), WHILE).toMatch(/a minute: try again in \d+ s\.$/);
    expect(sandbox.slackMessages()).toHaveLength(1);

    // A signed webhook: chosen with the arrow keys among the kinds; its signing secret is shown once, with a Copy button.
    await press(page, page.locator('input[name="chat-add-kind"][value="slack"]'), 'ArrowRight');
    for (let step = 0; step < 3; step++) await page.keyboard.press('ArrowRight');
    expect(await page.locator('input[name="chat-add-kind"]:checked').getAttribute('value')).toBe('webhook');
    await typeInto(page, '#chat-add-name', 'Receiver');
    await typeInto(page, '#chat-add-url', 'http://127.0.0.1:9/hooks/dashboard');
    await page.keyboard.press('Enter');
    const secret = page.locator('#chat-secret');
    await expect.poll(() => secret.count(), WHILE).toBe(1);
    const shown = await secret.inputValue();
    expect(shown).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(await card.locator('.secret').innerText()).toContain('it will not be shown again');
    await expect.poll(() => focused(page), WHILE).toMatchObject({ text: 'Copy the signing secret' });
    await page.keyboard.press('Enter');
    await expect.poll(() => card.locator('.secret').getByText('Copied to the clipboard.').count(), WHILE).toBe(1);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
    const receiverRow = card.locator('li[data-connection]').filter({ has: page.locator('strong', { hasText: /^Receiver$/ }) });
    expect(await receiverRow.locator('[data-target]').textContent()).toBe('127.0.0.1:9');
    // Never answered again: the list has no secret in it.
    expect(JSON.stringify(await (await suite.dashboard.fetch('/api/channels')).json())).not.toContain(shown);

    // A second Slack connection, errors only (the arrow keys in "Sends"), whose webhook is then removed in Slack: its
    // test fails with Slack's reason, and it needs attention.
    await press(page, page.locator('input[name="chat-add-kind"][value="webhook"]'), 'ArrowRight');
    expect(await page.locator('input[name="chat-add-kind"]:checked').getAttribute('value')).toBe('slack');
    const deploys = sandbox.createSlackWebhook('#deploys');
    await typeInto(page, '#chat-add-name', '#deploys');
    await press(page, page.locator('#chat-add-floor'), 'ArrowUp');
    expect(await page.locator('#chat-add-floor').inputValue()).toBe('error');
    await typeInto(page, '#chat-add-webhook-url', slackUrl(deploys));
    await page.keyboard.press('Enter');
    const deploysRow = card.locator('li[data-connection]').filter({ has: page.locator('strong', { hasText: /^#deploys$/ }) });
    await expect.poll(() => deploysRow.locator('[data-floor]').textContent(), WHILE).toBe('Errors only');
    await expect.poll(() => chatOutcome.textContent(), WHILE).toBe('Chat now to #ops, Receiver, and #deploys (queued for each chat and webhook connection)');
    sandbox.deleteSlackWebhook(deploys.id);
    await expect.poll(() => focused(page), WHILE).toMatchObject({ text: 'Send a test to #deploys' });
    await page.keyboard.press('Enter');
    await expect.poll(() => deploysRow.locator('.result').textContent(), WHILE).toBe('Gone: Slack answered 404: no_service');
    expect(await deploysRow.locator('[data-needs-attention]').innerText()).toMatch(/^Needs attention: Slack answered 404: no_service\. Nothing is sent to it until it is fixed/);
    expect(await deploysRow.locator('.what').innerText()).toMatch(/^#deploys\s+Slack\s+Needs attention$/);
    expect(await deploysRow.locator('[data-last-failure]').innerText()).toMatch(/: Slack answered 404: no_service$/);
    // Visibly apart: the danger colour down its side.
    expect(await deploysRow.evaluate((li) => getComputedStyle(li).borderLeftWidth)).toBe('4px');
    // The policy sends chat only where it can: the preview leaves #deploys out.
    await expect.poll(() => chatOutcome.textContent(), WHILE).toBe('Chat now to #ops and Receiver (queued for each chat and webhook connection)');

    // Edit, from the keyboard: the form opens with the focus in its name; on a phone everything fits, open as it is.
    await press(page, deploysRow.getByRole('button', { name: 'Edit #deploys' }));
    await expect.poll(() => page.evaluate(() => document.activeElement?.id.endsWith('-name') && document.activeElement.closest('form.edit') !== null), WHILE).toBe(true);
    await fitsAPhone(page);
    // A new webhook URL (the secret field empty until typed): saved, the attention cleared, the focus back on Edit.
    const fixed = sandbox.createSlackWebhook('#deploys');
    const newUrl = deploysRow.locator('input[id$="-webhook-url"]');
    expect(await newUrl.inputValue()).toBe('');
    await newUrl.focus();
    await page.keyboard.type(slackUrl(fixed));
    await page.keyboard.press('Enter');
    await expect.poll(() => deploysRow.locator('[data-needs-attention]').count(), WHILE).toBe(0);
    await expect.poll(() => focused(page), WHILE).toMatchObject({ text: 'Edit #deploys' });
    expect(await deploysRow.locator('[data-target]').textContent()).toBe(`hooks.slack.com · ${fixed.team}/${fixed.id}`);
    expect(await deploysRow.getByText('“#deploys” saved.').count()).toBe(1);
    await expect.poll(() => chatOutcome.textContent(), WHILE).toBe('Chat now to #ops, Receiver, and #deploys (queued for each chat and webhook connection)');
    // Its test within the minute of the failed one: our own limit says when.
    await press(page, deploysRow.getByRole('button', { name: 'Send a test to #deploys' }));
    await expect.poll(() => deploysRow.getByRole('alert').textContent(), WHILE).toMatch(/a minute: try again in \d+ s\.$/);

    // A reload: the secret is gone for good.
    const hydrated = page.waitForResponse((response) => response.url().includes('notifications.stream'));
    await page.reload();
    await hydrated;
    await expect.poll(() => card.locator('li[data-connection]').count(), WHILE).toBe(3);
    expect(await secret.count()).toBe(0);
    expect(await page.content()).not.toContain(shown);

    // Removed one by one (Enter, then the confirmation): the focus goes to the next one's test, then the empty state
    // comes back, and the policy's chat channel closes.
    for (const name of ['#ops', 'Receiver', '#deploys']) {
      await press(page, card.getByRole('button', { name: `Remove ${name}` }));
      await expect.poll(() => card.getByRole('button', { name: `Remove ${name}` }).count(), WHILE).toBe(0);
    }
    await expect.poll(() => card.locator('[data-chat-empty]').count(), WHILE).toBe(1);
    await expect.poll(() => focused(page), WHILE).toMatchObject({ id: 'chat-add-summary' });
    await expect.poll(() => page.locator('#chat-reason').count(), WHILE).toBe(1);
    await expect.poll(() => chatOutcome.count(), WHILE).toBe(0);
    expect(await (await suite.dashboard.fetch('/api/channels')).json()).toEqual({ connections: [] });
    expect(problems).toEqual([]);
    await ctx.close();
  }, 120_000);
});

// Settings → Briefing → The briefing on your channels, on a 320 px phone with a pointer: a Slack connection set to
// weekly on a day at a time with two parts, saved with its next send shown, kept over a reload, then sent now into the
// fake Slack (the briefing's blocks with the chosen parts only), and a second send within the minute is our own limit.
describe('Settings → Briefing → The briefing on your channels, at 320 px', () => {
  it('sets a connection to weekly on a day at a time with two parts, keeps it, sends it now to Slack, and says the minute’s limit', async () => {
    const founders = sandbox.createSlackWebhook('#founders');
    const added = await suite.dashboard.fetch('/api/channels', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: '#founders', destination: { kind: 'slack', webhookUrl: slackUrl(founders) } }),
    });
    expect(added.status).toBe(201);
    const { connection } = (await added.json()) as { connection: { id: string } };
    const destinations = async () => (await (await suite.dashboard.fetch('/api/briefing/destinations')).json()) as BriefingDestinations;
    const { timezone } = await destinations();

    const ctx = await suite.browser.newContext({ viewport: { width: 320, height: 800 } });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
    await gotoHydrated(page, `${suite.dashboard.url}/settings/briefing`);
    const card = page.locator('#briefing-destinations');
    expect(await card.getByRole('heading', { level: 3 }).textContent()).toBe('The briefing on your channels');
    const row = card.locator(`li[data-destination="chat:${connection.id}"]`);
    expect(await row.locator('.what').innerText()).toMatch(/^#founders\s+Slack\s+Off$/);
    expect(await row.locator('[data-sends]').innerText()).toBe('No schedule: it gets the briefing only when you send it now.');
    // Off has no day or time; Weekly has both, the time in the owner's zone with where it is set.
    expect(await row.getByLabel('Time').count()).toBe(0);
    await row.getByLabel('Schedule').selectOption('week');
    await row.getByLabel('Day', { exact: true }).selectOption('thu');
    await row.getByLabel('Time').fill('09:15');
    expect(await row.getByText(`In ${timezone}, your quiet hours’ time zone`).count()).toBe(1);
    expect(await row.getByRole('link', { name: 'change it in Notifications' }).getAttribute('href')).toBe('/settings/notifications#quiet-title');
    for (const part of ['Each product’s figures', 'Reviews', 'Metric alerts']) await row.getByLabel(part).uncheck();
    await fitsAPhone(page, { card: '#briefing-destinations', picture: 'briefing-destinations' });

    await row.getByRole('button', { name: 'Save the briefing on #founders' }).click();
    await expect.poll(() => row.locator('[data-saved-cadence]').textContent(), WHILE).toBe('Weekly on Thursday at 09:15');
    const saved = (await destinations()).destinations.find((each) => each.id === `chat:${connection.id}`);
    expect(saved).toMatchObject({ cadence: { every: 'week', day: 'thu', time: '09:15' }, parts: ['needs_you', 'shipped'] });
    // The next send: a Thursday at 09:15 in the owner's zone, shown as the email's is.
    const nextAt = saved?.nextAt ?? '';
    const inZone = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    expect(inZone.format(new Date(nextAt))).toBe('Thu 09:15');
    expect(await row.locator('[data-next]').getAttribute('datetime')).toBe(nextAt);
    expect(await row.locator('[data-sends]').innerText()).toMatch(/^Next: .+\.$/);
    expect(await row.locator('.status').first().innerText()).toMatch(/^Saved: Weekly on Thursday at 09:15; the next goes .+\.$/);

    // A reload: kept, in the form and in the list.
    await gotoHydrated(page, `${suite.dashboard.url}/settings/briefing`);
    expect(await row.getByLabel('Schedule').inputValue()).toBe('week');
    expect(await row.getByLabel('Day', { exact: true }).inputValue()).toBe('thu');
    expect(await row.getByLabel('Time').inputValue()).toBe('09:15');
    const ticked = await row.locator('label.check').evaluateAll((labels) => labels.filter((label) => label.querySelector('input')?.checked).map((label) => label.textContent?.trim()));
    expect(ticked).toEqual(['What needs you', 'What shipped']);
    expect(await row.locator('[data-next]').getAttribute('datetime')).toBe(nextAt);

    // Send now: the weekly briefing in the fake Slack, with the two parts only; how many messages went is said.
    await row.getByRole('button', { name: 'Send now to #founders' }).click();
    await expect.poll(() => row.getByText(/^Sent now: \d+ messages? went\.$/).count(), WHILE).toBe(1);
    const posted = sandbox.slackMessages().filter((message) => message.webhookId === founders.id);
    expect(posted).toHaveLength(1);
    expect(posted[0]?.text).toMatch(/^Weekly briefing · /);
    const blocks = JSON.stringify(posted[0]?.blocks);
    expect(blocks).toContain('Needs you');
    expect(blocks).not.toContain('Metric alerts');
    // Again within the minute: our own limit's words, and nothing more in Slack.
    await row.getByRole('button', { name: 'Send now to #founders' }).click();
    await expect.poll(() => row.getByRole('alert').textContent(), WHILE).toMatch(/^One test briefing a minute: try again in \d+ s\.$/);
    expect(sandbox.slackMessages().filter((message) => message.webhookId === founders.id)).toHaveLength(1);
    await page.emulateMedia({ colorScheme: 'dark' });
    await card.screenshot({ path: `${screenshotDir}briefing-destinations-sent-dark.png` });
    expect(problems).toEqual([]);
    await ctx.close();
  }, 60_000);
});
