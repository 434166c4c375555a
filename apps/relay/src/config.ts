import { parseEnv, withoutBlanks, type RawEnv } from '@dash/contracts/env';
import { commaList, isTrue, receiveSettingsFrom, type ReceiveSettings } from '@dash/webhooks';
import { z } from 'zod';

export interface RelayConfig extends ReceiveSettings {
  host: string;
  port: number;
  store:
    | { kind: 'redis'; url: string }
    /** REDIS_CLUSTER_URLS: the seed nodes of a Redis Cluster. */
    | { kind: 'redis-cluster'; urls: string[] }
    | { kind: 'upstash'; url: string; token: string }
    | { kind: 'memory' };
  pollSecrets: readonly string[];
  /** RELAY_ADMIN_SECRET: turns on the managed multi-tenant mode and guards its API. */
  adminSecrets: readonly string[];
  allowedOrigin: string | undefined;
  /** Take the client address from X-Forwarded-For (the hop the proxy added) instead of the socket. */
  trustProxy: boolean;
  /** ERROR_TRACKER_DSN: send the relay's own unexpected errors to Sentry. */
  errorTrackerDsn: string | undefined;
  /**
   * RELAY_FORWARD_BODIES (true unless `false`): each event carries its webhook's raw body (on a delivery's first
   * event), kept as long as the event, for the dashboard's deliveries log.
   */
  forwardBodies: boolean;
}

const port = z.coerce.number().int().min(0).max(65_535);

/** The shortest poll or admin secret the relay starts with: 32 characters, such as `openssl rand -hex 32` prints. */
export const MIN_SECRET_LENGTH = 32;

/** A rotation list `new,old` whose every entry is at least MIN_SECRET_LENGTH characters; the error names the variable, never the value. */
function secretList(name: string, value: string | undefined): string[] {
  const secrets = commaList(value);
  const short = secrets.findIndex((secret) => secret.length < MIN_SECRET_LENGTH);
  if (short >= 0) {
    const which = secrets.length > 1 ? `entry ${short + 1} of ${name}'s list` : name;
    throw new Error(
      `${which} is shorter than ${MIN_SECRET_LENGTH} characters: every ${name} (each entry of a new,old list) must be at least ${MIN_SECRET_LENGTH}. ` +
        'Make one with `openssl rand -hex 32`.',
    );
  }
  return secrets;
}

const envSchema = z.object({
  // RELAY_HOST/RELAY_PORT first, so one env file can hold the dashboard's HOST/PORT beside them;
  // then HOST/PORT, which hosting platforms set for the process.
  RELAY_HOST: z.string().optional(),
  RELAY_PORT: port.optional(),
  HOST: z.string().default('0.0.0.0'),
  PORT: port.default(8787),
  RELAY_STORE: z.enum(['redis', 'upstash', 'memory']).optional(),
  REDIS_URL: z.string().optional(),
  REDIS_CLUSTER_URLS: z.string().optional(),
  KV_REST_API_URL: z.url().optional(),
  KV_REST_API_TOKEN: z.string().optional(),
  RELAY_POLL_SECRET: z.string().optional(),
  RELAY_ADMIN_SECRET: z.string().optional(),
  ALLOWED_ORIGIN: z.string().optional(),
  RELAY_ENABLED: z.string().optional(),
  TRUST_PROXY: z.string().optional(),
  ERROR_TRACKER_DSN: z.url().optional(),
  // A switch that keeps webhook bodies off the relay: a typo must not leave them on unnoticed.
  RELAY_FORWARD_BODIES: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['true', 'false'], { error: 'is true or false' }))
    .optional(),
});

/** A `redis://` or `rediss://` URL with a host, or an error naming the variable (and the entry, in a list) and the value. */
function redisUrl(name: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // Not a URL at all: said below.
  }
  if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || !url.hostname) {
    // The value is shown without its password, if it has one.
    const shown = value.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
    throw new Error(`${name} has "${shown}", which is not a redis:// or rediss:// URL with a host (such as redis://10.0.0.1:6379)`);
  }
  return value;
}

/**
 * Reads the relay's environment once; a variable set to the empty string counts as unset. Secrets and
 * switches are accepted under the spec's neutral name (WEBHOOK_SECRET_CODE_HOST) and under the
 * provider's (WEBHOOK_SECRET_GITHUB); both lists are used.
 */
export function readConfig(raw: RawEnv): RelayConfig {
  const env = withoutBlanks(raw);
  const e = parseEnv(envSchema, env, 'relay environment');

  if (e.REDIS_URL && e.REDIS_CLUSTER_URLS) {
    throw new Error('REDIS_URL and REDIS_CLUSTER_URLS are both set: set REDIS_URL for one Redis, or REDIS_CLUSTER_URLS (comma-separated seed nodes) for a Redis Cluster, not both');
  }
  const kind = e.RELAY_STORE ?? (e.REDIS_URL || e.REDIS_CLUSTER_URLS ? 'redis' : e.KV_REST_API_URL && e.KV_REST_API_TOKEN ? 'upstash' : 'memory');
  let store: RelayConfig['store'];
  if (kind === 'redis') {
    if (e.REDIS_CLUSTER_URLS) {
      const urls = commaList(e.REDIS_CLUSTER_URLS).map((url, i, all) => redisUrl(all.length > 1 ? `entry ${i + 1} of REDIS_CLUSTER_URLS` : 'REDIS_CLUSTER_URLS', url));
      store = { kind: 'redis-cluster', urls };
    } else {
      if (!e.REDIS_URL) throw new Error('RELAY_STORE=redis needs REDIS_URL (one Redis) or REDIS_CLUSTER_URLS (a Redis Cluster)');
      store = { kind, url: redisUrl('REDIS_URL', e.REDIS_URL) };
    }
  } else if (kind === 'upstash') {
    if (!e.KV_REST_API_URL || !e.KV_REST_API_TOKEN) throw new Error('RELAY_STORE=upstash needs KV_REST_API_URL and KV_REST_API_TOKEN');
    store = { kind, url: e.KV_REST_API_URL, token: e.KV_REST_API_TOKEN };
  } else {
    store = { kind };
  }

  return {
    host: e.RELAY_HOST ?? e.HOST,
    port: e.RELAY_PORT ?? e.PORT,
    store,
    // The secrets and switches, read as the dashboard's local webhook route reads them.
    ...receiveSettingsFrom(env),
    pollSecrets: secretList('RELAY_POLL_SECRET', e.RELAY_POLL_SECRET),
    adminSecrets: secretList('RELAY_ADMIN_SECRET', e.RELAY_ADMIN_SECRET),
    allowedOrigin: e.ALLOWED_ORIGIN?.trim(),
    trustProxy: isTrue(e.TRUST_PROXY),
    errorTrackerDsn: e.ERROR_TRACKER_DSN,
    forwardBodies: e.RELAY_FORWARD_BODIES !== 'false',
  };
}
