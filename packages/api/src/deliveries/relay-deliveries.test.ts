import { createHmac } from 'node:crypto';
import type { DeliveryDetail, DeliveryPage, RefusalSummary } from '@dash/contracts';
import { ADMIN_SECRET, GITHUB_SECRET, githubDelivery, POLL_SECRET, serveRelay, until } from '@dash/relay/testing';
import { receiveSettingsFrom } from '@dash/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApi, restClient } from '../testing.ts';

// The deliveries log fed by a real relay (the relay app on a 127.0.0.1 socket, memory store): each polled event's
// delivery (id, kind, body) in the log, and the relay's refusal counts read beside the background poller's polls.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function relayAndDashboard(env: Record<string, string> = {}) {
  const relay = await serveRelay({ env });
  cleanup.push(async () => {
    await relay.close();
    await relay.store.close();
  });
  const api = await createTestApi({ relay: { url: relay.url(), secret: POLL_SECRET, receive: receiveSettingsFrom({}) } });
  cleanup.push(() => api.dispose());
  const call = restClient(() => api.caller);
  await api.caller.projects.create({ slug: 'app', name: 'App', integrations: { code_host: { repos: ['acme/app'] } } });
  return {
    relay,
    api,
    call,
    list: async (): Promise<DeliveryPage> => {
      const res = await call('GET', '/api/deliveries');
      expect(res.status, res.text).toBe(200);
      return res.json as unknown as DeliveryPage;
    },
  };
}

/** GitHub's `ping`, signed: the relay takes it in and stores no event. */
function ping() {
  const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
  const { headers } = githubDelivery();
  return { body, headers: { ...headers, 'x-github-event': 'ping', 'x-hub-signature-256': `sha256=${createHmac('sha256', GITHUB_SECRET).update(body).digest('hex')}` } };
}

/** A managed relay with two tenants, each with its own GitHub secret, and a dashboard polling each. */
async function twoTenants() {
  const relay = await serveRelay({ env: { RELAY_ADMIN_SECRET: ADMIN_SECRET } });
  cleanup.push(async () => {
    await relay.close();
    await relay.store.close();
  });
  const admin = { authorization: `Bearer ${ADMIN_SECRET}`, 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.1' };
  const tenants = [];
  for (const id of ['acme', 'globex']) {
    const created = await fetch(`${relay.origin()}/api/tenants`, { method: 'POST', headers: admin, body: JSON.stringify({ id }) });
    expect(created.status).toBe(201);
    const { pollSecret } = (await created.json()) as { pollSecret: string };
    const secret = await fetch(`${relay.origin()}/api/tenants/${id}/secrets`, { method: 'PUT', headers: admin, body: JSON.stringify({ webhookSecrets: { github: `${id}-signing-secret` } }) });
    expect(secret.status).toBe(200);
    const api = await createTestApi({ relay: { url: `${relay.origin()}/api/t/${id}`, secret: pollSecret, receive: receiveSettingsFrom({}) } });
    cleanup.push(() => api.dispose());
    tenants.push({ id, api, call: restClient(() => api.caller) });
  }
  return { relay, tenants };
}

describe('webhooks through the relay', () => {
  it('are in the log with the provider’s delivery id, its kind and the body as sent', async () => {
    const { relay, call, list } = await relayAndDashboard();
    const pr = githubDelivery({ number: 7 });
    expect(await relay.post(pr)).toBe(200);
    expect((await call('POST', '/api/relay/poll')).status).toBe(200);

    const [row] = (await list()).deliveries;
    expect(row).toMatchObject({ source: 'relay', integration: 'code_host', eventType: 'pr.merged', deliveryId: pr.headers['x-github-delivery'], outcome: 'notified', projectSlug: 'app', hasBody: true });
    const detail = (await call('GET', `/api/deliveries/${row?.id}`)).json as unknown as DeliveryDetail;
    expect(detail.body).toBe(JSON.stringify(JSON.parse(pr.body), null, 2));
  });

  it('keep no body when the relay forwards none (RELAY_FORWARD_BODIES=false), and say so', async () => {
    const { relay, call, list } = await relayAndDashboard({ RELAY_FORWARD_BODIES: 'false' });
    expect(await relay.post(githubDelivery())).toBe(200);
    expect((await call('POST', '/api/relay/poll')).status).toBe(200);
    const [row] = (await list()).deliveries;
    expect(row).toMatchObject({ source: 'relay', outcome: 'notified', hasBody: false });
    expect((await call('GET', `/api/deliveries/${row?.id}`)).json).toMatchObject({ body: null, bodyNote: 'not_kept' });
  });

  it('that the relay refused are counted there and read beside the background poller’s polls, with what to check', async () => {
    const { relay, api, call, list } = await relayAndDashboard();
    expect(await relay.post(githubDelivery({ secret: 'not-the-secret' }))).toBe(401);
    expect(await relay.post(githubDelivery({ secret: 'not-the-secret' }))).toBe(401);
    expect(await relay.post(ping())).toBe(200);
    api.ctx.notifications.poller.start();
    cleanup.push(() => api.ctx.notifications.poller.stop());

    const summary = await until(
      async () => (await call('GET', '/api/deliveries/refusals')).json as unknown as RefusalSummary,
      (read) => read.counts.length === 2,
      10_000,
      'the relay’s two counts read',
    );
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
    expect(summary.counts).toEqual(
      expect.arrayContaining([
        { hour, source: 'relay', integration: 'code_host', reason: 'bad_signature', count: 2 },
        { hour, source: 'relay', integration: 'code_host', reason: 'not_handled', count: 1 },
      ]),
    );
    expect(summary.advice.map((line) => line.message)).toEqual([
      'GitHub: 2 refused for a bad signature in the last hour: check the webhook secret: the one saved at the service must be the relay’s',
      'GitHub: 1 taken in but of kinds no notification comes of in the last hour: subscribe the webhook to the events the dashboard handles (docs/relay.md)',
    ]);
    expect(summary.relayReadAt).not.toBeNull();
    // None of them is a row: what the relay refused never reached the dashboard.
    expect((await list()).deliveries).toEqual([]);
  });

  it('that a managed relay refused for one tenant are that tenant’s dashboard’s counts only', async () => {
    const { relay, tenants } = await twoTenants();
    const [acme, globex] = tenants as [(typeof tenants)[number], (typeof tenants)[number]];
    // Signed with globex's secret, sent to acme's URL: acme's relay scope refuses it.
    expect(await relay.postTo('/api/t/acme/webhooks/code_host', githubDelivery({ secret: 'globex-signing-secret' }))).toBe(401);
    for (const tenant of tenants) {
      tenant.api.ctx.notifications.poller.start();
      cleanup.push(() => tenant.api.ctx.notifications.poller.stop());
    }
    const read = async (tenant: typeof acme) => (await tenant.call('GET', '/api/deliveries/refusals')).json as unknown as RefusalSummary;
    const acmes = await until(() => read(acme), (summary) => summary.counts.length === 1, 10_000, 'acme’s count read');
    expect(acmes.counts[0]).toMatchObject({ source: 'relay', integration: 'code_host', reason: 'bad_signature', count: 1 });
    const globexes = await until(() => read(globex), (summary) => summary.relayReadAt !== null, 10_000, 'globex’s counts read');
    expect(globexes.counts).toEqual([]);
  });
});
