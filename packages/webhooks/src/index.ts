export { providerOf, providers, relayIntegrations, resolveIntegration, type RelayIntegration } from './integrations.ts';
export * from './types.ts';
export * from './receive.ts';
export { hmacHex, sha256Hex, tokensMatch, verifyHmacHex, type HmacAlgorithm } from './hmac.ts';
export { betterstack } from './betterstack/index.ts';
export { github } from './github/index.ts';
export { linear } from './linear/index.ts';
export { sentry } from './sentry/index.ts';
export { vercel } from './vercel/index.ts';
