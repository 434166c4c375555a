import { startSandbox, type FakeDiscord, type Sandbox } from '@dash/sandbox';
import { holdToDescriptions } from '@dash/sandbox/contract';
import { testClock } from '@dash/connectors/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DiscordAdapter } from '../../channels/discord/index.ts';
import { DISCORD_EMBEDS_MAX, DISCORD_MESSAGE_CHARS_MAX } from './discord.ts';
import { renderBriefing } from './index.ts';
import { briefingOf, hostileBriefing, HOSTILE_NAME, leanBriefingOf, ORIGIN, renderOf } from './testing.ts';

// The briefing as Discord embeds, posted in order through the adapter's raw send to the fake Discord, which refuses a
// message over the embed limits (10 embeds, 6,000 characters across them, each field's length); every request is
// also held to Discord's own OpenAPI description.

const clock = testClock(Date.UTC(2026, 10, 26, 7, 0));
const guard = holdToDescriptions();
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ now: () => clock.now(), observe: guard });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const discord = () => sandbox.services.discord.harness.service as FakeDiscord;
const adapter = new DiscordAdapter({ fetch, clock });
type Embed = { title: string; url?: string; description?: string; color: number; fields?: { name: string; value: string }[] };
const embedsOf = (payload: { embeds: readonly Record<string, unknown>[] }) => payload.embeds as Embed[];
const size = (embed: Embed) => [...embed.title].length + [...(embed.description ?? '')].length + (embed.fields ?? []).reduce((sum, field) => sum + field.name.length + field.value.length, 0);
/** What Discord draws of escaped Markdown: each backslash-escaped punctuation character as itself. */
const shown = (text: string) => text.replace(/\\([^A-Za-z0-9\s])/g, '$1');
/** The characters in `text` that would format, link or mention because no backslash escapes them. */
function unescaped(text: string): string[] {
  const found: string[] = [];
  for (let at = 0; at < text.length; at++) {
    const char = text[at] ?? '';
    if (char === '\\') at++;
    else if ('*_~`|<>[]()#'.includes(char)) found.push(char);
  }
  return found;
}

