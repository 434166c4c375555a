/** The relay's integration ids (the spec's neutral names) and the real provider names accepted as aliases. */
export const relayIntegrations = ['code_host', 'deploy_host', 'error_tracker', 'issue_tracker', 'uptime_monitor'] as const;
export type RelayIntegration = (typeof relayIntegrations)[number];

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

export * from './types.ts';
export { hmacHex, sha256Hex, tokensMatch, verifyHmacHex, type HmacAlgorithm } from './hmac.ts';
export { betterstack } from './betterstack/index.ts';
export { github } from './github/index.ts';
export { linear } from './linear/index.ts';
export { sentry } from './sentry/index.ts';
export { vercel } from './vercel/index.ts';
export { providers } from './providers.ts';
