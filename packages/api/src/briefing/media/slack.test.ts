import { startSandbox, type Sandbox } from '@dash/sandbox';
import { testClock } from '@dash/connectors/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SlackAdapter } from '../../channels/slack/index.ts';
import { renderBriefing } from './index.ts';
import { SLACK_BLOCKS_MAX, SLACK_TEXT_BUDGET } from './slack.ts';
import { briefingOf, hostileBriefing, HOSTILE_NAME, leanBriefingOf, ORIGIN, renderOf } from './testing.ts';

// The briefing as Slack Block Kit, posted through the adapter's raw send to the fake Slack, which refuses what is over
// Block Kit's limits (50 blocks, a header's 150 characters, a section's 3,000, 10 fields of 2,000).

const clock = testClock(Date.UTC(2026, 10, 26, 7, 0));
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ now: () => clock.now() });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const slack = new SlackAdapter({ fetch, clock });
type Text = { type: string; text: string };
type Element = { type: string; text: string | Text; url?: string };
type Block = { type: string; text?: Text; fields?: Text[]; elements?: Element[]; accessory?: { url: string; text: Text } };
/** What Slack draws of a plain_text object: the three entities back to their characters. */
const shown = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const headers = (blocks: readonly Block[]) => blocks.filter((block) => block.type === 'header').map((block) => shown(block.text?.text ?? ''));
/** Every text object of the blocks: a block's text and fields, a context's elements, a button's label. */
const texts = (blocks: readonly Block[]): Text[] =>
  blocks.flatMap((block) => [
    ...(block.text ? [block.text] : []),
    ...(block.fields ?? []),
    ...(block.elements ?? []).map((element) => (typeof element.text === 'string' ? { type: element.type, text: element.text } : element.text)),
    ...(block.accessory ? [block.accessory.text] : []),
  ]);

