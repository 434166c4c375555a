import { randomBytes } from 'node:crypto';
import { sandboxEmail, sandboxTokens } from '../demo.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';

/** One email as the fake received it: the parts a test asserts, after SendGrid's own checks passed. */
export interface ReceivedMail {
  messageId: string;
  from: string;
  to: string[];
  subject: string;
  /** The `text/plain` part. */
  text: string;
  /** The `text/html` part, as sent (a test asserts its escaping). */
  html: string;
  /** Other headers (`In-Reply-To`, `References`) and categories, as given. */
  headers: Record<string, string>;
  categories: string[];
  at: number;
}

/** The fake SendGrid: its `SandboxService` and the mails it accepted, oldest first. */
export interface FakeSendGrid extends SandboxService {
  mails: ReceivedMail[];
}

/**
 * SendGrid's error body: `{ errors: [{ message, field }] }`. Its description's `help` is an object "when
 * applicable" (never null), and no refusal we meet has one, so the fake leaves it out.
 */
export const sendgridError = (status: number, message: string, field: string | null = null): SandboxReply => ({
  status,
  body: { errors: [{ message, field }] },
});

const UNVERIFIED =
  'The from address does not match a verified Sender Identity. Mail cannot be sent until this error is resolved. ' +
  'Visit https://sendgrid.com/docs/for-developers/sending-email/sender-identity/ to see the Sender Identity requirements';

interface Address {
  email?: unknown;
  name?: unknown;
}
interface MailBody {
  personalizations?: { to?: Address[]; subject?: unknown; headers?: Record<string, unknown> }[];
  from?: Address;
  subject?: unknown;
  content?: { type?: unknown; value?: unknown }[];
  headers?: Record<string, unknown>;
  categories?: unknown[];
}

const isEmail = (value: unknown): value is string => typeof value === 'string' && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);

/**
 * SendGrid's v3 Mail Send (`POST /v3/mail/send`) and the key check (`GET /v3/scopes`), as the real API answers:
 * a bearer key; 202 with an empty body and `X-Message-Id`; 400 naming the field for a malformed mail; 403 for a
 * sender that is not a verified Sender Identity (only `sandboxEmail.from` is); 429 over its limit with
 * `X-RateLimit-*` headers. Research: upstream-apis.md §11.
 */
export function sendgridService(now: number): FakeSendGrid {
  const mails: ReceivedMail[] = [];
  void now;
  return {
    name: 'sendgrid',
    basePath: '',
    mails,
    authorize: (request) => request.headers.authorization === `Bearer ${sandboxTokens.sendgrid}`,
    unauthorized: () => sendgridError(401, 'The provided authorization grant is invalid, expired, or revoked'),
    rateLimit: {
      limit: 600,
      windowMs: 60_000,
      headers: ({ limit, used, resetAt }) => ({
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(Math.max(0, limit - used)),
        'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
      }),
      tooMany: () => sendgridError(429, 'too many requests'),
    },
    routes: [
      { method: 'GET', path: '/v3/scopes', handle: () => ({ body: { scopes: ['mail.send', 'user.profile.read'] } }) },
      {
        method: 'POST',
        path: '/v3/mail/send',
        handle: (request: SandboxRequest): SandboxReply => {
          if (typeof request.body !== 'object' || request.body === null) return sendgridError(400, 'Bad Request', null);
          const mail = request.body as MailBody;
          const personalization = mail.personalizations?.[0];
          const to = personalization?.to ?? [];
          if (!personalization || to.length === 0) {
            return sendgridError(400, 'The personalizations field is required and must have at least one personalization.', 'personalizations');
          }
          if (!to.every((address) => isEmail(address.email))) return sendgridError(400, 'Does not contain a valid address.', 'personalizations.0.to');
          if (!isEmail(mail.from?.email)) return sendgridError(400, 'The from email does not contain a valid address.', 'from.email');
          const subject = personalization.subject ?? mail.subject;
          if (typeof subject !== 'string' || subject === '') return sendgridError(400, 'The subject is required. You can get around this requirement if you use a template with a subject defined or if every personalization has a subject defined.', 'subject');
          const content = mail.content ?? [];
          if (content.length === 0) return sendgridError(400, 'Unless a valid template_id is provided, the content parameter is required.', 'content');
          const types = content.map((part) => part.type);
          if (types.includes('text/plain') && types.includes('text/html') && types.indexOf('text/plain') > types.indexOf('text/html')) {
            return sendgridError(400, 'If present, text/plain and text/html may only be provided in that order.', 'content');
          }
          if (mail.from.email !== sandboxEmail.from) return sendgridError(403, UNVERIFIED, 'from');
          const part = (type: string) => {
            const value = content.find((candidate) => candidate.type === type)?.value;
            return typeof value === 'string' ? value : '';
          };
          const messageId = randomBytes(16).toString('base64url').slice(0, 22);
          const headers = Object.fromEntries(Object.entries({ ...mail.headers, ...personalization.headers }).map(([name, value]) => [name, String(value)]));
          mails.push({
            messageId,
            from: mail.from.email,
            to: to.map((address) => String(address.email)),
            subject,
            text: part('text/plain'),
            html: part('text/html'),
            headers,
            categories: (mail.categories ?? []).map(String),
            at: request.now,
          });
          return { status: 202, headers: { 'x-message-id': messageId }, body: '' };
        },
      },
    ],
    reset() {
      mails.length = 0;
    },
  };
}
