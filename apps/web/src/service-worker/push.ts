// Web Push (issue 38): a push becomes one notification on this device, unless a dashboard window in view shows it as a
// toast, or a hidden dashboard tab showed the same message already (through this worker's registration, with the same
// tag); a click on one brings the dashboard to the thread. What is shown and where a click goes are decided in
// $lib/notice.ts and $lib/push-notice.ts; this file does the worker's part of each.
import { noticeOf, saysAlready } from '$lib/notice';
import { clickTarget, fetchedPush, pushMessagePath, readPush, shownByWindow } from '$lib/push-notice';
import type { PushPayload } from '@dash/contracts/push';

/** The `push` event: shows the message, or nothing when a window in view has it. */
export function onPush(worker: ServiceWorkerGlobalScope, event: PushEvent): void {
  event.waitUntil(showPush(worker, event.data?.text()));
}

export async function showPush(worker: ServiceWorkerGlobalScope, text: string | undefined): Promise<void> {
  const payload = await messageOf(text);
  const windows = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
  if (shownByWindow(payload.kind, windows)) return;
  const { title, options } = noticeOf(payload);
  // A hidden dashboard tab may have shown this very message already (desktop-alerts.svelte.ts): one notice per device.
  if (payload.kind !== 'test' && saysAlready(await worker.registration.getNotifications({ tag: payload.tag }), title, options.body)) return;
  await worker.registration.showNotification(title, options);
}

/** The push's message; a pointer's from the dashboard (signed in: the session's cookie goes with it). */
async function messageOf(text: string | undefined): Promise<PushPayload> {
  const read = readPush(text);
  if ('payload' in read) return read.payload;
  const { pointer } = read;
  try {
    const response = await fetch(pushMessagePath(pointer.fetch), { credentials: 'same-origin', headers: { accept: 'application/json' } });
    return fetchedPush(response.ok ? ((await response.json()) as unknown) : undefined, pointer);
  } catch {
    // Offline, or the dashboard down: the notice still comes, with the thread to open later.
    return fetchedPush(undefined, pointer);
  }
}

/** The `notificationclick` event: the dashboard at the thread (the click's time is when a window may be focused or opened). */
export function onNotificationClick(worker: ServiceWorkerGlobalScope, event: NotificationEvent): void {
  event.waitUntil(openFromNotification(worker, event.notification));
}

/**
 * Closes the notification and shows its thread: in an open dashboard window (the focused one, else one in view, else
 * any), focused and navigated there, where the bell opens its panel at `?notification=<id>`; or in a new window when
 * none is open, or the open one cannot be navigated (a window this worker does not control).
 */
export async function openFromNotification(worker: ServiceWorkerGlobalScope, notification: Notification): Promise<WindowClient | null> {
  notification.close();
  const url = clickTarget(notification.data, worker.location.origin);
  const windows = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((window) => window.focused) ?? windows.find((window) => window.visibilityState === 'visible') ?? windows[0];
  if (open) {
    // Focusing is allowed only just after a click; without one (a script calling this) the window is navigated all the same.
    const focused = await open.focus().catch(() => open);
    const navigated = await focused.navigate(url).catch(() => null);
    if (navigated) return navigated;
  }
  return worker.clients.openWindow(url);
}
