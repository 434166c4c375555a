import { sendgridDocumented as documented } from '@dash/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { documentedContext, serveDocumented, type DocumentedAnswer } from '../documented-testing.ts';
import { sendgrid } from './index.ts';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function documentedSendGrid(scopes: DocumentedAnswer) {
  const server = await serveDocumented({ '/v3/scopes': scopes });
  close = () => server.close();
  return documentedContext(server.url);
}

describe('SendGrid credential test, on the examples of SendGrid’s API reference', () => {
  it('accepts the documented scopes, which include mail.send', async () => {
    await expect(sendgrid.test(await documentedSendGrid(documented.scopes))).resolves.toBeUndefined();
  });

  it('says the key was refused with the documented 401 message, whose field is null', async () => {
    await expect(sendgrid.test(await documentedSendGrid(documented.scopesUnauthorized))).rejects.toMatchObject({
      kind: 'auth',
      message: 'SendGrid rejected the credentials (401): authorization required',
    });
  });

  it('reads the documented 403, whose field is the string "null"', async () => {
    await expect(sendgrid.test(await documentedSendGrid(documented.scopesForbidden))).rejects.toMatchObject({
      kind: 'auth',
      message: 'SendGrid refused access (403): access forbidden',
    });
  });

  it('says a key without Mail Send lacks it, on documented scopes without mail.send', async () => {
    const withoutMailSend = { status: 200, body: { scopes: (documented.scopes.body as { scopes: string[] }).scopes.filter((scope) => scope !== 'mail.send') } };
    await expect(sendgrid.test(await documentedSendGrid(withoutMailSend))).rejects.toMatchObject({ kind: 'auth', message: expect.stringContaining('lacks the Mail Send permission') });
  });
});
