import { createHash } from 'node:crypto';
import { createClient, createCluster } from 'redis';
import { Redis as Upstash } from '@upstash/redis';
import { noticeBoard } from './notices.ts';
import { eventsKeyOf, scriptStore, storedChannel, type Evaluate } from './scripts.ts';
import type { EventNotices, RelayStore } from './types.ts';

const reconnectStrategy = (retries: number) => Math.min(100 * 2 ** retries, 2_000);

const sha1 = (script: string) => createHash('sha1').update(script).digest('hex');
// `NOSCRIPT …` from the redis package; `Command failed: NOSCRIPT …` from @upstash/redis, whose auto-pipelining
// wraps each command's error (on a fresh Upstash database every call failed on it, never falling back to EVAL).
const isNoScript = (error: unknown) => error instanceof Error && /(^|: )NOSCRIPT\b/.test(error.message);

/** Sends the script's hash; Redis knows the text after the first EVAL, so the text crosses the wire once. */
function cachedScripts(evalsha: Evaluate, evaluate: Evaluate): Evaluate {
  const hashes = new Map<string, string>();
  return async (script, keys, args) => {
    let hash = hashes.get(script);
    if (!hash) hashes.set(script, (hash = sha1(script)));
    try {
      return await evalsha(hash, keys, args);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return evaluate(script, keys, args);
    }
  };
}

/**
 * Redis through the `redis` package. Commands fail at once while disconnected (503), and it reconnects by
 * itself. A second connection, in subscriber mode, carries the notices for long polls: every waiting poll
 * of this process shares it, and it subscribes to an events key's channel only while one of them waits
 * on that key.
 */
export async function redisStore(url: string, onError: (error: Error) => void, onInfo?: (message: string) => void): Promise<RelayStore> {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { reconnectStrategy, connectTimeout: 2_000 },
  });
  client.on('error', onError);
  await client.connect();
  const moved = await renameUntaggedKeys(client);
  if (moved > 0) onInfo?.(`moved ${moved} keys of an earlier relay to their hash-tagged names (relay:{tenant}:…)`);
  const evaluate = cachedScripts(
    (hash, keys, args) => client.evalSha(hash, { keys, arguments: args }),
    (script, keys, args) => client.eval(script, { keys, arguments: args }),
  );

  const subscriber = client.duplicate();
  subscriber.on('error', onError);
  await subscriber.connect();
  const onMessage = (_position: string, channel: string) => board.notify(eventsKeyOf(channel));
  const board = noticeBoard({
    subscribe(eventsKey) {
      // A SUBSCRIBE is queued, not refused, while the connection is down: refuse it here instead (503).
      if (!subscriber.isReady) return Promise.reject(new Error('The subscriber connection is down'));
      return subscriber.subscribe(storedChannel(eventsKey), onMessage);
    },
    unsubscribe: (eventsKey) => subscriber.unsubscribe(storedChannel(eventsKey), onMessage),
  });
  // Back from a disconnect (the client has subscribed again by then): a notice may have been lost, so
  // every waiting poll reads once more.
  subscriber.on('ready', () => board.notifyAll());

  return connectedStore([subscriber, client], evaluate, board.notices);
}

/** The store over connected Redis clients (a single node's, or a cluster's): closing it destroys each of them, once. */
function connectedStore(clients: readonly { destroy(): void }[], evaluate: Evaluate, notices: EventNotices, options?: { cluster: boolean; sharded: boolean }): RelayStore {
  let closed = false;
  const close = () => {
    if (!closed) {
      closed = true;
      for (const client of clients) client.destroy();
    }
    return Promise.resolve();
  };
  return scriptStore('redis', evaluate, close, notices, options);
}

/** KEYS: an old key name, its new one. ARGV: 'max' to keep the greater number of two (a last position). */
const RENAME_UNTAGGED = `local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'none' then return 0 end
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('RENAME', KEYS[1], KEYS[2])
  return 1
end
local other = redis.call('TYPE', KEYS[2]).ok
if kind == 'zset' and other == 'zset' then
  redis.call('ZUNIONSTORE', KEYS[2], 2, KEYS[2], KEYS[1], 'AGGREGATE', 'MIN')
elseif kind == 'string' and other == 'string' and ARGV[1] == 'max' then
  local old, new = tonumber(redis.call('GET', KEYS[1])) or 0, tonumber(redis.call('GET', KEYS[2])) or 0
  if old > new then redis.call('SET', KEYS[2], old) end
end
redis.call('DEL', KEYS[1])
return 1`;

/** A key of a relay from before hash tags: `relay:<tenant>:…` (`relay:tenants`, the one key without a tenant, stays). */
const UNTAGGED = /^relay:([^{}:]+):(.+)$/;