describe('the briefing on Discord', () => {
  it('splits twelve long-named products into messages of at most 10 embeds and 6,000 characters, posted in order and taken', async () => {
    const briefing = briefingOf(12);
    const messages = renderBriefing('discord', renderOf(briefing));
    expect(messages.length).toBeGreaterThanOrEqual(2);
    for (const message of messages) {
      expect(message.embeds.length).toBeLessThanOrEqual(DISCORD_EMBEDS_MAX);
      expect(embedsOf(message).reduce((sum, embed) => sum + size(embed), 0)).toBeLessThanOrEqual(DISCORD_MESSAGE_CHARS_MAX);
    }
    // 13 embeds would be two messages of 10 and 3: the 6,000 characters made it more.
    expect(messages.length).toBeGreaterThan(2);
    const titles = messages.flatMap((message) => embedsOf(message).map((embed) => shown(embed.title)));
    expect(titles).toEqual(['Daily briefing · Thu 26 Nov', ...briefing.projects.map((project) => project.name)]);

    const hook = discord().createWebhook(sandbox.services.discord.url);
    const outcome = await adapter.sendRawInOrder({ webhookUrl: hook.url }, messages);
    expect(outcome).toMatchObject({ sent: messages.length, total: messages.length, stopped: null });
    expect(outcome.providerIds).toEqual(discord().messages.map((message) => message.id));
    expect(discord().messages.flatMap((message) => message.embeds.map((embed) => shown(String(embed.title))))).toEqual(titles);
    expect(discord().messages.every((message) => JSON.stringify(message.allowedMentions) === '{"parse":[]}')).toBe(true);
  });

  it('puts ten embeds in a message when they are small, the eleventh in the next', async () => {
    const briefing = leanBriefingOf(12);
    const messages = renderBriefing('discord', renderOf(briefing));
    expect(messages.map((message) => message.embeds.length)).toEqual([10, 3]);
    const hook = discord().createWebhook(sandbox.services.discord.url);
    expect((await adapter.sendRawInOrder({ webhookUrl: hook.url }, messages)).stopped).toBeNull();
    expect(discord().messages.flatMap((message) => message.embeds.map((embed) => shown(String(embed.title))))).toEqual(['Daily briefing · Thu 26 Nov', ...briefing.projects.map((project) => project.name)]);
  });

  it('opens with what needs you and the metric alerts, links each to its page, and gives each product its page, colour and parts', () => {
    const [first] = renderBriefing('discord', renderOf(briefingOf(2)));
    const [head, product] = first ? embedsOf(first) : [];
    expect(head?.url).toBe(`${ORIGIN}/briefing`);
    expect(head?.description).toContain('**Needs you**\n• ● Formfox — the long\\-named edition');
    expect(head?.description).toContain(`([open](${ORIGIN}/?project=product-1#widget-storefront))`);
    expect(head?.description).toContain('**Metric alerts \\(2\\)**');
    expect(product?.url).toBe(`${ORIGIN}/briefing?project=product-1`);
    expect(product?.description).toContain('• MRR $12,400 \\(+3 % vs same day last week\\)');
    expect(product?.fields?.map((field) => field.name)).toEqual(['Shipped \\(6\\)', 'Reviews \\(4\\)']);
    expect(product?.fields?.[0]?.value.split('\n')).toHaveLength(6);
  });

  it('keeps strangers’ text inert: escaped Markdown, no mention allowed, and Discord takes it', async () => {
    const messages = renderBriefing('discord', renderOf(hostileBriefing()));
    const embeds = messages.flatMap(embedsOf);
    const strangers = embeds.flatMap((embed) => [embed.title, ...(embed.description ?? '').split('\n'), ...(embed.fields ?? []).flatMap((field) => field.value.split('\n'))]);
    // Only our own Markdown remains: the section headings' bold and the [open](…) links.
    const ours = (line: string) => line.replace(/^\*\*.*\*\*$/, '').replace(/ \(\[open\]\([^)\s]+\)\)$/, '');
    expect(strangers.flatMap((line) => unescaped(ours(line)))).toEqual([]);
    expect(embeds.map((embed) => shown(embed.title))).toContain(HOSTILE_NAME);
    expect(strangers.some((line) => shown(line).includes(`• ★☆☆☆☆ ${HOSTILE_NAME} (DE)`))).toBe(true);
    const hook = discord().createWebhook(sandbox.services.discord.url);
    expect((await adapter.sendRawInOrder({ webhookUrl: hook.url }, messages)).stopped).toBeNull();
  });

  it('gives a destination only its parts, no links without the dashboard’s address, and reports how far a refused sequence got', async () => {
    const needsOnly = renderBriefing('discord', renderOf(briefingOf(12), { parts: ['needs_you'] }));
    expect(needsOnly.flatMap(embedsOf).map((embed) => embed.title)).toEqual(['Daily briefing · Thu 26 Nov']);
    const shippedOnly = renderBriefing('discord', renderOf(briefingOf(1), { parts: ['shipped'] })).flatMap(embedsOf);
    expect(shippedOnly[1]?.description).toBeUndefined();
    expect(shippedOnly[1]?.fields?.map((field) => field.name)).toEqual(['Shipped \\(6\\)']);
    const unlinked = renderBriefing('discord', renderOf(briefingOf(12), { origin: null }));
    expect(JSON.stringify(unlinked)).not.toMatch(/"url"|https?:|\]\(/);

    // The webhook is deleted in Discord after the first message went: the rest stop there, and the outcome says so.
    const hook = discord().createWebhook(sandbox.services.discord.url);
    const messages = renderBriefing('discord', renderOf(briefingOf(12)));
    let calls = 0;
    const deleting: typeof fetch = (url, init) => {
      if (++calls === 2) discord().deleteWebhook(hook.id);
      return fetch(url, init);
    };
    const outcome = await new DiscordAdapter({ fetch: deleting, clock }).sendRawInOrder({ webhookUrl: hook.url }, messages);
    expect(outcome).toMatchObject({ sent: 1, total: messages.length, stopped: { kind: 'gone', status: 404 } });
    expect(outcome.providerIds).toEqual([discord().messages[0]?.id]);
    expect(discord().messages).toHaveLength(1);
  });
});
