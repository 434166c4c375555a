import { systemClock } from '@dash/connectors';
import { githubDelivery, POLL_SECRET } from '@dash/relay/testing';
import { describe, expect, it } from 'vitest';
import * as vercel from '../../../webhooks/src/vercel/fixtures.ts';
import { sleep, until } from '../testing/waiting.ts';
import { RelayPoller } from './poller.ts';
import { clockAtNoon, createProjects, manualClock, pollerTests, post, relayEnv, signed } from './poller-testing.ts';

// The background poller's loop: a long poll the relay holds, started and stopped by the settings, an unreachable relay
// retried quietly; and Poll now and stopping while it runs.

const { startRelay, dashboard } = pollerTests();

describe('the background poller', () => {
  it('brings a webhook posted while it waits on the relay into the inbox within seconds (long-poll)', async () => {
    const relay = await startRelay();
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET), clock: clockAtNoon() });
    await createProjects(dash);
    dash.poller.start();
    // The poller's request is held open by the relay.
    await until(() => relay.store.notices!.watching() === 1);

    await post(relay, [signed.vercel(vercel.deployment('deployment.error'))]);
    // Well before the 15 s of plain polling.
    await until(async () => (await dash.inbox()).length === 1, 5_000);
    expect(await dash.inbox()).toEqual([expect.objectContaining({ integration: 'deploy_host', type: 'deploy.error', project: 'web' })]);
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({
      poller: { state: 'polling', longPoll: true, eventsToday: 1, lastError: null, relayTimestamp: expect.any(Number) },
    });
    // And it waits again for the next one.
    await until(() => relay.store.notices!.watching() === 1);
    expect(relay.polls().every((p) => p.status === 200)).toBe(true);
  });

  it('stays stopped without a relay configured, starts when the URL and secret are saved, and stops when one is removed', async () => {
    const relay = await startRelay();
    const dash = await dashboard();
    dash.poller.start();
    await sleep(100);
    expect(dash.poller.status()).toMatchObject({ configured: false, state: 'stopped' });
    expect((await dash.call('POST', '/api/settings', { relayUrl: relay.url() })).status).toBe(200);
    await sleep(100);
    expect(dash.poller.status()).toMatchObject({ configured: false, state: 'stopped' });
    expect(relay.requests).toEqual([]);

    await dash.caller.relay.saveSecret({ secret: POLL_SECRET });
    await until(() => relay.store.notices!.watching() === 1);
    await post(relay, [signed.unmatched(1)]);
    await until(async () => (await dash.inbox()).length === 1);
    expect(dash.poller.status()).toMatchObject({ configured: true, state: 'polling' });

    // Removing the secret ends the held poll and stops the loop.
    await dash.caller.relay.saveSecret({ secret: null });
    await until(() => dash.poller.status().state === 'stopped' && relay.store.notices!.watching() === 0);
    const polls = relay.polls().length;
    await post(relay, [signed.unmatched(2)]);
    await sleep(300);
    expect(relay.polls()).toHaveLength(polls);
    expect(await dash.inbox()).toHaveLength(1);
    expect(dash.poller.status()).toMatchObject({ configured: false, state: 'stopped' });

    // Saving it again picks up what came meanwhile.
    await dash.caller.relay.saveSecret({ secret: POLL_SECRET });
    await until(async () => (await dash.inbox()).length === 2);
  });

  it('retries an unreachable relay quietly: one warn line per outage, one line when it is back, nothing lost', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched(1)]);
    await relay.close();
    const clock = manualClock();
    let attempts = 0;
    // Polls only: the loop also reads the relay's refusal counts beside them (once a minute, never waited for).
    const counting: typeof fetch = (input, init) => {
      if (new URL(input instanceof Request ? input.url : input).pathname.endsWith('/events')) attempts++;
      return fetch(input, init);
    };
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET), clock, fetch: counting });
    const warnings = () => dash.log.lines.filter((line) => line.startsWith('warn '));
    /** One more turn of the loop: past any back-off, until it has tried and is sleeping again. */
    const nextAttempt = async () => {
      const before = attempts;
      clock.advance(300_000);
      await until(() => attempts === before + 1 && clock.sleeping() === 1);
    };

    dash.poller.start();
    await until(() => attempts === 1 && clock.sleeping() === 1);
    expect(dash.poller.status()).toMatchObject({ state: 'backing_off', lastError: expect.stringMatching(/^The relay cannot be reached: .*ECONNREFUSED/) });
    // Webhooks keep arriving at the relay while the dashboard cannot reach it.
    expect(await relay.accept(githubDelivery({ number: 2 }))).toBe(200);
    for (let i = 0; i < 4; i++) await nextAttempt();
    expect(attempts).toBe(5);
    expect(warnings()).toEqual([expect.stringMatching(/^warn relay poll failed: The relay cannot be reached: .*ECONNREFUSED/)]);
    expect(dash.log.lines).toHaveLength(1);
    expect(await dash.inbox()).toEqual([]);

    // Back: the next turn reads everything it missed, and says so once.
    await relay.open();
    expect(await relay.accept(githubDelivery({ number: 3 }))).toBe(200);
    clock.advance(300_000);
    await until(async () => (await dash.inbox()).length === 3);
    expect((await dash.inbox()).map((n) => n.url)).toEqual([3, 2, 1].map((n) => `https://github.com/acme/app/pull/${n}`));
    expect(dash.log.lines.filter((line) => line.startsWith('info '))).toEqual(['info relay polled again after 5 failed attempt(s)']);
    expect(dash.poller.status()).toMatchObject({ state: 'polling', lastError: null });

    // A second outage is a second (single) line.
    await until(() => relay.store.notices!.watching() === 1);
    await relay.close();
    await until(() => clock.sleeping() === 1);
    await nextAttempt();
    await nextAttempt();
    expect(warnings()).toHaveLength(2);
    expect(await dash.inbox()).toHaveLength(3);
  });
});

