import { webhookIntegrationSchema, type WebhookIntegration } from '@dash/contracts';
import { betterstack } from './betterstack/index.ts';
import { github } from './github/index.ts';
import { linear } from './linear/index.ts';
import { sentry } from './sentry/index.ts';
import type { WebhookProvider } from './types.ts';
import { vercel } from './vercel/index.ts';

/** The relay's integration ids (the spec's neutral names, listed once in the contracts) and the provider names accepted as aliases. */
export const relayIntegrations = webhookIntegrationSchema.options;
export type RelayIntegration = WebhookIntegration;

export const providerOf: Record<RelayIntegration, string> = {
  code_host: 'github',
  deploy_host: 'vercel',
  error_tracker: 'sentry',
  issue_tracker: 'linear',
  uptime_monitor: 'betterstack',
};

/** `code_host` or `github` -> `code_host`; anything else -> undefined (the relay answers 404). */
export function resolveIntegration(name: string): RelayIntegration | undefined {
  return relayIntegrations.find((id) => id === name || providerOf[id] === name);
}

/** Each relay integration's verifier and parser. */
export const providers: Record<RelayIntegration, WebhookProvider> = {
  code_host: github,
  deploy_host: vercel,
  error_tracker: sentry,
  issue_tracker: linear,
  uptime_monitor: betterstack,
};
