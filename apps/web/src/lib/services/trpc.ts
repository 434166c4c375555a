import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { AppRouter } from '@dash/api';

/** The browser's one client for the dashboard's procedures. */
export const api = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: '/api/trpc' })] });
