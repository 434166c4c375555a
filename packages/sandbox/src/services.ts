import { appstoreconnectService } from './appstoreconnect/index.ts';
import { betterstackService } from './betterstack/index.ts';
import { discordService } from './discord/index.ts';
import { githubService } from './github/index.ts';
import { googleService } from './google/index.ts';
import { linearService } from './linear/index.ts';
import { ntfyService } from './ntfy/index.ts';
import { opencollectiveService } from './opencollective/index.ts';
import { plausibleService } from './plausible/index.ts';
import { pushService } from './push/index.ts';
import { revenuecatService } from './revenuecat/index.ts';
import { stripeService } from './stripe/index.ts';
import { telegramService } from './telegram/index.ts';
import { sentryService } from './sentry/index.ts';
import { slackService } from './slack/index.ts';
import { sendgridService } from './sendgrid/index.ts';
import { umamiService } from './umami/index.ts';
import { vercelService } from './vercel/index.ts';
import type { SandboxService } from './service.ts';

/**
 * Every fake upstream, by the service name its credentials are stored under. Each factory builds its
 * data relative to `now`, the sandbox clock at start.
 */
export const sandboxServices = {
  appstoreconnect: appstoreconnectService,
  betterstack: betterstackService,
  discord: discordService,
  github: githubService,
  google: googleService,
  linear: linearService,
  ntfy: ntfyService,
  opencollective: opencollectiveService,
  revenuecat: revenuecatService,
  stripe: stripeService,
  telegram: telegramService,
  sentry: sentryService,
  slack: slackService,
  sendgrid: sendgridService,
  plausible: plausibleService,
  push: pushService,
  umami: umamiService,
  vercel: vercelService,
} satisfies Record<string, (now: number) => SandboxService>;

export type SandboxServiceName = keyof typeof sandboxServices;
