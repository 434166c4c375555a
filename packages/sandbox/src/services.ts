import { betterstackService } from './betterstack/index.ts';
import type { SandboxService } from './service.ts';

/**
 * Every fake upstream, by the service name its credentials are stored under. Each factory builds its
 * data relative to `now`, the sandbox clock at start.
 */
export const sandboxServices = {
  betterstack: betterstackService,
} satisfies Record<string, (now: number) => SandboxService>;

export type SandboxServiceName = keyof typeof sandboxServices;
