import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import type { AppRouter } from '@dash/api';

/** A session that ended (signed out elsewhere, expired) sends the page to sign in, then back here. */
const signInWhenSignedOut: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (response.status === 401) {
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
