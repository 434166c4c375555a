import { POLL_SECRET } from '@dash/relay/testing';
import { describe, expect, it } from 'vitest';
import { sleep, until } from '../testing/waiting.ts';
import { errorOf, manualClock, pollerTests, post, relayEnv, signed } from './poller-testing.ts';

// The relay's 20 polls a minute, kept by the dashboard: explicit polls and the background poller's counted together,
// so the relay never answers 429.

const { startRelay, dashboard } = pollerTests();

describe("the relay's poll limit", () => {
  it('sends at most 20 polls a minute however often the poll is asked for, and never draws a 429 from the relay', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched()]);
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });

    const answers = await Promise.all(Array.from({ length: 30 }, () => dash.call('POST', '/api/relay/poll')));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(errorOf(refused)).toEqual({ code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/^The relay allows 20 polls a minute; the next is free in \d+ s$/) });
    }
    expect(relay.polls()).toHaveLength(20);
    expect(relay.requests.filter((r) => r.status === 429)).toEqual([]);
    expect(await dash.inbox()).toHaveLength(1);
  });

  it('counts the background poller and explicit polls together, giving back only the held polls an event woke', async () => {
    const relay = await startRelay();
    const clock = manualClock();
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET), clock });
    for (let i = 0; i < 19; i++) expect((await dash.call('POST', '/api/relay/poll')).status).toBe(200);
    dash.poller.start();
    await until(() => relay.store.notices!.watching() === 1); // the 20th, held open by the relay
    await post(relay, [signed.unmatched()]);
    await until(async () => (await dash.inbox()).length === 1);
    // The event woke it, so the relay gave it back, and so does the dashboard: the loop holds its next poll at once.
    // (The served relay records a request once it has answered it: a held one shows only as a watch.)
    await until(() => relay.polls().length === 20 && relay.store.notices!.watching() === 1);
    expect(relay.polls()[19]).toMatchObject({ status: 200, query: { wait: '20' } });

    // That one counts (it is held, not woken): with 20 in the minute, Poll now cuts it short and finds no turn left.
    const refused = await dash.call('POST', '/api/relay/poll');
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ error: { message: expect.stringContaining('The relay allows 20 polls a minute') } });
    await until(() => relay.polls().length === 21);
    await sleep(200);
    expect(relay.polls()).toHaveLength(21);
    expect(relay.requests.filter((r) => r.status === 429)).toEqual([]);
  });
});
