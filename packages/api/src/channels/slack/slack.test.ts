import { startSandbox, type FakeSlack, type Sandbox } from '@dash/sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testClock } from '@dash/connectors/testing';
import { DEFAULT_RETRY_MS } from '../channel.ts';
import { channelMessage, HOSTILE_TEXT } from '../testing.ts';
import { escapeSlack, SlackAdapter } from './index.ts';

// The sandbox and the adapter share a clock that only a wait moves, so the pace tests are exact and instant.
const clock = testClock(Date.UTC(2026, 10, 28, 10, 0));
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ now: () => clock.now() });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const slack = new SlackAdapter({ fetch, clock });
const fakeSlack = () => sandbox.services.slack.harness.service as FakeSlack;
/** What a Slack client draws of a plain_text object: the three entities back to their characters, nothing formatted. */
const shown = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('Slack through an incoming webhook', () => {
  it('posts Block Kit as Slack documents it: a header, the body, the project and severity, a button to the thread, and the title as the fallback text', async () => {
    const hook = sandbox.createSlackWebhook('#ops');
    expect(await slack.send({ webhookUrl: hook.url }, channelMessage())).toEqual({ kind: 'sent', status: 200, providerId: null });
    const [request] = sandbox.requestsTo('slack');
    expect(request).toMatchObject({ method: 'POST', path: `/services/${hook.team}/${hook.id}/${hook.url.split('/').pop()}` });
    const [message] = sandbox.slackMessages();
    expect(message?.channel).toBe('#ops');
    expect(message?.body).toEqual({
      text: 'Monitor down: api.formfox.app',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Monitor down: api.formfox.app', emoji: false } },
        { type: 'section', text: { type: 'plain_text', text: 'Better Stack: the monitor api.formfox.app is down (connection timeout).', emoji: false } },
        {
          type: 'section',
          fields: [
            { type: 'plain_text', text: 'Project: formfox', emoji: false },
            { type: 'plain_text', text: 'Severity: Error', emoji: false },
          ],
        },
        {
          type: 'actions',
          elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in the dashboard', emoji: false }, url: 'https://dash.example.com/?notification=n_1' }],
        },
      ],
      unfurl_links: false,
      unfurl_media: false,
    });
  });

  it('keeps strangers’ text as text: no mention, link or formatting survives, and a reader sees exactly what was written', async () => {
    const hook = sandbox.createSlackWebhook();
    await slack.send({ webhookUrl: hook.url }, channelMessage({ title: HOSTILE_TEXT.slice(0, 60), body: HOSTILE_TEXT, project: '<!here>' }));
    const body = JSON.stringify(sandbox.slackMessages()[0]?.body);
    // Slack's control sequences all start with "<": none reaches it unescaped, nor does an unescaped "&".
    for (const sequence of ['<!channel>', '<!here>', '<@U024BE7LH>', '<#C024BE7LH>', '<https://evil.example|click>', '<b>']) expect(body).not.toContain(sequence);
    expect(body).not.toMatch(/&(?!amp;|lt;|gt;)/);
    // Every stranger's string sits in plain_text, which Slack does not format; what it draws is the original.
    const blocks = sandbox.slackMessages()[0]?.blocks as { type: string; text?: { type: string; text: string }; fields?: { type: string; text: string }[] }[];
    const texts = blocks.flatMap((block) => [...(block.text ? [block.text] : []), ...(block.fields ?? [])]);
    expect(texts.every((text) => text.type === 'plain_text')).toBe(true);
    expect(texts.map((text) => shown(text.text))).toEqual(expect.arrayContaining([HOSTILE_TEXT, 'Project: <!here>']));
    expect(escapeSlack('a & <b> > c')).toBe('a &amp; &lt;b&gt; &gt; c');
  });

  it('cuts what is over Block Kit’s limits, never inside an entity, so Slack takes it', async () => {
    const hook = sandbox.createSlackWebhook();
    const outcome = await slack.send({ webhookUrl: hook.url }, channelMessage({ title: '<'.repeat(400), body: '&'.repeat(5_000) }));
    expect(outcome.kind).toBe('sent');
    const blocks = sandbox.slackMessages()[0]?.blocks as { text?: { text: string } }[];
    expect(blocks[0]?.text?.text).toMatch(/^(&lt;){37}…$/);
    expect(blocks[1]?.text?.text.length).toBeLessThanOrEqual(3_000);
    expect(blocks[1]?.text?.text).toMatch(/(&amp;)+…$/);
  });

  it('tells a recovery in a new message that names its outage and how long it lasted (an incoming webhook cannot edit)', async () => {
    const hook = sandbox.createSlackWebhook();
    const recovery = channelMessage({
      kind: 'resolve',
      severity: 'success',
      title: 'Monitor up: api.formfox.app',
      body: 'Better Stack: the monitor api.formfox.app is up again.',
      recovers: { title: 'Monitor down: api.formfox.app', lastedMs: 12 * 60_000, providerId: null },
    });
    expect((await slack.send({ webhookUrl: hook.url }, recovery)).kind).toBe('sent');
    const blocks = sandbox.slackMessages()[0]?.blocks as { text?: { text: string }; fields?: { text: string }[] }[];
    expect(blocks[1]?.text?.text).toBe('Better Stack: the monitor api.formfox.app is up again.\nEnds: Monitor down: api.formfox.app (down 12 min)');
    expect(blocks[2]?.fields?.map((field) => field.text)).toContain('Severity: Recovered');
  });

  it('answers a deleted webhook and an archived channel as gone, a wrong secret as refused, with Slack’s words and never the URL', async () => {
    const hook = sandbox.createSlackWebhook();
    const secret = hook.url.split('/').pop() ?? '';
    const wrong = await slack.send({ webhookUrl: hook.url.replace(secret, 'x'.repeat(24)) }, channelMessage());
    expect(wrong).toEqual({ kind: 'refused', status: 403, reason: 'Slack answered 403: invalid_token' });
    fakeSlack().archiveChannel(hook.id);
    expect(await slack.send({ webhookUrl: hook.url }, channelMessage())).toEqual({ kind: 'gone', status: 410, reason: 'Slack answered 410: channel_is_archived' });
    sandbox.deleteSlackWebhook(hook.id);
    const gone = await slack.send({ webhookUrl: hook.url }, channelMessage());
    expect(gone).toEqual({ kind: 'gone', status: 404, reason: 'Slack answered 404: no_service' });
    expect(JSON.stringify([wrong, gone])).not.toContain(secret);
    expect(sandbox.slackMessages()).toEqual([]);
  });

  it('keeps a webhook’s pace, one message a second, so that a burst waits its turn instead of meeting Slack’s 429', async () => {
    const hook = sandbox.createSlackWebhook();
    const started = clock.now();
    for (let i = 0; i < 7; i++) expect((await slack.send({ webhookUrl: hook.url }, channelMessage({ title: `p${i}` }))).kind, `message ${i}`).toBe('sent');
    expect(sandbox.slackMessages()).toHaveLength(7);
    expect(clock.now() - started).toBe(6_000);
    // Another webhook keeps its own pace: it goes at once.
    const other = sandbox.createSlackWebhook();
    expect((await slack.send({ webhookUrl: other.url }, channelMessage())).kind).toBe('sent');
    expect(clock.now() - started).toBe(6_000);
    // A pace that would keep a send waiting past the cap answers retry instead, and sends nothing.
    const hurried = new SlackAdapter({ fetch, clock, maxPaceWaitMs: 500 });
    expect((await hurried.send({ webhookUrl: other.url }, channelMessage())).kind).toBe('sent');
    expect(await hurried.send({ webhookUrl: other.url }, channelMessage())).toMatchObject({ kind: 'retry', status: null, afterMs: 1_000 });
    expect(sandbox.slackMessages()).toHaveLength(9);
  });

  it('answers Slack’s own 429 (another process sent meanwhile) as a retry after its Retry-After', async () => {
    const hook = sandbox.createSlackWebhook();
    // Another dashboard process's five messages, straight to Slack.
    for (let i = 0; i < 5; i++) await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: `other ${i}` }) });
    clock.advance(2_000);
    expect(await slack.send({ webhookUrl: hook.url }, channelMessage())).toEqual({ kind: 'retry', status: 429, afterMs: 3_000, reason: 'Slack answered 429: rate_limited' });
  });

  it('retries a Slack that cannot be reached or fails (5xx), and refuses a webhook on a link-local address without asking', async () => {
    const down = await slack.send({ webhookUrl: 'http://127.0.0.1:9/services/T1/B1/secretsecret' }, channelMessage());
    expect(down).toEqual({ kind: 'retry', status: null, afterMs: DEFAULT_RETRY_MS, reason: 'Slack could not be reached' });
    const hook = sandbox.createSlackWebhook();
    sandbox.inject('slack', { status: 503, times: 1 });
    expect(await slack.send({ webhookUrl: hook.url }, channelMessage())).toMatchObject({ kind: 'retry', status: 503, afterMs: DEFAULT_RETRY_MS });
    const metadata = await slack.send({ webhookUrl: 'http://169.254.169.254/services/T1/B1/secret' }, channelMessage());
    expect(metadata.kind).toBe('refused');
    expect(JSON.stringify(metadata)).not.toContain('secret');
  });
});
