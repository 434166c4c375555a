import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { holdToDescriptions } from '../contract/index.ts';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import type { FakeDiscord } from './index.ts';

// The fake Discord's incoming webhooks, every request and answer held to Discord's own OpenAPI description.

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const discord = () => sandbox.services.discord.harness.service as FakeDiscord;
const webhook = () => discord().createWebhook(sandbox.services.discord.url);
const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const embed = { title: 'Monitor down: api', description: 'Better Stack', color: 0xd93025, fields: [{ name: 'Project', value: 'formfox', inline: true }] };

describe('the fake Discord (incoming webhooks)', () => {
  it('posts a message with ?wait=true and answers it with its id, which an edit changes in place', async () => {
    const hook = webhook();
    const sent = await post(`${hook.url}?wait=true`, { content: '', embeds: [embed], allowed_mentions: { parse: [] } });
    expect(sent.status).toBe(200);
    const message = (await sent.json()) as { id: string; embeds: unknown[]; webhook_id: string; edited_timestamp: string | null };
    expect(message).toMatchObject({ webhook_id: hook.id, edited_timestamp: null, embeds: [{ type: 'rich', ...embed }] });
    expect(message.id).toMatch(/^[1-9][0-9]*$/);
    expect(sent.headers.get('x-ratelimit-bucket')).toBe(`webhook-${hook.id}`);
    expect(discord().messages.map((m) => m.allowedMentions)).toEqual([{ parse: [] }]);

    const edited = await fetch(`${hook.url}/messages/${message.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ embeds: [{ ...embed, title: 'Monitor up: api', color: 0x188038 }] }),
    });
    expect(edited.status).toBe(200);
    expect(await edited.json()).toMatchObject({ id: message.id, embeds: [{ title: 'Monitor up: api' }], edited_timestamp: expect.any(String) });
    expect(discord().messages).toHaveLength(1);
    const read = (await (await fetch(`${hook.url}/messages/${message.id}`)).json()) as { embeds: { title: string }[] };
    expect(read.embeds[0]?.title).toBe('Monitor up: api');
  });

  it('answers 204 without ?wait, and refuses an empty message (50006)', async () => {
    const hook = webhook();
    expect((await post(hook.url, { content: 'Deploy failed' })).status).toBe(204);
    const empty = await observe.offDescription(() => post(hook.url, {}));
    expect([empty.status, await empty.json()]).toEqual([400, { code: 50006, message: 'Cannot send an empty message' }]);
  });

  it('answers a wrong token 401 (50027), a deleted webhook 404 (10015) and an unknown message 404 (10008)', async () => {
    const hook = webhook();
    const wrong = await post(hook.url.replace(hook.token, 'not-the-token'), { content: 'x' });
    expect([wrong.status, await wrong.json()]).toEqual([401, { code: 50027, message: 'Invalid Webhook Token' }]);
    const unknown = await fetch(`${hook.url}/messages/1234567890`);
    expect([unknown.status, await unknown.json()]).toEqual([404, { code: 10008, message: 'Unknown Message' }]);
    discord().deleteWebhook(hook.id);
    const gone = await post(hook.url, { content: 'x' });
    expect([gone.status, await gone.json()]).toEqual([404, { code: 10015, message: 'Unknown Webhook' }]);
  });

  it('holds a message to the embed limits: each field’s length, and 6,000 characters across its embeds', async () => {
    const hook = webhook();
    // Three embeds of 2,000 characters each are 6,000: taken; one more character across them is not.
    const of = (size: number) => ({ title: 'x'.repeat(200), description: 'y'.repeat(size - 200) });
    expect((await post(hook.url, { embeds: [of(2_000), of(2_000), of(2_000)] })).status).toBe(204);
    const over = await post(hook.url, { embeds: [of(2_000), of(2_000), of(2_001)] });
    expect([over.status, await over.json()]).toEqual([400, { code: 50035, message: 'Invalid Form Body: embeds: Embed size exceeds maximum size of 6000' }]);
    // A title of 257 breaks the description's own maxLength too: sent on purpose.
    const title = await observe.offDescription(() => post(hook.url, { embeds: [{ title: 't'.repeat(257) }] }));
    expect([title.status, await title.json()]).toEqual([400, { code: 50035, message: 'Invalid Form Body: embeds.0.title: Must be 256 or fewer in length.' }]);
    const field = await observe.offDescription(() => post(hook.url, { embeds: [{ title: 'ok', fields: [{ name: 'n', value: 'v'.repeat(1_025) }] }] }));
    expect((await field.json()) as unknown).toEqual({ code: 50035, message: 'Invalid Form Body: embeds.0.fields.0.value: Must be 1024 or fewer in length.' });
    expect(discord().messages).toHaveLength(1);
  });

  it('keeps each webhook’s own bucket of five requests in two seconds, and answers over it 429 with retry_after', async () => {
    const hook = webhook();
    const other = webhook();
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await post(hook.url, { content: `message ${i}` }));
    expect(answers.map((answer) => answer.status)).toEqual([204, 204, 204, 204, 204, 429]);
    expect(answers[4]?.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = answers[5];
    const body = (await limited?.json()) as { retry_after: number; global: boolean; message: string };
    expect(body).toMatchObject({ message: 'You are being rate limited.', global: false });
    expect(body.retry_after).toBeGreaterThan(0);
    expect(body.retry_after).toBeLessThanOrEqual(2);
    expect(Number(limited?.headers.get('x-ratelimit-reset-after'))).toBeCloseTo(body.retry_after, 2);
    // Another webhook has a bucket of its own.
    expect((await post(other.url, { content: 'fine' })).status).toBe(204);
  });
});
