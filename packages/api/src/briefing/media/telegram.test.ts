import { parseTelegramHtml, startSandbox, type Sandbox } from '@dash/sandbox';
import { testClock } from '@dash/connectors/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TELEGRAM_TEXT_MAX, TelegramAdapter } from '../../channels/telegram/index.ts';
import { renderBriefing } from './index.ts';
import { briefingOf, hostileBriefing, HOSTILE_NAME, ORIGIN, renderOf, trendOf } from './testing.ts';

// The briefing as Telegram HTML, sent in order through the adapter's raw send to the fake Bot API, which parses the
// HTML as Telegram does and refuses a text over 4,096 characters after entities parsing.

const clock = testClock(Date.UTC(2026, 10, 26, 7, 0));
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ now: () => clock.now() });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const adapter = () => new TelegramAdapter({ fetch, clock, baseUrl: sandbox.services.telegram.url });
/** What the chat shows of a message (the fake's own parse of Telegram's HTML). */
function shownOf(html: string): string {
  const parsed = parseTelegramHtml(html);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.text;
}

describe('the briefing on Telegram', () => {
  it('splits twelve long-named products at 4,096 characters between products, in order, and the chat receives every message', async () => {
    const briefing = briefingOf(12);
    const messages = renderBriefing('telegram', renderOf(briefing));
    expect(messages.length).toBeGreaterThan(1);
    const texts = messages.map((message) => shownOf(message.text));
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_MAX);
    // Each product whole in one message, none cut, in the model's order.
    const where = briefing.projects.map((project) => texts.findIndex((text) => text.includes(`${project.name}\nFigures`) && text.includes(`Reviews (4)\n• ★☆☆☆☆ Review 1`)));
    expect(where.every((index) => index >= 0)).toBe(true);
    expect([...where].sort((a, b) => a - b)).toEqual(where);
    for (const project of briefing.projects) expect(texts.filter((text) => text.includes(`${project.name}\nFigures`))).toHaveLength(1);
    // A product starts a message when the one before is full: a message ends where a product ends.
    expect(texts.slice(1).every((text) => briefing.projects.some((project) => text.startsWith(project.name)))).toBe(true);

    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const outcome = await adapter().sendRawInOrder({ botToken: bot.token, chatId: String(chat.id) }, messages);
    expect(outcome).toMatchObject({ sent: messages.length, stopped: null });
    expect(sandbox.telegramMessages().map((message) => message.text)).toEqual(texts);
    expect(outcome.providerIds).toEqual(sandbox.telegramMessages().map((message) => String(message.message_id)));
    expect(sandbox.telegramMessages().every((message) => message.parseMode === 'HTML' && message.linkPreviewDisabled)).toBe(true);
  });

  it('cuts a product longer than a message between lines, its name again on the next, and keeps the rest in order', async () => {
    const briefing = briefingOf(2);
    const [big] = briefing.projects;
    // A product with many trend lines of long labels: more than 4,096 characters by itself.
    const [mrr] = trendOf(0);
    if (big && mrr) big.trend = Array.from({ length: 60 }, (_, n) => ({ ...mrr, label: `MRR of the plan number ${n} with a long label` }));
    const messages = renderBriefing('telegram', renderOf(briefing));
    const texts = messages.map((message) => shownOf(message.text));
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_MAX);
    const continued = texts.filter((text) => text.startsWith(`${big?.name ?? ''} (continued)\n`));
    expect(continued.length).toBeGreaterThan(0);
    // Every line of it arrived once, in order, none cut in the middle.
    const lines = texts.join('\n').split('\n').filter((line) => line.startsWith('• MRR of the plan number'));
    expect(lines).toEqual(Array.from({ length: 60 }, (_, n) => `• MRR of the plan number ${n} with a long label $12,400 (+3 % vs same day last week)`));
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat('group');
    expect((await adapter().sendRawInOrder({ botToken: bot.token, chatId: String(chat.id) }, messages)).stopped).toBeNull();
  });

  it('keeps strangers’ text inert: escaped HTML that the chat shows as typed, only our own tags and links', async () => {
    const messages = renderBriefing('telegram', renderOf(hostileBriefing()));
    const html = messages.map((message) => message.text).join('\n');
    expect(html).not.toContain('<!channel>');
    expect(html.match(/<b>/g)?.length).toBe(html.match(/<\/b>/g)?.length);
    expect(html).toContain('&lt;!channel&gt; *bold* [x](http://evil) @everyone &lt;b&gt;');
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]);
    expect(hrefs.every((href) => href?.startsWith(`${ORIGIN}/`))).toBe(true);
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    expect((await adapter().sendRawInOrder({ botToken: bot.token, chatId: String(chat.id) }, messages)).stopped).toBeNull();
    expect(sandbox.telegramMessages().map((message) => message.text).join('\n')).toContain(`${HOSTILE_NAME}\nFigures`);
  });

  it('gives a destination only its parts, and no links without the dashboard’s address', () => {
    const alertsOnly = renderBriefing('telegram', renderOf(briefingOf(12), { parts: ['metric_alerts'] })).map((message) => shownOf(message.text));
    expect(alertsOnly).toHaveLength(1);
    expect(alertsOnly[0]).toContain('Metric alerts (2)\n• Formfox');
    expect(alertsOnly[0]).not.toMatch(/Needs you|Figures|Shipped|Reviews/);
    const unlinked = renderBriefing('telegram', renderOf(briefingOf(12), { origin: null }));
    expect(unlinked.map((message) => message.text).join('\n')).not.toMatch(/<a |https?:/);
  });
});
