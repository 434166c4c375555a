import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'redis';

type Reply = string | number | null | Reply[];

/** Upstash's `Upstash-Encoding: base64`: every string result but "OK" is base64. */
const encode = (reply: Reply): Reply =>
  Array.isArray(reply) ? reply.map(encode) : typeof reply === 'string' && reply !== 'OK' ? Buffer.from(reply).toString('base64') : reply;

/**
 * For tests: a small server speaking Upstash's REST protocol (`POST /` with the command as a JSON array,
 * `POST /pipeline`, bearer token, `{ result }` / `{ error }`) over a real Redis.
 */
export async function startUpstashRestServer(redisUrl: string, token: string): Promise<{ url: string; close(): Promise<void> }> {
  const redis = createClient({ url: redisUrl });
  redis.on('error', () => {});
  await redis.connect();
  const run = async (command: unknown): Promise<{ result: Reply } | { error: string }> => {
    if (!Array.isArray(command) || command.length === 0) return { error: 'ERR the command must be a non-empty JSON array' };
    try {
      return { result: await redis.sendCommand<Reply>(command.map(String)) };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const reply = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        };
        if (req.headers.authorization !== `Bearer ${token}`) return reply(401, { error: 'Unauthorized' });
        const base64 = req.headers['upstash-encoding'] === 'base64';
        const wrap = (outcome: { result: Reply } | { error: string }) => ('result' in outcome && base64 ? { result: encode(outcome.result) } : outcome);
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return reply(400, { error: 'ERR failed to parse command' });
        }
        if (req.url === '/pipeline' || req.url === '/multi-exec') {
          const commands = Array.isArray(body) ? body : [];
          const results = [];
          for (const command of commands) results.push(wrap(await run(command)));
          return reply(200, results);
        }
        const outcome = wrap(await run(body));
        return reply('error' in outcome ? 400 : 200, outcome);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      redis.destroy();
    },
  };
}
