/**
 * The dry run's answer in a few words per channel, as Settings → Notifications' preview shows it: "Browser notification
 * now", "Email held until 07:00 (quiet hours)", "Push now to Phone and Laptop (…)", "Chat now to #ops (…)".
 */
import type { DryRunResult } from '@dash/contracts';
import { whenText } from '$lib/utils/when';

const list = (names: readonly string[]) => new Intl.ListFormat('en', { type: 'conjunction' }).format(names);

/** The email outcome in a few words, with the planner's reason: "Email now (queued for SendGrid)", … */
export function emailOutcome(result: DryRunResult): string {
  const { email } = result.delivery;
  const words = { now: 'Email now', held: 'Email held', deferred: 'Email deferred to the digest', suppressed: 'No email (suppressed)', none: 'No email' }[email.status];
  const until = email.until && email.status !== 'now' ? ` until ${whenText(email.until)}` : '';
  return `${words}${until} (${email.why})`;
}

/** The push outcome in a few words, naming the devices: "Push now to Phone and Laptop (queued for each subscribed device)", … */
export function pushOutcome(result: DryRunResult): string {
  const { push } = result.delivery;
  const words = { now: 'Push now', held: 'Push held', deferred: 'Push deferred to the digest', suppressed: 'No push (suppressed)', none: 'No push' }[push.status];
  const names = push.devices?.map((device) => device.name) ?? [];
  const to = names.length > 0 ? ` to ${list(names)}` : '';
  const until = push.until && push.status !== 'now' ? ` until ${whenText(push.until)}` : '';
  return `${words}${to}${until} (${push.why})`;
}

/** The chat outcome in a few words, naming the connections: "Chat now to #ops and Phone (queued for each chat and webhook connection)", … */
export function chatOutcome(result: DryRunResult): string {
  const { chat } = result.delivery;
  const words = { now: 'Chat now', held: 'Chat held', deferred: 'Chat deferred to the digest', suppressed: 'No chat (suppressed)', none: 'No chat' }[chat.status];
  const names = chat.connections?.map((connection) => connection.name) ?? [];
  const going = chat.status === 'now' || chat.status === 'held' || chat.status === 'deferred';
  // Each connection keeps what reaches its floor: one that sends errors only gets no warning.
  const to = names.length > 0 ? ` to ${list(names)}` : going ? `, but no connection takes ${result.decision.severity}` : '';
  const until = chat.until && chat.status !== 'now' ? ` until ${whenText(chat.until)}` : '';
  return `${words}${to}${until} (${chat.why})`;
}

/** The browser outcome in a few words: "Browser notification now", "Held 120 s", … (`flapHoldSeconds`: the hold when the server gives no end). */
export function browserOutcome(result: DryRunResult, flapHoldSeconds: number): string {
  const { browser } = result.delivery;
  switch (browser.status) {
    case 'now':
      return 'Browser notification now';
    case 'held': {
      const seconds = browser.until ? Math.max(1, Math.round((Date.parse(browser.until) - Date.now()) / 1000)) : flapHoldSeconds;
      return `Held ${seconds} s, then a browser notification unless it recovers first`;
    }
    case 'deferred': {
      // The server's `until` when it gives one, else the time its reason names ("quiet hours until 07:00").
      const until = browser.until ? whenText(browser.until) : /until ((?:[A-Z][a-z]{2} )?\d{2}:\d{2})/.exec(browser.why)?.[1];
      return `Deferred to the digest${until ? ` until ${until}` : ''}`;
    }
    case 'suppressed':
      return 'No browser notification (suppressed)';
    case 'none':
      return result.decision.discarded ? 'Discarded: stored as read, no notification' : 'In the inbox only';
  }
}
