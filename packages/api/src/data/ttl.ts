const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** SPEC.md's time to live for every data route, in one table. */
export const ttl = {
  revenue: 5 * MINUTE,
  ideas: 2 * MINUTE,
  shipping: 2 * MINUTE,
  errortracker: 2 * MINUTE,
  /** The error tracker's project list (Sentry's numeric ids), which changes rarely. */
  errortrackerProjects: 10 * MINUTE,
  health: MINUTE,
  storefront: 15 * MINUTE,
  analytics: MINUTE,
  liveVisitors: 15 * SECOND,
  seo: 5 * MINUTE,
  funding: 5 * MINUTE,
} as const;
