import { guardedFetch, systemClock } from '@dash/connectors';
import { startSandbox, type Sandbox } from '@dash/sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NtfyAdapter } from '../../channels/ntfy/index.ts';
import { renderBriefing } from './index.ts';
import { briefingOf, hostileBriefing, HOSTILE_NAME, ORIGIN, renderOf } from './testing.ts';

// The briefing as one ntfy notification, published through the adapter's raw send to the fake ntfy server (which
// holds it to ntfy's publishing reference and its 4,096-byte message).

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const adapter = new NtfyAdapter({ fetch: guardedFetch(), clock: systemClock });

describe('the briefing on ntfy', () => {
  it('is a short summary with a click to the briefing, as plain text, and the server takes it', async () => {
    const payload = renderBriefing('ntfy', renderOf(briefingOf(12)));
    expect(payload).toMatchObject({ title: 'Daily briefing · Thu 26 Nov', priority: 4, tags: ['newspaper'], click: `${ORIGIN}/briefing` });
    expect(payload.message.split('\n')).toEqual([
      '2 need you · 12 products · MRR $155,400 (+8 %) · 72 shipped · 48 new reviews · 2 metric alerts',
      expect.stringMatching(/^• ● Formfox — the long-named edition .*#1: One 1-star review$/),
      '• ▲ Tideline — the long-named edition for teams who ship every day, the long-named edition for teams who ship every day, #2: 3 new error issues, 6 users affected',
      expect.stringMatching(/^• Formfox .*: MRR below \$12,000 for 3 days now: \$11,900 \(since Mon 23 Nov\)$/),
      expect.stringMatching(/^• Harbor Notes .*: Visitors 45 % below the same weekday last week \(since Wed 25 Nov\)$/),
    ]);
    const outcome = await adapter.sendRaw({ server: sandbox.services.ntfy.url, topic: 'briefing' }, payload);
    const [received] = sandbox.ntfyMessages('briefing');
    expect(outcome).toEqual({ kind: 'sent', status: 200, providerId: received?.id });
    expect(received).toMatchObject({ title: payload.title, message: payload.message, priority: 4, click: `${ORIGIN}/briefing` });
    expect(received?.content_type).toBeUndefined();
  });

  it('shows strangers’ text as typed (Markdown is never asked for), honours the parts, and has no click without the address', async () => {
    const hostile = renderBriefing('ntfy', renderOf(hostileBriefing()));
    await adapter.sendRaw({ server: sandbox.services.ntfy.url, topic: 'hostile' }, hostile);
    const [received] = sandbox.ntfyMessages('hostile');
    expect(received?.message).toContain(`• ● ${HOSTILE_NAME}: One 1-star review: ${HOSTILE_NAME}`);
    expect(received?.content_type).toBeUndefined();

    const quiet = renderBriefing('ntfy', renderOf(briefingOf(3), { parts: ['figures'], origin: null }));
    expect(quiet).toMatchObject({ priority: 3, click: null, message: '3 products · MRR $37,500 (+4 %)' });
    await adapter.sendRaw({ server: sandbox.services.ntfy.url, topic: 'quiet' }, quiet);
    expect(sandbox.ntfyMessages('quiet')[0]?.click).toBeUndefined();
  });
});
