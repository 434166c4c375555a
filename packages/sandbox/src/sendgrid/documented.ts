/**
 * SendGrid's own example answers for what we call (v3 Mail Send through `@sendgrid/mail`, and the key
 * check `GET /v3/scopes`), copied from its API reference. The fake reproduces their shape and the
 * connector is tested against them as printed. The reference pages are generated from SendGrid's
 * OpenAPI files in twilio/sendgrid-oai; where the text was read there, `source` says which file, at
 * commit dbe0e0d.
 */
import type { DocumentedExample } from '../documented.ts';

const mailSend = 'https://www.twilio.com/docs/sendgrid/api-reference/mail-send/mail-send';
const mailSendSource = 'spec/json/tsg_mail_v3.json, responses PostMailSend4xx/500';
const scopes = 'https://www.twilio.com/docs/sendgrid/api-reference/api-key-permissions/retrieve-a-list-of-scopes-for-which-this-user-has-access';
const scopesSource = 'spec/json/tsg_scopes_v3.json, GET /v3/scopes';

/** A Mail Send refusal as the reference prints it: `field` is the string "null" there, not null. */
const refusal = (status: number, message: string): DocumentedExample => ({
  endpoint: 'POST /v3/mail/send',
  url: mailSend,
  source: mailSendSource,
  status,
  body: JSON.parse(String.raw`{ "errors": [{ "message": "${message}", "field": "null" }] }`) as unknown,
});

export const sendgridDocumented = {
  /** "202 Accepted" with no content; the X-Message-ID page says the answer carries that header. */
  mailSendAccepted: {
    endpoint: 'POST /v3/mail/send',
    url: mailSend,
    source: `${mailSendSource}; header: https://www.twilio.com/docs/sendgrid/glossary/x-message-id`,
    status: 202,
    body: undefined,
    headerNames: ['X-Message-Id'],
  },
  mailSendBadRequest: refusal(400, 'invalid request'),
  mailSendUnauthorized: refusal(401, 'authorization required'),
  mailSendForbidden: refusal(403, 'access forbidden'),
  mailSendNotFound: refusal(404, 'not found'),
  mailSendMethodNotAllowed: refusal(405, 'method not allowed'),
  mailSendTooLarge: refusal(413, 'content too large'),
  /** The 500 example alone has no `field`. */
  mailSendServerError: {
    endpoint: 'POST /v3/mail/send',
    url: mailSend,
    source: mailSendSource,
    status: 500,
    body: JSON.parse(String.raw`{ "errors": [{ "message": "internal server error" }] }`) as unknown,
  },

  /** The general error format every v3 endpoint answers in. */
  errorFormat: {
    endpoint: 'GET /v3/resource',
    url: 'https://www.twilio.com/docs/sendgrid/api-reference/how-to-use-the-sendgrid-v3-api/errors',
    status: 400,
    body: JSON.parse(String.raw`{
      "errors": [
        {"field": "identifier1", "message": "error message explained"},
        {"field": "identifier2", "message": "error message explained"},
        {"field": "identifier3", "message": "error message explained"}
      ]
    }`) as unknown,
    partial: 'the page prints a comma after the third error, which JSON does not allow; that comma is left out',
  },

  scopes: {
    endpoint: 'GET /v3/scopes',
    url: scopes,
    source: scopesSource,
    status: 200,
    body: JSON.parse(String.raw`{ "scopes": ["mail.send", "alerts.create", "alerts.read"] }`) as unknown,
  },
  /** Here `field` is a real null. */
  scopesUnauthorized: {
    endpoint: 'GET /v3/scopes',
    url: scopes,
    source: scopesSource,
    status: 401,
    body: JSON.parse(String.raw`{ "errors": [{ "field": null, "message": "authorization required" }] }`) as unknown,
  },
  scopesForbidden: {
    endpoint: 'GET /v3/scopes',
    url: scopes,
    source: `${scopesSource} (response GetScopes403)`,
    status: 403,
    body: JSON.parse(String.raw`{ "errors": [{ "message": "access forbidden", "field": "null" }] }`) as unknown,
  },
} satisfies Record<string, DocumentedExample>;

/**
 * The properties SendGrid's `ErrorResponse` schema gives an error item: `help` ("helper text or a link")
 * is in the schema though no example prints it.
 */
export const sendgridErrorItemKeys = ['message', 'field', 'help'] as const;
