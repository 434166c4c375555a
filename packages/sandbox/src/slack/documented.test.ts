import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import type { FakeSlack } from './index.ts';
import { slackDocumented as documented, slackDocumentedErrorCodes, slackDocumentedRate, slackDocumentedRequests as requests } from './documented.ts';

// The fake Slack held to the requests and answers Slack's pages print (slack/documented.ts).

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const slack = () => sandbox.services.slack.harness.service as FakeSlack;
const post = (url: string, body: string, headers: Record<string, string> = { 'Content-type': 'application/json' }) => fetch(url, { method: 'POST', headers, body });
const answer = async (response: Response) => ({ status: response.status, body: await response.text() });

describe('the fake Slack answers as Slack’s incoming-webhook pages print', () => {
  it('takes the printed request (POST, Content-type: application/json, the two-line text) and answers 200', async () => {
    const hook = sandbox.createSlackWebhook();
    // The printed URL's shape: /services/T…/B…/<secret>.
    expect(new URL(requests.multiLine.endpoint.split(' ')[1] ?? '').pathname).toMatch(/^\/services\/T\w+\/B\w+\/\w+$/);
    expect(new URL(hook.url).pathname).toMatch(/^\/services\/T\w+\/B\w+\/\w+$/);
    const sent = await post(hook.url, JSON.stringify(requests.multiLine.body), requests.multiLine.headers);
    expect(await answer(sent)).toEqual({ status: 200, body: 'ok' });
    expect(sandbox.slackMessages().map((m) => m.text)).toEqual(['This is a line of text.\nAnd this is another one.']);
  });

  it('answers each printed error with its printed status and string', async () => {
    const hook = sandbox.createSlackWebhook();
    expect(await answer(await post(hook.url, '{"text": "unterminated'))).toEqual({ status: documented.invalidPayload.status, body: documented.invalidPayload.body });
    slack().archiveChannel(hook.id);
    expect(await answer(await post(hook.url, JSON.stringify(requests.multiLine.body)))).toEqual({ status: documented.channelIsArchived.status, body: documented.channelIsArchived.body });
    expect(sandbox.slackMessages()).toEqual([]);
  });

  it('answers a deleted webhook, a wrong secret and an empty message with codes the Handling errors list names', async () => {
    const hook = sandbox.createSlackWebhook();
    const secret = hook.url.split('/').pop() ?? '';
    const codes: string[] = [];
    codes.push((await answer(await post(hook.url, '{}'))).body);
    codes.push((await answer(await post(hook.url.replace(secret, 'wrongsecret'), JSON.stringify(requests.multiLine.body)))).body);
    sandbox.deleteSlackWebhook(hook.id);
    codes.push((await answer(await post(hook.url, JSON.stringify(requests.multiLine.body)))).body);
    expect(codes).toEqual(['no_text', 'invalid_token', 'no_service']);
    for (const code of codes) expect(Object.keys(slackDocumentedErrorCodes.codes)).toContain(code);
  });

  it('answers over about one message a second with the printed 429 and a Retry-After in seconds', async () => {
    const hook = sandbox.createSlackWebhook();
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 10 && !limited; i++) {
      const sent = await post(hook.url, JSON.stringify({ text: `message ${i}` }));
      statuses.push(sent.status);
      if (sent.status === documented.rateLimited.status) limited = sent;
    }
    // A short burst passes; sustained sending past one a second does not.
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(slackDocumentedRate.messagesPerSecond);
    expect(limited?.status).toBe(429);
    for (const name of documented.rateLimited.headerNames) expect(Number(limited?.headers.get(name))).toBeGreaterThanOrEqual(1);
  });
});
