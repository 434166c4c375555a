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
