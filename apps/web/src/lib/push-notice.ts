// What a Web Push shows and where a click on it goes: the service worker's decisions (src/service-worker/push.ts), kept
// pure here so a unit test can hold them. The push carries the contract's PushPayload, or a PushPointer to fetch it by
// when it was too large for the push service (packages/contracts/src/push.ts).
import { threadPath } from '@dash/contracts/names';
import { pushPayloadSchema, pushPointerSchema, type PushPayload, type PushPointer } from '@dash/contracts/push';
import type { NoticeData } from './notice';

/** Where the worker asks for a message too large to push (the pointer's `fetch`); it answers a PushPayload, 404 when unknown. */
export const pushMessagePath = (id: string) => `/api/push/messages/${encodeURIComponent(id)}`;

/** What the worker shows when a push says nothing it can read, or its message cannot be fetched. */
export function genericNotice(tag = 'dashboard-push', url = '/'): PushPayload {
  return {
    kind: 'alert',
    notificationId: null,
    title: 'New notification',
    body: 'Open the dashboard to see it.',
    severity: 'info',
    tag,
    url,
    renotify: true,
    requireInteraction: false,
  };
}

/** A push's text read as the contract says: the message itself, a pointer to it, or (anything else) a generic notice. */
export function readPush(text: string | undefined): { payload: PushPayload } | { pointer: PushPointer } {
  let json: unknown;
  try {
    json = JSON.parse(text ?? '');
  } catch {
    return { payload: genericNotice() };
  }
  const payload = pushPayloadSchema.safeParse(json);
  if (payload.success) return { payload: payload.data };
  const pointer = pushPointerSchema.safeParse(json);
  if (pointer.success) return { pointer: pointer.data };
  return { payload: genericNotice() };
}

/** What the message endpoint answered, or the generic notice with the pointer's tag and url when that is not a message. */
export function fetchedPush(json: unknown, pointer: PushPointer): PushPayload {
  const payload = pushPayloadSchema.safeParse(json);
  return payload.success ? payload.data : genericNotice(pointer.tag, pointer.url);
}

/**
 * Whether a window of the dashboard shows this message itself, so the push stays silent: one in view with the live
 * inbox (its toast). A test always shows: the user asked for it on this device. The sign-in and set-up pages and the
 * offline page have no inbox, so a window showing one of those does not count.
 */
export function shownByWindow(kind: PushPayload['kind'], windows: readonly { url: string; visibilityState: DocumentVisibilityState }[]): boolean {
  if (kind === 'test') return false;
  return windows.some((window) => window.visibilityState === 'visible' && hasInbox(window.url));
}

function hasInbox(url: string): boolean {
  const path = new URL(url).pathname;
  return !['/login', '/setup', '/offline.html'].includes(path);
}

/**
 * Where a click on a notification goes, as an absolute URL on `origin`: its `url` when that is a path here (anything
 * pointing elsewhere is ignored: a click only ever opens the dashboard), else the thread, else the dashboard's start.
 */
export function clickTarget(data: unknown, origin: string): string {
  const { url, notificationId } = (typeof data === 'object' && data !== null ? data : {}) as Partial<Record<keyof NoticeData, unknown>>;
  if (typeof url === 'string') {
    try {
      const target = new URL(url, origin);
      if (target.origin === origin) return target.href;
    } catch {
      // Not a URL at all: the thread or the start instead.
    }
  }
  if (typeof notificationId === 'string') return new URL(threadPath(notificationId), origin).href;
  return new URL('/', origin).href;
}
