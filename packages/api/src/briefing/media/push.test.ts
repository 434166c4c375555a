import { pushPayloadSchema } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { renderBriefing } from './index.ts';
import { briefingOf, hostileBriefing, renderOf } from './testing.ts';

// The briefing as a push: what the service worker shows, in the payload type it reads.

describe('the briefing as a push', () => {
  it('is a one-line summary whose click opens /briefing, in the payload the service worker reads', () => {
    const payload = renderBriefing('push', renderOf(briefingOf(5)));
    expect(pushPayloadSchema.parse(payload)).toEqual({
      kind: 'digest',
      notificationId: null,
      title: 'Daily briefing · Thu 26 Nov',
      body: '2 need you · 5 products · MRR $63,000 (+5 %) · 30 shipped · 20 new reviews · 2 metric alerts',
      severity: 'error',
      tag: 'briefing-day',
      url: '/briefing',
      renotify: true,
      requireInteraction: false,
    });
    expect(payload.body).not.toContain('\n');
  });

  it('says only the chosen parts, and names no stranger’s text', () => {
    expect(renderBriefing('push', renderOf(briefingOf(5), { parts: ['figures'], period: 'week' }))).toMatchObject({
      title: 'Weekly briefing · Thu 26 Nov',
      body: '5 products · MRR $63,000 (+5 %)',
      severity: 'info',
      tag: 'briefing-week',
    });
    expect(renderBriefing('push', renderOf(briefingOf(2), { parts: ['needs_you'] })).body).toBe('2 need you · 2 products');
    expect(JSON.stringify(renderBriefing('push', renderOf(hostileBriefing())))).not.toContain('channel');
  });
});
