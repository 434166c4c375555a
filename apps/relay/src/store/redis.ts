import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import { Redis as Upstash } from '@upstash/redis';
import { noticeBoard } from './notices.ts';
import { eventsKeyOf, scriptStore, storedChannel, type Evaluate } from './scripts.ts';
import type { RelayStore } from './types.ts';

const sha1 = (script: string) => createHash('sha1').update(script).digest('hex');
const isNoScript = (error: unknown) => error instanceof Error && error.message.startsWith('NOSCRIPT');

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
export async function redisStore(url: string, onError: (error: Error) => void): Promise<RelayStore> {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2_000), connectTimeout: 2_000 },
  });
  client.on('error', onError);
  await client.connect();
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

  let closed = false;
  return scriptStore(
    'redis',
    evaluate,
    () => {
      if (!closed) {
        closed = true;
        subscriber.destroy();
        client.destroy();
      }
      return Promise.resolve();
    },
    board.notices,
  );
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
