import { createHmac, randomUUID } from 'node:crypto';

/**
 * Test support for the suites that post webhooks end to end (the dashboard's inbox and relay poller tests, the browser
 * tests' relay-to-dashboard files): a provider's body with the headers that provider sends, signed as it signs them
 * (node:crypto directly, independently of hmac.ts). Not exported from the package.
 */

/** A webhook as a provider posts it: the integration whose route takes it, its body, and its headers. */
export interface SignedDelivery {
  integration: 'code_host' | 'deploy_host' | 'error_tracker' | 'issue_tracker' | 'uptime_monitor';
  body: string;
  headers: Record<string, string>;
}

/** Each provider's signing secret (Better Stack's is a token it sends as is). */
export interface DeliverySecrets {
  github: string;
  vercel: string;
  sentry: string;
  linear: string;
  betterstack: string;
}

const fail = (message: string): never => {
  throw new Error(message);
};
const hmac = (algorithm: 'sha1' | 'sha256', secret: string, body: string) => createHmac(algorithm, secret).update(body).digest('hex');

/** Signs bodies with `given`'s secrets (a provider without one cannot be signed for); `extraHeaders` go on every delivery (a proxy's X-Forwarded-For). */
export function deliverySigner(given: Partial<DeliverySecrets>, extraHeaders: Record<string, string> = {}) {
  const base = { 'content-type': 'application/json', ...extraHeaders };
  const secretOf = (provider: keyof DeliverySecrets): string => given[provider] ?? fail(`No ${provider} secret was given to deliverySigner`);
  return {
    github: (body: string, event = 'pull_request', secret = secretOf('github')): SignedDelivery => ({
      integration: 'code_host',
      body,
      headers: { ...base, 'x-github-event': event, 'x-github-delivery': randomUUID(), 'x-hub-signature-256': `sha256=${hmac('sha256', secret, body)}` },
    }),
    vercel: (body: string): SignedDelivery => ({ integration: 'deploy_host', body, headers: { ...base, 'x-vercel-signature': hmac('sha1', secretOf('vercel'), body) } }),
    /** Sentry's `resource` (issue, error, event_alert…) and when it sent it (its timestamp header, in seconds). */
    sentry: (body: string, resource = 'issue', sentAt = Date.now()): SignedDelivery => ({
      integration: 'error_tracker',
      body,
      headers: {
        ...base,
        'sentry-hook-resource': resource,
        'sentry-hook-timestamp': String(Math.floor(sentAt / 1000)),
        'sentry-hook-signature': hmac('sha256', secretOf('sentry'), body),
      },
    }),
    linear: (body: string): SignedDelivery => ({
      integration: 'issue_tracker',
      body,
      headers: { ...base, 'linear-delivery': randomUUID(), 'linear-signature': hmac('sha256', secretOf('linear'), body) },
    }),
    betterstack: (body: string): SignedDelivery => ({ integration: 'uptime_monitor', body, headers: { ...base, 'x-betterstack-token': secretOf('betterstack') } }),
  };
}
