// The names and small helpers the browser's pages need at run time, without zod (`@dash/contracts/names`): importing the
// index builds every schema, and would bring zod and all of them into the script a page waits for before it paints.
import type { IntegrationName } from './projects.ts';
import type { NotificationSource, WebhookIntegration } from './notifications.ts';

export { httpUrl } from './links.ts';
export * from './metrics.ts';

export const ranges = ['7d', '15d', '30d', '3m', '1y', 'all'] as const;

export const currencies = ['USD', 'CAD'] as const;

/** The six places on the dashboard grid, in reading order. */
export const slotNames = ['revenue', 'shipping', 'ideas', 'analytics', 'seo', 'detail'] as const;

/** Every integration a project may set up, in the schema's order (names.test.ts holds them to it). */
export const integrationNames = [
  'revenue',
  'code_host',
  'deploy_host',
  'issue_tracker',
  'storefront',
  'analytics',
  'seo',
  'error_tracker',
  'uptime_monitor',
  'funding',
] as const satisfies readonly IntegrationName[];

/** The service behind each integration that sends webhooks, as people name it. */
export const webhookSourceNames: Record<WebhookIntegration, string> = {
  code_host: 'GitHub',
  deploy_host: 'Vercel',
  error_tracker: 'Sentry',
  issue_tracker: 'Linear',
  uptime_monitor: 'Better Stack',
};

/** Where each notification comes from, as people name it: the webhook senders, and the dashboard's own change alerts. */
export const notificationSourceNames: Record<NotificationSource, string> = { ...webhookSourceNames, metrics: 'Metric alerts' };

/** `{ configured: false }` (data.ts's notConfiguredSchema): the integration is not set up for the asked project (or for any). */
export const notConfigured = (integration: IntegrationName, message: string): { configured: false; integration: string; message: string } => ({
  configured: false,
  integration,
  message,
});

/** Where a message about the inbox row `notificationId` leads: the bell's panel at that row; the dashboard's start for none. */
export const threadPath = (notificationId: string | null): string => (notificationId === null ? '/' : `/?notification=${encodeURIComponent(notificationId)}`);
