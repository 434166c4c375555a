export { ConnectorError, type ConnectorErrorKind } from './errors.ts';
export { systemClock, type Clock, type ConnectorContext } from './context.ts';
export { slidingWindowLimiter, unlimited, type RateLimit, type RateLimiter } from './limiter.ts';
export { collectPages, defineClient, nextLink, parseRetryAfter, type Client, type ClientSpec } from './http.ts';
export { dailyChart, daysOf, isoDay, rangeDays, roundMoney } from './dates.ts';
export type * from './connector.ts';
