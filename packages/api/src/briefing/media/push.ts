import type { PushPayload } from '@dash/contracts';
import { outline, type BriefingRender } from './outline.ts';

/**
 * The briefing as a push (the payload the service worker shows, contracts/push.ts): a digest whose body is the one-line
 * summary ("2 need you · 5 products · MRR $12,400 (+3 %)") and whose click opens /briefing on the dashboard's own
 * origin (a path: the worker opens it where it was installed, so it needs no public address). One tag for every
 * briefing of the period, so a device shows the latest only, and says so again (`renotify`).
 */
export function pushBriefing(input: BriefingRender): PushPayload {
  const view = outline(input);
  const { needsYou } = input.briefing;
  const told = input.parts.includes('needs_you');
  const severity = !told || needsYou.length === 0 ? 'info' : needsYou.some((line) => line.severity === 'error') ? 'error' : 'warning';
  return {
    kind: 'digest',
    notificationId: null,
    title: view.title,
    body: view.summary,
    severity,
    tag: `briefing-${input.period}`,
    url: '/briefing',
    renotify: true,
    requireInteraction: false,
  };
}
