// The notice the system shows for a message, a push's (src/service-worker/push.ts) or one a hidden dashboard tab shows
// itself (desktop-alerts.svelte.ts), and whether one showing says it already. Kept free of zod (a type-only import of
// the contract), unlike push-notice.ts, so that the page's first script, which shows a tab's notices, does not carry
// the schemas.
import type { PushPayload } from '@dash/contracts/push';

/** Every notification the worker shows carries this icon: the app's own, as installed. */
export const PUSH_ICON = '/icons/icon-192.png';

/** What a shown notification keeps for its click. */
export interface NoticeData {
  url: string;
  notificationId: string | null;
}

/**
 * `showNotification`'s arguments for a message: a push's, or an interruption a hidden dashboard tab shows itself
 * (desktop-alerts.svelte.ts), with the same tag, icon and data, so the two are one notice on the device. (`renotify`
 * is Chromium's; it needs a tag, which a message always has.)
 */
export function noticeOf(
  payload: Pick<PushPayload, 'title' | 'body' | 'tag' | 'url' | 'notificationId' | 'renotify' | 'requireInteraction'>,
): { title: string; options: NotificationOptions & { renotify: boolean } } {
  const data: NoticeData = { url: payload.url, notificationId: payload.notificationId };
  return {
    title: payload.title,
    options: { body: payload.body, tag: payload.tag, icon: PUSH_ICON, data, renotify: payload.renotify, requireInteraction: payload.requireInteraction },
  };
}

/**
 * Whether a notice now showing with the message's tag says this message already (the same title and body): the push of
 * an interruption and a hidden dashboard tab's own notice of it are one notice on the device, whichever comes first. A
 * new word on the thread (its recovery, "still down") differs, and replaces it.
 */
export function saysAlready(showing: readonly { title: string; body: string }[], title: string, body: string | undefined): boolean {
  return showing.some((notice) => notice.title === title && notice.body === (body ?? ''));
}
