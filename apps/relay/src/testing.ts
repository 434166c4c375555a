import { createHmac, randomUUID } from 'node:crypto';
import type { RelayConfig } from './config.ts';
import { readConfig } from './config.ts';
import { createRelayApp, type Logger } from './app.ts';
import type { RelayStore } from './store/types.ts';

export const GITHUB_SECRET = 'It\'s a Secret to Everybody';
export const POLL_SECRET = 'poll-secret-for-tests';

export function testConfig(env: Record<string, string> = {}): RelayConfig {
  return readConfig({ WEBHOOK_SECRET_GITHUB: GITHUB_SECRET, RELAY_POLL_SECRET: POLL_SECRET, TRUST_PROXY: 'true', ...env });
}

export function quietLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
}

export function relay(store: RelayStore, env: Record<string, string> = {}, now?: () => number) {
  const log = quietLogger();
  const app = createRelayApp({ config: testConfig(env), store, log, ...(now ? { now } : {}) });
  return { app, log };
}

/** A GitHub pull_request delivery, signed the way GitHub signs it. */
export function githubDelivery(options: { number?: number; action?: string; merged?: boolean; secret?: string; deliveryId?: string; ip?: string } = {}) {
  const number = options.number ?? 42;
  const body = JSON.stringify({
    action: options.action ?? 'closed',
    number,
    pull_request: {
      number,
      title: `Change ${number}`,
      html_url: `https://github.com/acme/app/pull/${number}`,
      merged: options.merged ?? true,
      merged_at: '2026-11-22T10:00:00Z',
      updated_at: '2026-11-22T10:00:00Z',
      created_at: '2026-11-21T10:00:00Z',
      closed_at: '2026-11-22T10:00:00Z',
      user: { login: 'octocat' },
      base: { ref: 'main' },
      head: { ref: `feature-${number}` },
    },
    repository: { full_name: 'acme/app', name: 'app', html_url: 'https://github.com/acme/app', owner: { login: 'acme' } },
    sender: { login: 'octocat' },
  });
  const signature = createHmac('sha256', options.secret ?? GITHUB_SECRET).update(body).digest('hex');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-github-delivery': options.deliveryId ?? randomUUID(),
      'x-hub-signature-256': `sha256=${signature}`,
      'x-forwarded-for': options.ip ?? '203.0.113.7',
    },
  };
}

export const pollHeaders = (ip = '198.51.100.1', secret = POLL_SECRET) => ({ authorization: `Bearer ${secret}`, 'x-forwarded-for': ip });
