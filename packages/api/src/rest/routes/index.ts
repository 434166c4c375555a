import type { RestRoute } from '../route.ts';
import { briefingRoutes } from './briefing.ts';
import { backupRoutes, dataRoutes } from './data.ts';
import { historyRoutes, metricAlertRoutes } from './history.ts';
import { deliveriesRoutes, destinationRoutes, inboxRoutes } from './notifications.ts';
import { setupRoutes } from './setup.ts';

/**
 * The spec's REST paths, each served by one procedure, with what the OpenAPI document says of it: the table of every
 * part's routes, in the order the document lists them.
 */
export const restRoutes: readonly RestRoute[] = [
  ...setupRoutes,
  ...inboxRoutes,
  ...backupRoutes,
  ...destinationRoutes,
  ...briefingRoutes,
  ...historyRoutes,
  ...metricAlertRoutes,
  ...deliveriesRoutes,
  ...dataRoutes,
];
