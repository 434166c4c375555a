// Test sends over real sockets against the built server: each is a real email (the briefing's also reads every
// upstream), so a channel sends at most one a minute; the next is a 429 with Retry-After, and nothing is sent.
import { sandboxEmail, sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, raw } from './http.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

let sandbox: Sandbox;
let dashboard: RunningDashboard;

beforeAll(async () => {
  sandbox = await startSandbox();
  dashboard = await startDashboard({
    env: {
      SENDGRID_API_KEY: sandboxTokens.sendgrid,
      ALERT_EMAIL_FROM: sandboxEmail.from,
      ALERT_EMAIL_TO: 'founder@example.com',
      SENDGRID_API_URL: sandbox.services.sendgrid.url,
    },
  });
});
afterAll(async () => {
  await dashboard?.stop();
  await sandbox?.close();
});

describe('test sends', () => {
  it('send one email a minute per channel: the second within the minute is a 429 with Retry-After, and sends nothing', async () => {
    const send = (path: string) => raw(`${dashboard.url}${path}`, { method: 'POST', headers: { origin: dashboard.url, 'content-type': 'application/json' }, body: '' });
    for (const [path, trpc] of [
      ['/api/alerts/test', '/api/trpc/alerts.test'],
      ['/api/briefing/test', '/api/trpc/briefing.sendTest'],
    ] as const) {
      const before = sandbox.mails().length;
      const first = await send(path);
      expect({ path, status: first.status }).toEqual({ path, status: 200 });
      const again = await send(path);
      expect({ path, status: again.status, code: errorOf(again).code }).toEqual({ path, status: 429, code: 'TOO_MANY_REQUESTS' });
      expect(Number(again.headers['retry-after'])).toBeGreaterThanOrEqual(50);
      expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(errorOf(again).message).toMatch(/a minute: try again in \d+ s\.$/);
      // tRPC, as the settings page calls it: the same refusal, with the same header.
      const viaTrpc = await send(trpc);
      expect([viaTrpc.status, Number(viaTrpc.headers['retry-after']) > 0]).toEqual([429, true]);
      expect(sandbox.mails().length - before).toBe(1);
    }
  });
});
