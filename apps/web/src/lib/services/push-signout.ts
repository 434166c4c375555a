/**
 * Before signing out: this browser's push subscription is unsubscribed, and its endpoint answered, for the sign-out to
 * remove its device, so the next person at a shared computer gets no alert titles as system notifications. Nothing
 * here may stop a sign-out: without the Push API, a service worker or a subscription, or when the browser does not
 * answer within `waitMs`, it answers null and the sign-out goes on.
 */
export async function unsubscribeThisBrowser(waitMs = 3_000): Promise<string | null> {
  const attempt = async (): Promise<string | null> => {
    if (typeof navigator === 'undefined' || !('serviceWorker' in navigator) || typeof PushManager === 'undefined') return null;
    const registration = await navigator.serviceWorker.getRegistration();
    const subscription = await registration?.pushManager.getSubscription();
    if (!subscription) return null;
    const { endpoint } = subscription;
    await subscription.unsubscribe().catch(() => false);
    return endpoint;
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([attempt(), new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)))]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

const DEVICES_REMOVED = 'dash-devices-removed';
/** How long the sign-in page says so (it may load twice: the live stream's end can take the tab there first). */
const SAID_FOR_MS = 120_000;

/**
 * "Sign out everywhere" removes every push device: noted in this tab before it signs out, for the sign-in page to say
 * so however it is reached (the page's own navigation, or the live stream's end, which may come first).
 */
export function noteDevicesRemoved(removed: boolean): void {
  try {
    if (removed) sessionStorage.setItem(DEVICES_REMOVED, String(Date.now()));
    else sessionStorage.removeItem(DEVICES_REMOVED);
  } catch {
    // No storage (a locked-down browser): the sign-in page just does not say it.
  }
}

/** Whether this tab signed out everywhere in the last two minutes. */
export function devicesJustRemoved(): boolean {
  try {
    const at = Number(sessionStorage.getItem(DEVICES_REMOVED));
    return at > 0 && Date.now() - at < SAID_FOR_MS;
  } catch {
    return false;
  }
}
