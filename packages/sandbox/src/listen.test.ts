import { describe, expect, it } from 'vitest';
import { listen } from './listen.ts';

describe('listen', () => {
  it('serves on a free loopback port and stops on close', async () => {
    const server = await listen((_req, res) => res.end('pong'));
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${server.url}/ping`)).text()).toBe('pong');
    await server.close();
    await expect(fetch(`${server.url}/ping`)).rejects.toThrow();
  });
});
