import { z } from 'zod';
import type { ServiceConnector } from '../connector.ts';
import { ConnectorError } from '../errors.ts';
import { defineClient } from '../http.ts';

/** SendGrid's error body: `{ errors: [{ message, field, help }] }`. */
export const sendgridErrorBody = z.object({ errors: z.array(z.object({ message: z.string(), field: z.string().nullish() })).min(1) });

const client = defineClient({
  service: 'SendGrid',
  headers: (credentials) => ({ authorization: `Bearer ${credentials.apiKey ?? ''}` }),
  errorMessage(body) {
    const parsed = sendgridErrorBody.safeParse(body);
    return parsed.success ? parsed.data.errors.map((error) => error.message).join('; ') : undefined;
  },
});

const scopes = z.object({ scopes: z.array(z.string()) });

/**
 * SendGrid, for email alerts. Mail goes out through `@sendgrid/mail` (the api's alert sender); the connector is
 * the credential test: `GET /v3/scopes` proves the key and that it may send mail, without sending any.
 */
export const sendgrid: ServiceConnector = {
  service: 'sendgrid',
  defaultBaseUrl: 'https://api.sendgrid.com',

  async test(ctx) {
    const { scopes: granted } = await client.get(ctx, '/v3/scopes', {}, scopes);
    if (!granted.includes('mail.send')) {
      throw new ConnectorError('auth', 'SendGrid accepted the key, but it lacks the Mail Send permission: give it "Mail Send" (or Full Access) in Settings → API Keys');
    }
  },
};
