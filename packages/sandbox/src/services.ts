import { betterstackService } from './betterstack/index.ts';
import { githubService } from './github/index.ts';
import { linearService } from './linear/index.ts';
import { revenuecatService } from './revenuecat/index.ts';
import { stripeService } from './stripe/index.ts';
import { sentryService } from './sentry/index.ts';
import { vercelService } from './vercel/index.ts';
import type { SandboxService } from './service.ts';

/**
 * Every fake upstream, by the service name its credentials are stored under. Each factory builds its
 * data relative to `now`, the sandbox clock at start.
 */
export const sandboxServices = {
  betterstack: betterstackService,
  github: githubService,
  linear: linearService,
  revenuecat: revenuecatService,
  stripe: stripeService,
  sentry: sentryService,
  vercel: vercelService,
} satisfies Record<string, (now: number) => SandboxService>;

export type SandboxServiceName = keyof typeof sandboxServices;
