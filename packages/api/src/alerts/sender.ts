import { Client } from '@sendgrid/client';
import { MailService } from '@sendgrid/mail';
import { guardedLookup, refusedBaseUrl, type Clock } from '@dash/connectors';
import type { EmailConfig } from './config.ts';
import type { Email } from './render.ts';

/** SendGrid did not take the email; `status` is its HTTP status (undefined when it could not be reached). */
export class EmailRefusedError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    /** Worth trying again later (429, 5xx, unreachable); a 4xx will fail the same way. */
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'EmailRefusedError';
  }
}

export interface SendOptions {
  clock: Clock;
  /** Attempts in all, the first included; 429, 5xx and network failures are tried again with back-off. */
  attempts?: number;
  /** First back-off, doubled per attempt. */
  baseDelayMs?: number;
}

const TIMEOUT_MS = 15_000;
/** A reset further away than this is not waited for inside a request. */
const MAX_WAIT_MS = 10_000;

interface SendGridFailure {
  code?: number;
  message?: string;
  response?: { headers?: Record<string, string>; body?: unknown };
}

/** SendGrid's own words (`errors[].message`), or the status line; the key is never repeated. */
function reasonOf(error: SendGridFailure, apiKey: string): string {
  const body = error.response?.body as { errors?: { message?: unknown }[] } | undefined;
  const said = Array.isArray(body?.errors) ? body.errors.map((e) => (typeof e.message === 'string' ? e.message : '')).filter(Boolean).join('; ') : '';
  const reason = said || error.message || 'no reason given';
  return apiKey === '' ? reason : reason.split(apiKey).join('[key]');
}

/** How long SendGrid asks us to wait: X-RateLimit-Reset is an epoch in seconds. */
function resetWaitMs(headers: Record<string, string> | undefined, now: number): number | undefined {
  const reset = Number(headers?.['x-ratelimit-reset']);
  return Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - now) : undefined;
}

/**
 * Sends one email through `@sendgrid/mail` (v3 Mail Send) to every address of `config.to`, and answers SendGrid's
 * X-Message-Id. Each send has its own client, so the base URL and key of one configuration never leak into
 * another (the package's default export is a process-wide singleton; `setApiKey` resets its base URL, so the
 * URL is set after the key: upstream-apis.md §11). Connections go through the same address guard as the
 * connectors' (no link-local or cloud-metadata destination).
 */
export async function sendEmail(config: EmailConfig, email: Email, options: SendOptions): Promise<{ id: string }> {
  const refused = refusedBaseUrl(config.baseUrl);
  if (refused) throw new EmailRefusedError(`SendGrid's base URL is not allowed: ${refused}`, undefined, false);
  const client = new Client();
  client.setApiKey(config.apiKey);
  client.setDefaultRequest('baseUrl', `${config.baseUrl.replace(/\/+$/, '')}/`);
  // Passed on to axios as they are: a DNS answer is checked as the socket connects (the typings list fewer options).
  client.setDefaultRequest({ lookup: guardedLookup() } as unknown as Parameters<Client['setDefaultRequest']>[0]);
  const mail = new MailService();
  mail.setClient(client);
  mail.setTimeout(TIMEOUT_MS);

  const attempts = options.attempts ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 500;
  for (let attempt = 1; ; attempt++) {
    try {
      const [response] = await mail.send({
        to: config.to,
        from: config.from,
        subject: email.subject,
        // SendGrid wants text/plain before text/html; the helper orders them so.
        text: email.text,
        html: email.html,
        ...(email.headers ? { headers: email.headers } : {}),
        ...(email.categories ? { categories: email.categories } : {}),
      });
      const headers = response.headers as Record<string, string | undefined>;
      return { id: headers['x-message-id'] ?? '' };
    } catch (caught) {
      const error = caught as SendGridFailure;
      const status = typeof error.code === 'number' && error.code >= 100 ? error.code : undefined;
      const retryable = status === undefined || status === 429 || status >= 500;
      const reason = reasonOf(error, config.apiKey);
      const message =
        status === undefined ? `SendGrid could not be reached: ${reason}` : `SendGrid refused the email (${status}): ${reason}`;
      if (!retryable || attempt >= attempts) throw new EmailRefusedError(message, status, retryable);
      const backoff = baseDelayMs * 2 ** (attempt - 1);
      const wait = status === 429 ? Math.max(backoff, resetWaitMs(error.response?.headers, options.clock.now()) ?? 0) : backoff;
      if (wait > MAX_WAIT_MS) throw new EmailRefusedError(message, status, retryable);
      await options.clock.sleep(wait);
    }
  }
}
