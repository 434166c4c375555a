import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import type { AppRouter } from '@dash/api';

/**
 * Whether this document is being left (a form posted, a link followed): set when the browser starts
 * the navigation, cleared if the page comes back from the back-forward cache. Signing out is such a
 * navigation, and the server ends this tab's live stream at the same moment; a call that then meets
 * the 401 must not start a second navigation over the one already on its way to sign in.
 */
let leaving = false;
if (typeof window !== 'undefined') {
  addEventListener('beforeunload', () => (leaving = true));
  addEventListener('pageshow', (event) => {
    if (event.persisted) leaving = false;
  });
}

/** A session that ended (signed out elsewhere, expired) sends the page to sign in, then back here. */
const signInWhenSignedOut: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (response.status === 401 && !leaving) {
    const here = location.pathname + location.search;
    location.assign(`/login?next=${encodeURIComponent(here)}`);
  }
  return response;
};

/** The browser's one client for the dashboard's procedures; subscriptions (the live inbox) over Server-Sent Events. */
export const api = createTRPCClient<AppRouter>({
  links: [
    splitLink({
      condition: (op) => op.type === 'subscription',
      true: httpSubscriptionLink({ url: '/api/trpc' }),
      false: httpBatchLink({ url: '/api/trpc', fetch: signInWhenSignedOut }),
    }),
  ],
});
