import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import { Redis as Upstash } from '@upstash/redis';
import { scriptStore, type Evaluate } from './scripts.ts';
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

/** Redis through the `redis` package. Commands fail at once while disconnected (503), and it reconnects by itself. */
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
  return scriptStore('redis', evaluate, () => {
    client.destroy();
    return Promise.resolve();
  });
}

/** Upstash Redis over its REST API, with the same scripts. */
export function upstashStore(url: string, token: string): RelayStore {
  // Members are our JSON strings: they must come back as strings, not parsed objects.
  const client = new Upstash({ url, token, automaticDeserialization: false, retry: false });
  const evaluate = cachedScripts(
    (hash, keys, args) => client.evalsha(hash, keys, args),
    (script, keys, args) => client.eval(script, keys, args),
  );
  return scriptStore('upstash', evaluate, () => Promise.resolve());
}
