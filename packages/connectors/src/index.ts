export { ConnectorError, type ConnectorErrorKind } from './errors.ts';
export {
  defaultGuardedFetch,
  guardedAgent,
  guardedFetch,
  guardedLookup,
  isRefusedAddress,
  publicOnlyFetch,
  RefusedAddressError,
  refusedAddressIn,
  refusedBaseUrl,
  type AddressScope,
  type GuardedAgentOptions,
} from './address-guard.ts';
export { systemClock, type Clock, type ConnectorContext, type TokenKeeper } from './context.ts';
export {
  LimiterBusyError,
  MAX_LIMITER_WAIT_MS,
  sharedWindowLimiter,
  slidingWindowLimiter,
  unlimited,
  type RateLimit,
  type RateLimiter,
  type SharedWindow,
  type Turn,
} from './limiter.ts';
export { collectPages, defineClient, nextLink, parseRetryAfter, type Client, type ClientSpec } from './http.ts';
export { dailyChart, dailySeries, daysOf, isoDay, rangeDays, roundMoney } from './dates.ts';
export { addDays } from './series.ts';
export { sumKnown } from './figures.ts';
export { combineSearchFigures } from './google/map.ts';
export type * from './connector.ts';
export { analyticsConnectors, connectorFor, revenueConnectors, serviceConnectors } from './registry.ts';
export { appstoreconnect, REVIEWS as STORE_REVIEWS } from './appstoreconnect/index.ts';
export { betterstack } from './betterstack/index.ts';
export { google } from './google/index.ts';
export { opencollective } from './opencollective/index.ts';
export { plausible } from './plausible/index.ts';
export { umami } from './umami/index.ts';
export { github } from './github/index.ts';
export { linear } from './linear/index.ts';
export { revenuecat } from './revenuecat/index.ts';
export { sentry, sentryHostRefusal } from './sentry/index.ts';
export { stripe } from './stripe/index.ts';
export { vercel } from './vercel/index.ts';
export {
  accessToken,
  authorizationUrl,
  defaultScopes,
  exchangeCode,
  grantedScopes,
  idTokenEmail,
  OAuthError,
  oauthLabel,
  reachesSearchConsole,
  tokenValues,
  type OAuthProvider,
  type TokenSet,
} from './oauth.ts';
export { githubLogin } from './github/index.ts';
