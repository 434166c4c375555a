import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandboxEmail, sandboxTokens } from '../demo.ts';
import { shapeDifferences, type DocumentedExample } from '../documented.ts';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import { sendgridDocumented as documented, sendgridErrorItemKeys } from './documented.ts';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const call = (path: string, init: { key?: string; body?: unknown } = {}) =>
  fetch(`${sandbox.services.sendgrid.url}${path}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${init.key ?? sandboxTokens.sendgrid}`, 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

const mail = (patch: Record<string, unknown> = {}) => ({
  personalizations: [{ to: [{ email: 'founder@example.com' }] }],
  from: { email: sandboxEmail.from },
  subject: 'Hello',
  content: [{ type: 'text/plain', value: 'Hi' }],
  ...patch,
});

/**
 * How a fake error answer differs from a documented one, beyond keys SendGrid's ErrorResponse schema
 * declares though its examples leave them out (`help`).
 */
async function errorDifferences(response: Response, example: DocumentedExample): Promise<string[]> {
  expect(response.status).toBe(example.status);
  const declared = new Set(sendgridErrorItemKeys.map((key) => `$.errors[0].${key}: not documented`));
  return shapeDifferences(example.body, await response.json()).filter((difference) => !declared.has(difference));
}

describe('the fake SendGrid answers as SendGrid’s API reference prints', () => {
  it('accepts a mail with 202, no body and the X-Message-Id header', async () => {
    const response = await call('/v3/mail/send', { body: mail() });
    expect([response.status, await response.text()]).toEqual([documented.mailSendAccepted.status, '']);
    for (const name of documented.mailSendAccepted.headerNames) expect(response.headers.get(name)).toMatch(/\S/);
  });

  it('refuses a malformed mail, a wrong key and an unverified sender in the documented error shape', async () => {
    expect(await errorDifferences(await call('/v3/mail/send', { body: mail({ personalizations: [] }) }), documented.mailSendBadRequest)).toEqual([]);
    expect(await errorDifferences(await call('/v3/mail/send', { body: mail(), key: 'SG.wrong' }), documented.mailSendUnauthorized)).toEqual([]);
    const stranger = mail({ from: { email: 'someone@elsewhere.example' } });
    expect(await errorDifferences(await call('/v3/mail/send', { body: stranger }), documented.mailSendForbidden)).toEqual([]);
    expect(await errorDifferences(await call('/v3/mail/send', { body: mail({ subject: '' }) }), documented.errorFormat)).toEqual([]);
    expect(sandbox.mails()).toEqual([]);
  });

  it('gives each error item only the properties SendGrid’s error schema declares: message, field and help', async () => {
    const response = await call('/v3/mail/send', { body: mail({ content: [] }) });
    const { errors } = (await response.json()) as { errors: Record<string, unknown>[] };
    for (const item of errors) {
      expect(Object.keys(item).every((key) => (sendgridErrorItemKeys as readonly string[]).includes(key))).toBe(true);
      expect(typeof item.message).toBe('string');
      expect(item.field === null || typeof item.field === 'string').toBe(true);
    }
  });

  it('lists the key’s scopes as documented, and refuses a wrong key there in the documented shape', async () => {
    const scopes = await call('/v3/scopes');
    expect(scopes.status).toBe(200);
    expect(shapeDifferences(documented.scopes.body, await scopes.json())).toEqual([]);
    expect(await errorDifferences(await call('/v3/scopes', { key: 'SG.wrong' }), documented.scopesUnauthorized)).toEqual([]);
  });
});
