import { existsSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDashboard } from './server.ts';

/** An address of this machine that is not loopback, when it has one. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address?.family === 'IPv4' && !address.internal)?.address;

describe('the built dashboard started from an env file', () => {
  it('starts with every value of .env.example as written, on loopback, and creates its store and key', async () => {
    const dashboard = await startDashboard({ fromEnvExample: true });
    try {
      const port = new URL(dashboard.url).port;
      expect(dashboard.output()).toContain(`Listening on http://127.0.0.1:${port}`);
      expect((await fetch(`${dashboard.url}/api/settings`)).status).toBe(200);
      const page = await fetch(`${dashboard.url}/`);
      expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html']);
      // DATA_DIR is relative (./data) and DATABASE_URL is left out, so the embedded database goes there; CREDENTIALS_KEY= is blank, so a key is generated.
      expect(existsSync(join(dashboard.dataDir, 'data/dashboard.db'))).toBe(true);
      expect(existsSync(join(dashboard.dataDir, 'data/credentials.key'))).toBe(true);
    } finally {
      await dashboard.stop();
    }
  });

  it('takes a blank HOST= as unset: this machine only, never every interface', async () => {
    const dashboard = await startDashboard({ fromEnvExample: true, env: { HOST: '' } });
    try {
      const port = new URL(dashboard.url).port;
      expect(dashboard.output()).toContain(`Listening on http://127.0.0.1:${port}`);
      if (outsideAddress) {
        await expect(fetch(`http://${outsideAddress}:${port}/healthz`)).rejects.toThrow();
      }
    } finally {
      await dashboard.stop();
    }
  });
});