describe('Poll now and stopping, while the background poller runs', () => {
  it('an explicit poll while the background poller waits on the relay answers at once, not when the held poll ends', async () => {
    const relay = await startRelay();
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });
    dash.poller.start();
    await until(() => relay.store.notices!.watching() === 1);

    // The relay holds the background poll for up to 20 s; "Poll now" should not wait for it.
    const poll = dash.call('POST', '/api/relay/poll');
    poll.catch(() => undefined);
    const first = await Promise.race([poll.then(() => 'answered'), sleep(3_000).then(() => 'still waiting after 3 s')]);
    expect(first).toBe('answered');
    expect((await poll).json).toMatchObject({ configured: true, eventCount: 0 });
  });

  it('a poller stopped while it reads its settings does not take the lease afterwards, so another process takes over at once', async () => {
    const relay = await startRelay();
    const a = await dashboard();
    let settingsRead!: (target: { url: string; secret: string }) => void;
    const reading = new Promise<{ url: string; secret: string }>((resolve) => (settingsRead = resolve));
    const poller = new RelayPoller({ store: a.store, inbox: a.ctx.notifications.inbox, target: () => reading, log: a.log, clock: systemClock, fetch });
    poller.start();
    await sleep(20);
    // Shut down while the loop waits for its settings, which arrive just after.
    const stopping = poller.stop();
    settingsRead({ url: relay.url(), secret: POLL_SECRET });
    await stopping;
    await sleep(50);
    expect(poller.status().state).toBe('stopped');
    expect(relay.polls()).toEqual([]);

    const b = await dashboard({ dir: a.dir, credentialsKey: a.credentialsKey, relay: relayEnv(relay.url(), POLL_SECRET) });
    b.poller.start();
    await until(() => b.poller.status().state === 'standby' || relay.store.notices!.watching() === 1);
    expect(b.poller.status().state).not.toBe('standby');
    expect(relay.store.notices!.watching()).toBe(1);
  });
});
