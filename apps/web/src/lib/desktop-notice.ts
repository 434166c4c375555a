/**
 * A desktop notification of an interruption, on this device: the permission to show one, and showing or closing one,
 * through the service worker's registration when its worker is active (as a push is shown), else the page's own. Which
 * tab shows which interruption is managers/desktop-alerts.svelte.ts's say.
 */
import { threadPath } from '@dash/contracts/names';
import type { Interruption } from '@dash/contracts';
import { noticeOf, saysAlready } from '$lib/notice';

/** The permission, or why there is none to ask for. */
export type AlertPermission = NotificationPermission | 'unsupported' | 'insecure';

export function readPermission(): AlertPermission {
  if (typeof window === 'undefined') return 'default';
  if (!window.isSecureContext) return 'insecure';
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.permission;
}

/** The service worker's registration, when its worker is active: what shows a push, and this tab's desktop notices. */
async function workerRegistration(): Promise<ServiceWorkerRegistration | undefined> {
  if (!('serviceWorker' in navigator)) return undefined;
  try {
    const registration = await navigator.serviceWorker.getRegistration();
    return registration?.active ? registration : undefined;
  } catch {
    return undefined;
  }
}

/** Closes the device's notices of a thread (the service worker's registration lists a push's and every tab's). */
export function closeOnDevice(tag: string): void {
  void workerRegistration()
    .then(async (registration) => {
      for (const notice of (await registration?.getNotifications({ tag })) ?? []) notice.close();
    })
    .catch(() => undefined);
}

/**
 * Shows it through the service worker's registration, as a push is shown, with the push's tag and data: the device shows
 * one notice per thread whichever of the two comes first, none when the one showing says this already, and a click on it
 * goes where a push's goes. False without an active worker (the first visit, a browser without one), or when it refused.
 */
export async function showOnDevice(interrupt: Interruption): Promise<boolean> {
  const registration = await workerRegistration();
  if (!registration) return false;
  const { title, options } = noticeOf({ ...interrupt, url: threadPath(interrupt.notificationId) });
  try {
    if (!saysAlready(await registration.getNotifications({ tag: interrupt.tag }), title, options.body)) await registration.showNotification(title, options);
    return true;
  } catch {
    // Refused after all (the worker went meanwhile): the page's own, then.
    return false;
  }
}

/** The page's own notification of it, for its caller to follow (a click, its close); undefined when the browser allows none. */
export function showOnPage(interrupt: Interruption): Notification | undefined {
  const options: NotificationOptions & { renotify?: boolean } = {
    body: interrupt.body,
    tag: interrupt.tag,
    renotify: interrupt.renotify,
    requireInteraction: interrupt.requireInteraction,
    data: { id: interrupt.id, notificationId: interrupt.notificationId, url: interrupt.url },
  };
  try {
    return new Notification(interrupt.title, options);
  } catch {
    // Some browsers (Chrome on Android) only notify through a service worker: the inbox still has it.
    return undefined;
  }
}
