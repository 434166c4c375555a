import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandboxEmail, sandboxTokens } from '../demo.ts';
import { holdToDescriptions } from '../contract/index.ts';
import { startSandbox, type Sandbox } from '../sandbox.ts';

let sandbox: Sandbox;
// Every request and answer is held to SendGrid's own description of Mail Send (tsg_mail_v3.json).
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const send = (body: unknown, key: string = sandboxTokens.sendgrid) =>
  fetch(`${sandbox.services.sendgrid.url}/v3/mail/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const mail = (patch: Record<string, unknown> = {}) => ({
  personalizations: [{ to: [{ email: 'founder@example.com' }] }],
  from: { email: sandboxEmail.from },
  subject: 'Hello',
  content: [
    { type: 'text/plain', value: 'Hi' },
    { type: 'text/html', value: '<p>Hi</p>' },
  ],
  ...patch,
});

describe('the fake SendGrid (v3 Mail Send)', () => {
  it('accepts a mail with 202, an empty body and X-Message-Id, and keeps what it received', async () => {
    const response = await send(mail());
    expect([response.status, await response.text()]).toEqual([202, '']);
    const id = response.headers.get('x-message-id');
    expect(id).toMatch(/^[\w-]{22}$/);
    expect(response.headers.get('x-ratelimit-remaining')).toBe('599');
    expect(sandbox.mails()).toMatchObject([{ messageId: id, to: ['founder@example.com'], subject: 'Hello', text: 'Hi', html: '<p>Hi</p>' }]);
  });

  it("answers SendGrid's error bodies: a wrong key, a malformed mail naming the field, an unverified sender", async () => {
    const errors = async (response: Response) => [response.status, ((await response.json()) as { errors: { field: string | null }[] }).errors[0]?.field];
    expect(await errors(await send(mail(), 'SG.wrong'))).toEqual([401, null]);
    expect(await errors(await send(mail({ personalizations: [] })))).toEqual([400, 'personalizations']);
    // An empty subject breaks the description on purpose: SendGrid's 400 for it is what is tested.
    expect(await errors(await observe.offDescription(() => send(mail({ subject: '' }))))).toEqual([400, 'subject']);
    expect(await errors(await send(mail({ content: [{ type: 'text/html', value: 'x' }, { type: 'text/plain', value: 'x' }] })))).toEqual([400, 'content']);
    expect(await errors(await send(mail({ from: { email: 'someone@elsewhere.example' } })))).toEqual([403, 'from']);
    expect(sandbox.mails()).toEqual([]);
  });

  it('lists the key’s scopes and answers 429 over its limit', async () => {
    const scopes = await fetch(`${sandbox.services.sendgrid.url}/v3/scopes`, { headers: { authorization: `Bearer ${sandboxTokens.sendgrid}` } });
    expect(await scopes.json()).toEqual({ scopes: ['mail.send', 'user.profile.read'] });
    // The scopes call counted too: one mail more fits, the next does not.
    sandbox.limit('sendgrid', { limit: 2, windowMs: 60_000 });
    expect((await send(mail())).status).toBe(202);
    const limited = await send(mail());
    expect([limited.status, limited.headers.get('x-ratelimit-remaining')]).toEqual([429, '0']);
  });
});
