import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch, systemClock } from '@dash/connectors';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newWebhookSecret, SignedWebhookAdapter } from '../../channels/webhook/index.ts';
import { renderBriefing } from './index.ts';
import { briefingOf, hostileBriefing, HOSTILE_NAME, ORIGIN, renderOf } from './testing.ts';

// The briefing as the signed webhook's `briefing.ready`, posted through the adapter's raw send to a real receiver
// on a local port that verifies it with `standardwebhooks` (the reference implementation).

const received: { headers: IncomingHttpHeaders; body: string }[] = [];
let receiver: Server;
let url: string;
beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/briefing`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
beforeEach(() => {
  received.length = 0;
});

const adapter = new SignedWebhookAdapter({ fetch: guardedFetch(), clock: systemClock });

describe('the briefing on the signed webhook', () => {
  it('posts briefing.ready with the structured data, signed as Standard Webhooks verifies, links absolute', async () => {
    const secret = newWebhookSecret();
    const body = renderBriefing('webhook', renderOf(briefingOf(12)));
    const outcome = await adapter.sendRaw({ url, secret }, { id: 'brf_2026-11-26_day', body: JSON.stringify(body) });
    expect(outcome).toEqual({ kind: 'sent', status: 204, providerId: null });
    const [request] = received;
    const verified = new Webhook(secret).verify(request?.body ?? '', {
      'webhook-id': String(request?.headers['webhook-id']),
      'webhook-timestamp': String(request?.headers['webhook-timestamp']),
      'webhook-signature': String(request?.headers['webhook-signature']),
    }) as typeof body;
    expect(request?.headers['webhook-id']).toBe('brf_2026-11-26_day');
    expect(verified).toMatchObject({ type: 'briefing.ready', timestamp: '2026-11-26T07:00:05.000Z' });
    expect(verified.data).toMatchObject({ period: 'day', link: `${ORIGIN}/briefing`, quiet: null });
    expect(verified.data.needsYou?.[0]).toMatchObject({ rule: 'low_ratings', link: `${ORIGIN}/?project=product-1#widget-storefront` });
    expect(verified.data.metricAlerts?.map((alert) => alert.link)).toEqual([`${ORIGIN}/?notification=n_41`, `${ORIGIN}/?notification=n_42`]);
    expect(verified.data.projects).toHaveLength(12);
    const [first] = verified.data.projects;
    expect(first).toMatchObject({ slug: 'product-1', link: `${ORIGIN}/briefing?project=product-1` });
    expect(first?.figures?.revenue).toMatchObject({ currency: 'USD', mrr: { value: 12_400, previous: 12_000 }, link: `${ORIGIN}/?project=product-1#widget-revenue` });
    expect(first?.figures?.trend.map((line) => line.metric)).toEqual(['revenue.mrr', 'analytics.visitors', 'uptime.up_ratio']);
    expect(first?.shipped?.items).toHaveLength(6);
    expect(first?.reviews?.items[0]).toMatchObject({ rating: 1 });
  });

  it('carries only the chosen parts, strangers’ text as JSON strings, and null links without the address', () => {
    const reviewsOnly = renderBriefing('webhook', renderOf(briefingOf(2), { parts: ['reviews'], origin: null, period: 'week' }));
    expect(Object.keys(reviewsOnly.data).sort()).toEqual(['days', 'generatedAt', 'link', 'parts', 'period', 'projects', 'window']);
    expect(reviewsOnly.data).toMatchObject({ period: 'week', parts: ['reviews'], link: null });
    expect(Object.keys(reviewsOnly.data.projects[0] ?? {}).sort()).toEqual(['link', 'name', 'reviews', 'slug']);
    expect(reviewsOnly.data.projects[0]?.reviews?.link).toBeNull();
    expect(JSON.stringify(reviewsOnly)).not.toMatch(/https?:\/\/dash/);
    const hostile = renderBriefing('webhook', renderOf(hostileBriefing()));
    expect(JSON.parse(JSON.stringify(hostile)) as unknown).toMatchObject({ data: { projects: [{ name: HOSTILE_NAME }, {}] } });
  });
});
