import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../sandbox.ts';

// What a Slack channel's connector relies on from the fake incoming webhooks, beyond the printed examples.

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const answer = async (response: Response) => [response.status, response.headers.get('content-type'), await response.text()];

const blocks = [
  { type: 'header', text: { type: 'plain_text', text: 'Monitor down: api' } },
  { type: 'section', fields: [{ type: 'mrkdwn', text: '*Project*\nformfox' }] },
  { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open thread' }, url: 'https://example.com/t/1' }] },
];

describe('the fake Slack (incoming webhooks)', () => {
  it('posts Block Kit with its fallback text to the webhook’s channel, answering ok as text/plain', async () => {
    const hook = sandbox.createSlackWebhook('#ops');
    expect(await answer(await post(hook.url, { text: 'Monitor down: api', blocks }))).toEqual([200, 'text/plain; charset=utf-8', 'ok']);
    expect(sandbox.slackMessages()).toMatchObject([{ webhookId: hook.id, channel: '#ops', text: 'Monitor down: api', blocks }]);
  });

  it('refuses an empty message (no_text) and a block without a type (invalid_blocks)', async () => {
    const hook = sandbox.createSlackWebhook();
    expect(await answer(await post(hook.url, {}))).toEqual([400, 'text/plain; charset=utf-8', 'no_text']);
    expect((await answer(await post(hook.url, { text: 'x', blocks: [{ text: 'no type' }] })))[2]).toBe('invalid_blocks');
    expect(sandbox.slackMessages()).toEqual([]);
  });

  it('refuses blocks over Block Kit’s limits (invalid_blocks): a header over 150 characters, a section’s text over 3,000, 11 fields, a field over 2,000', async () => {
    const hook = sandbox.createSlackWebhook();
    const text = (size: number) => ({ type: 'plain_text', text: 'x'.repeat(size) });
    const within = [{ type: 'header', text: text(150) }, { type: 'section', text: text(3_000) }, { type: 'section', fields: Array.from({ length: 10 }, () => text(2_000)) }];
    expect((await answer(await post(hook.url, { text: 'x', blocks: within })))[0]).toBe(200);
    for (const block of [{ type: 'header', text: text(151) }, { type: 'section', text: text(3_001) }, { type: 'section', fields: Array.from({ length: 11 }, () => text(1)) }, { type: 'section', fields: [text(2_001)] }]) {
      expect(await answer(await post(hook.url, { text: 'x', blocks: [block] }))).toEqual([400, 'text/plain; charset=utf-8', 'invalid_blocks']);
    }
    expect((await answer(await post(hook.url, { text: 'x', blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) })))[2]).toBe('invalid_blocks');
    expect(sandbox.slackMessages()).toHaveLength(1);
  });

  it('answers a wrong secret 403 invalid_token, and a deleted webhook 404 no_service', async () => {
    const hook = sandbox.createSlackWebhook();
    const secret = hook.url.split('/').pop() ?? '';
    expect((await answer(await post(hook.url.replace(secret, 'wrongsecret'), { text: 'x' })))).toEqual([403, 'text/plain; charset=utf-8', 'invalid_token']);
    sandbox.deleteSlackWebhook(hook.id);
    expect(await answer(await post(hook.url, { text: 'x' }))).toEqual([404, 'text/plain; charset=utf-8', 'no_service']);
  });

  it('keeps each webhook’s own pace: another webhook posts while one is limited', async () => {
    const hook = sandbox.createSlackWebhook();
    const other = sandbox.createSlackWebhook();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(hook.url, { text: `m${i}` })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await post(other.url, { text: 'fine' })).status).toBe(200);
  });
});
