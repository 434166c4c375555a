import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createRelayApp, type Logger } from './app.ts';
import { readConfig, type RelayConfig } from './config.ts';
import { refusalCounter } from './refusals.ts';
import { sentryReporter } from './report.ts';
import { memoryStore } from './store/memory.ts';
import { redisClusterStore, redisStore, upstashStore } from './store/redis.ts';
import type { RelayStore } from './store/types.ts';

const log: Logger = {
  info: (m) => console.log(`[relay] ${m}`),
  warn: (m) => console.warn(`[relay] ${m}`),
  error: (m) => console.error(`[relay] ${m}`),
};

// The one place the relay reads its environment. A wrong value stops it with one line that says why.
let config: RelayConfig;
try {
  config = readConfig(process.env);
} catch (error) {
  log.error(`not starting: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

async function openStore(): Promise<RelayStore> {
  switch (config.store.kind) {
    case 'redis':
      return redisStore(config.store.url, (error) => log.error(`redis: ${error.message}`), (message) => log.info(message));
    case 'redis-cluster':
      return redisClusterStore(config.store.urls, (error) => log.error(`redis cluster: ${error.message}`));
    case 'upstash':
      return upstashStore(config.store.url, config.store.token);
    case 'memory':
      log.warn('MEMORY STORE: events, rate limits and replay records live in this process only and vanish on restart. For local use only; set REDIS_URL, REDIS_CLUSTER_URLS or KV_REST_API_URL + KV_REST_API_TOKEN in production.');
      return memoryStore();
  }
}

const store = await openStore();
if (config.pollSecrets.length === 0) log.warn('RELAY_POLL_SECRET is not set: every poll will be refused with 401');
const reporter = config.errorTrackerDsn ? sentryReporter(config.errorTrackerDsn) : undefined;
const refusals = refusalCounter({ store, onError: (error) => log.warn(`refusal counts not saved yet, kept to send again: ${error instanceof Error ? error.message : String(error)}`) });
const app = createRelayApp({ config, store, log, reporter, refusals, socketAddress: (c) => getConnInfo(c).remote.address });
const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, (info) => {
  log.info(`listening on http://${info.address}:${info.port} (store: ${config.store.kind === 'redis-cluster' ? 'redis cluster' : store.kind})`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log.info(`${signal}: finishing open requests, then stopping`);
    // Requests in flight get a few seconds; idle keep-alive connections do not hold the exit up.
    setTimeout(() => process.exit(0), 5_000).unref();
    // The refusal counts still held go to the store once the last request is answered, then the store closes.
    server.close(
      () =>
        void refusals
          .close()
          .catch((error: unknown) => log.warn(`refusal counts lost on stopping: ${error instanceof Error ? error.message : String(error)}`))
          .finally(() => store.close())
          .finally(() => process.exit(0)),
    );
    // Long polls held for up to 25 s answer their empty page now; the store stays open for the rest.
    store.notices?.end();
    if ('closeIdleConnections' in server) {
      server.closeIdleConnections();
      // Nor do the connections that fall idle from now on, such as those of the polls just answered.
      setInterval(() => server.closeIdleConnections(), 50).unref();
    }
  });
}
