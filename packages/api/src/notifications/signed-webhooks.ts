import { createHmac, randomUUID } from 'node:crypto';
import * as betterstack from '../../../webhooks/src/betterstack/fixtures.ts';
import * as github from '../../../webhooks/src/github/fixtures.ts';
import * as linear from '../../../webhooks/src/linear/fixtures.ts';
import * as sentry from '../../../webhooks/src/sentry/fixtures.ts';
import * as vercel from '../../../webhooks/src/vercel/fixtures.ts';

// The tests' webhooks: each provider's fixture (packages/webhooks), signed the way the provider signs it, for the
// dashboard's own route. Only tests import this.

/** Each integration's signing secret (Better Stack's shared token), set in the environment under either spelling. */
export const SECRETS = {
  code_host: 'github-signing-secret',
  deploy_host: 'vercel-signing-secret',
  error_tracker: 'sentry-client-secret',
  issue_tracker: 'linear-signing-secret',
  uptime_monitor: 'betterstack-shared-token',
};
export const SECRET_ENV = {
  WEBHOOK_SECRET_CODE_HOST: SECRETS.code_host,
  WEBHOOK_SECRET_VERCEL: SECRETS.deploy_host,
  WEBHOOK_SECRET_ERROR_TRACKER: SECRETS.error_tracker,
  WEBHOOK_SECRET_LINEAR: SECRETS.issue_tracker,
  WEBHOOK_SECRET_UPTIME_MONITOR: SECRETS.uptime_monitor,
};
export type Secrets = Record<keyof typeof SECRETS, string>;

export interface Delivery {
  /** The path's `:integration`. */
  integration: string;
  body: string;
  headers: Record<string, string>;
}

export const hmac = (algorithm: 'sha1' | 'sha256', secret: string, body: string) => createHmac(algorithm, secret).update(body).digest('hex');
export const JSON_TYPE = { 'content-type': 'application/json' };

/** The five providers' deliveries, signed the way each provider signs (Sentry's send time from `now`). */
export function signer(now: () => number, secrets: Secrets = SECRETS) {
  return {
    github: (body = github.pullRequest('closed', true), event = 'pull_request', deliveryId: string = randomUUID()): Delivery => ({
      integration: 'code_host',
      body,
      headers: { ...JSON_TYPE, 'x-github-event': event, 'x-github-delivery': deliveryId, 'x-hub-signature-256': `sha256=${hmac('sha256', secrets.code_host, body)}` },
    }),
    vercel: (body = vercel.deployment('deployment.error')): Delivery => ({
      integration: 'deploy_host',
      body,
      headers: { ...JSON_TYPE, 'x-vercel-signature': hmac('sha1', secrets.deploy_host, body) },
    }),
    sentry: (body = sentry.issue('created'), resource = 'issue', sentAt = now()): Delivery => ({
      integration: 'error_tracker',
      body,
      headers: {
        ...JSON_TYPE,
        'sentry-hook-resource': resource,
        'sentry-hook-timestamp': String(Math.floor(sentAt / 1000)),
        'sentry-hook-signature': hmac('sha256', secrets.error_tracker, body),
      },
    }),
    linear: (body = linear.issueUpdated(new Date(now()).toISOString(), { movedFrom: 'state-unstarted' })): Delivery => ({
      integration: 'issue_tracker',
      body,
      headers: { ...JSON_TYPE, 'linear-delivery': randomUUID(), 'linear-signature': hmac('sha256', secrets.issue_tracker, body) },
    }),
    betterstack: (body = betterstack.incident('started')): Delivery => ({
      integration: 'uptime_monitor',
      body,
      headers: { ...JSON_TYPE, 'x-betterstack-token': secrets.uptime_monitor },
    }),
  };
}
export type Signer = ReturnType<typeof signer>;