describe('the briefing on Slack', () => {
  it('keeps twelve long-named products within 50 blocks, in order, names the rest with a button to the briefing, and Slack takes it', async () => {
    const briefing = leanBriefingOf(12);
    const payload = renderBriefing('slack', renderOf(briefing));
    const blocks = payload.blocks as Block[];
    // The blocks ran out, not the characters: one more product (a header, its parts and a divider) would pass 50.
    expect(blocks.length).toBeLessThanOrEqual(SLACK_BLOCKS_MAX);
    expect(blocks.length).toBeGreaterThan(SLACK_BLOCKS_MAX - 5);
    expect(JSON.stringify(blocks).length).toBeLessThan(SLACK_TEXT_BUDGET);
    // The first products, in the model's order, each under its own header.
    const named = headers(blocks).filter((name) => briefing.projects.some((project) => project.name === name));
    expect(named).toEqual(briefing.projects.slice(0, named.length).map((project) => project.name));
    expect(named.length).toBeLessThan(12);
    const last = blocks.at(-1);
    expect(last?.text?.text).toBe(`and ${12 - named.length} more products: open the briefing`);
    expect(last?.accessory?.url).toBe(`${ORIGIN}/briefing`);
    // Each product's page is a button on its first section; the fallback text is the summary.
    expect(blocks.some((block) => block.accessory?.url === `${ORIGIN}/briefing?project=product-1`)).toBe(true);
    expect(payload.text).toBe('Daily briefing · Thu 26 Nov: 2 need you · 12 products · MRR $155,400 (+8 %) · 12 shipped · 12 new reviews · 2 metric alerts');

    const hook = sandbox.createSlackWebhook('#founders');
    expect(await slack.sendRaw({ webhookUrl: hook.url }, payload)).toEqual({ kind: 'sent', status: 200, providerId: null });
    const [message] = sandbox.slackMessages();
    expect(message?.blocks).toEqual(payload.blocks);
    expect(message?.body).toMatchObject({ unfurl_links: false, unfurl_media: false });
  });

  it('keeps a briefing with much to say under the size Slack refuses, the rest named, and Slack takes it', async () => {
    const payload = renderBriefing('slack', renderOf(briefingOf(12)));
    const blocks = payload.blocks as Block[];
    expect(JSON.stringify(blocks).length).toBeLessThanOrEqual(SLACK_TEXT_BUDGET);
    expect(blocks.at(-1)?.text?.text).toMatch(/^and \d+ more products: open the briefing$/);
    const hook = sandbox.createSlackWebhook();
    expect((await slack.sendRaw({ webhookUrl: hook.url }, payload)).kind).toBe('sent');
  });

  it('shows what needs you and the metric alerts first, each line with a button to its page, and the history beside each figure', () => {
    const blocks = renderBriefing('slack', renderOf(briefingOf(2))).blocks as Block[];
    const all = texts(blocks).map((text) => shown(text.text));
    const at = (text: string) => all.findIndex((entry) => entry.includes(text));
    expect(at('Needs you')).toBeLessThan(at('● Formfox'));
    expect(at('● Formfox')).toBeLessThan(at('Metric alerts (2)'));
    expect(at('Metric alerts (2)')).toBeLessThan(at('• MRR $12,400 (+3 % vs same day last week)'));
    expect(blocks.find((block) => block.text?.text.startsWith('● Formfox'))?.accessory?.url).toBe(`${ORIGIN}/?project=product-1#widget-storefront`);
    expect(all.some((text) => text.includes('• Uptime 95.0 % (−5 % vs same day last week)\n'))).toBe(true);
    // A weekly briefing compares with the previous week and draws the week.
    const weekly = texts(renderBriefing('slack', renderOf(briefingOf(1), { period: 'week' })).blocks as Block[]).map((text) => shown(text.text));
    expect(weekly.some((text) => text.includes('• MRR $12,400 (+3 % vs previous week) ▁▂▃▄▅▇█\n'))).toBe(true);
  });

  it('keeps strangers’ text inert: every string of theirs in plain_text, escaped, and Slack draws it as written', async () => {
    const payload = renderBriefing('slack', renderOf(hostileBriefing()));
    const blocks = payload.blocks as Block[];
    const json = JSON.stringify(blocks);
    for (const sequence of ['<!channel>', '<b>', '<http']) expect(json).not.toContain(sequence);
    expect(json).not.toContain('mrkdwn');
    expect(texts(blocks).every((text) => text.type === 'plain_text')).toBe(true);
    expect(headers(blocks)).toContain(HOSTILE_NAME);
    expect(texts(blocks).map((text) => shown(text.text)).some((text) => text.includes(`Shipped (1)\n• ${HOSTILE_NAME} (`))).toBe(true);
    const hook = sandbox.createSlackWebhook();
    expect((await slack.sendRaw({ webhookUrl: hook.url }, payload)).kind).toBe('sent');
  });

  it('gives a destination only its parts, and no links without the dashboard’s address', () => {
    const needsOnly = renderBriefing('slack', renderOf(briefingOf(3), { parts: ['needs_you'] })).blocks as Block[];
    expect(headers(needsOnly)).toEqual(['Daily briefing · Thu 26 Nov', 'Needs you']);
    const reviewsOnly = texts(renderBriefing('slack', renderOf(briefingOf(1), { parts: ['reviews'] })).blocks as Block[]).map((text) => shown(text.text));
    expect(reviewsOnly.some((text) => text.startsWith('Reviews (4)\n• ★☆☆☆☆ Review 1'))).toBe(true);
    expect(reviewsOnly.join('\n')).not.toMatch(/Needs you|Metric alerts|MRR|Shipped/);
    const unlinked = renderBriefing('slack', renderOf(briefingOf(12), { origin: null }));
    expect(JSON.stringify(unlinked)).not.toMatch(/"url"|https?:/);
    expect((unlinked.blocks as Block[]).at(-1)?.text?.text).toMatch(/^and \d+ more products: open the briefing$/);
  });
});
