import { betterstack } from './betterstack/index.ts';
import { github } from './github/index.ts';
import type { RelayIntegration } from './index.ts';
import { linear } from './linear/index.ts';
import { sentry } from './sentry/index.ts';
import type { WebhookProvider } from './types.ts';
import { vercel } from './vercel/index.ts';

/** Each relay integration's verifier and parser. */
export const providers: Record<RelayIntegration, WebhookProvider> = {
  code_host: github,
  deploy_host: vercel,
  error_tracker: sentry,
  issue_tracker: linear,
  uptime_monitor: betterstack,
};