/**
 * Relays before hash tags named a tenant's keys `relay:<tenant>:…`; on a single Redis every start
 * renames any such keys to `relay:{<tenant>}:…`, so buffered events, their positions (and so the
 * dashboards' cursors), replay records and rate windows carry over. A key already written under the
 * new name by a newer process is merged with the old one: events are united, a last position keeps the
 * greater. Returns how many keys were moved.
 */
export async function renameUntaggedKeys(client: {
  scanIterator(options: { MATCH: string; COUNT: number }): AsyncIterable<string[]>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}): Promise<number> {
  let moved = 0;
  for await (const keys of client.scanIterator({ MATCH: 'relay:[^{]*', COUNT: 1_000 })) {
    for (const key of keys) {
      const parts = UNTAGGED.exec(key);
      if (!parts) continue;
      const renamed = `relay:{${parts[1]}}:${parts[2]}`;
      moved += Number(await client.eval(RENAME_UNTAGGED, { keys: [key, renamed], arguments: [key.endsWith(':events:last') ? 'max' : ''] }));
    }
  }
  return moved;
}

/**
 * A Redis Cluster (or a cluster-mode Valkey, or a managed cluster) through the `redis` package's
 * cluster client, from seed nodes: it learns the rest and follows slots as they move (a failover, a
 * resharding). The scripts are the single Redis's, each sent to the master of its keys' slot; a group
 * commit is one call per slot. Long polls are woken by sharded pub/sub (SPUBLISH from the ingest
 * script, SSUBSCRIBE here), which the client keeps on the shard that owns each channel's slot.
 */
export async function redisClusterStore(
  urls: readonly string[],
  onError: (error: Error) => void,
  options: { shardedPubSub?: boolean } = {},
): Promise<RelayStore> {
  // The seed URLs only find the cluster; what every connection needs (credentials, TLS) is in `defaults`.
  const seed = new URL(urls[0] ?? 'redis://127.0.0.1:6379');
  const cluster = createCluster({
    rootNodes: urls.map((url) => ({ url })),
    // A node the client cannot reach makes it ask the others for the slots a second later (not five):
    // when a master dies, its tenants' webhooks reach the promoted replica soon after the promotion.
    topologyRefreshOnReconnectionAttemptStrategy: 1_000,
    defaults: {
      disableOfflineQueue: true,
      ...(seed.username ? { username: decodeURIComponent(seed.username) } : {}),
      ...(seed.password ? { password: decodeURIComponent(seed.password) } : {}),
      socket: { reconnectStrategy, connectTimeout: 2_000, ...(seed.protocol === 'rediss:' ? { tls: true as const } : {}) },
    },
  });
  cluster.on('error', onError);
  cluster.on('node-error', onError);
  await cluster.connect();
  const evaluate = cachedScripts(
    (hash, keys, args) => cluster.evalSha(hash, { keys, arguments: args }),
    (script, keys, args) => cluster.eval(script, { keys, arguments: args }),
  );

  // Sharded pub/sub came with Redis 7 (COMMAND INFO answers nil for a command the server lacks); before
  // it, PUBLISH and SUBSCRIBE, which the client keeps on one node and the cluster bus carries to all.
  const sharded =
    options.shardedPubSub ?? (await cluster.sendCommand<unknown[]>(undefined, true, ['COMMAND', 'INFO', 'SPUBLISH'])).some((info) => Array.isArray(info));
  const onMessage = (_position: unknown, channel: string | Buffer) => board.notify(eventsKeyOf(channel.toString()));
  const board = noticeBoard({
    subscribe(eventsKey) {
      if (!cluster.isReady) return Promise.reject(new Error('The cluster connection is down'));
      return sharded ? cluster.sSubscribe(storedChannel(eventsKey), onMessage) : cluster.subscribe(storedChannel(eventsKey), onMessage);
    },
    unsubscribe: (eventsKey) =>
      sharded ? cluster.sUnsubscribe(storedChannel(eventsKey), onMessage) : cluster.unsubscribe(storedChannel(eventsKey), onMessage),
  });
  // A connection to a node (or to a shard's new master, after a failover) is back: a notice may have
  // been lost meanwhile, so every waiting poll reads once more.
  cluster.on('node-ready', () => board.notifyAll());

  return connectedStore([cluster], evaluate, board.notices, { cluster: true, sharded });
}

/**
 * Upstash Redis over its REST API, with the same scripts. REST cannot hold a subscription, so this store
 * has no notices and a long poll (`wait`) on it answers at once, as a plain poll does: its clients keep
 * their own polling interval.
 */
export function upstashStore(url: string, token: string): RelayStore {
  // Members are our JSON strings: they must come back as strings, not parsed objects.
  const client = new Upstash({ url, token, automaticDeserialization: false, retry: false });
  const evaluate = cachedScripts(
    (hash, keys, args) => client.evalsha(hash, keys, args),
    (script, keys, args) => client.eval(script, keys, args),
  );
  return scriptStore('upstash', evaluate, () => Promise.resolve());
}
