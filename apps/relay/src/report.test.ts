import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayApp } from './app.ts';
import { sentryReporter } from './report.ts';
import { memoryStore } from './store/memory.ts';
import { GITHUB_SECRET, githubDelivery, quietLogger, testConfig } from './testing.ts';

// A stand-in for Sentry's ingest endpoint: it keeps the envelopes it receives.
const envelopes: string[] = [];
const ingest = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.url?.startsWith('/api/1/envelope')) envelopes.push(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => ingest.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => ingest.close(resolve));
});

describe('ERROR_TRACKER_DSN', () => {
  it("sends the relay's own unexpected errors with the route and integration, never the body or a secret", async () => {
    const { port } = ingest.address() as AddressInfo;
    const reporter = sentryReporter(`http://publickey@127.0.0.1:${port}/1`);
    const store = memoryStore();
    const broken = { ...store, ingest: () => Promise.reject(new Error('script exploded')) };
    const app = createRelayApp({ config: testConfig(), store: broken, log: quietLogger(), reporter });

    const delivery = githubDelivery();
    const res = await app.request('/api/webhooks/github', { method: 'POST', body: delivery.body, headers: delivery.headers });
    expect([res.status, await res.json()]).toEqual([500, { error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal error' } }]);
    expect(await reporter.flush()).toBe(true);

    const sent = envelopes.join('\n');
    expect(sent).toContain('script exploded');
    expect(sent).toContain('"route":"POST /api/webhooks/:integration"');
    expect(sent).toContain('"integration":"code_host"');
    expect(sent).not.toContain('acme/app');
    expect(sent).not.toContain(GITHUB_SECRET);
    expect(sent).not.toContain(delivery.headers['x-hub-signature-256']);
  });
});
