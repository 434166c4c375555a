import { describe, expect, it } from 'vitest';
import { testClock } from '@dash/connectors/testing';
import { sandboxEmail, sandboxTokens, sendgridDocumented as documented } from '@dash/sandbox';
import { deliveryTests } from '../testing/delivery.ts';
import { EmailRefusedError, sendEmail } from './sender.ts';

const { sandbox } = deliveryTests();

const email = { subject: 'Hi', text: 'Hi', html: '<p>Hi</p>' };
const send = () =>
  sendEmail({ apiKey: sandboxTokens.sendgrid, from: sandboxEmail.from, to: ['founder@example.com'], baseUrl: sandbox.services.sendgrid.url }, email, {
    clock: testClock(),
    attempts: 1,
  });

describe('sending through @sendgrid/mail, on the answers of SendGrid’s API reference', () => {
  it('reports each documented Mail Send refusal in SendGrid’s words, retrying only the server error', async () => {
    const refusals = [
      documented.mailSendBadRequest,
      documented.mailSendUnauthorized,
      documented.mailSendForbidden,
      documented.mailSendTooLarge,
      documented.mailSendServerError,
    ];
    for (const example of refusals) {
      sandbox.inject('sendgrid', { status: example.status, body: example.body, times: 1 });
      const error = await send().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmailRefusedError);
      const message = (example.body as { errors: { message: string }[] }).errors[0]?.message ?? '';
      expect(error).toMatchObject({ status: example.status, retryable: example.status >= 500, message: `SendGrid refused the email (${example.status}): ${message}` });
    }
  });

  it('returns the X-Message-Id the documented 202 carries', async () => {
    const { id } = await send();
    expect(id).toBe(sandbox.mails()[0]?.messageId);
    expect(id).toMatch(/\S/);
  });
});
