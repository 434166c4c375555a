import type { HealthConnector } from '../connector.ts';
import { collectPages, defineClient } from '../http.ts';
import { latestResponseMs, toIncident, toMonitor } from './map.ts';
import { errorBody, incidentList, monitorList, responseTimes, type BetterStackIncident, type BetterStackMonitor } from './schemas.ts';

const client = defineClient({
  service: 'Better Stack',
  headers: (credentials) => ({ authorization: `Bearer ${credentials.apiToken ?? ''}` }),
  errorMessage(body) {
    const parsed = errorBody.safeParse(body);
    if (!parsed.success) return undefined;
    return Array.isArray(parsed.data.errors) ? parsed.data.errors.join('; ') : parsed.data.errors;
  },
});

/** Better Stack Uptime: the project's monitors (status, latest response time) and their open incidents. */
export const betterstack: HealthConnector = {
  service: 'betterstack',
  defaultBaseUrl: 'https://uptime.betterstack.com/api',

  async test(ctx) {
    await client.get(ctx, '/v2/monitors', { per_page: 1 }, monitorList);
  },

  async health(ctx, { config }) {
    const wanted = new Set(config.monitorIds);
    // One listing finds every monitor of the project, however many pages the team has.
    const all = await collectPages<BetterStackMonitor, string>(undefined, async (next) => {
      const page = next
        ? (await client.request(ctx, { path: next, schema: monitorList })).data
        : await client.get(ctx, '/v2/monitors', { per_page: 250 }, monitorList);
      return { items: page.data, next: page.pagination.next ?? undefined };
    });
    const monitors = all.filter((m) => wanted.has(m.id) && m.attributes.status !== 'paused');

    const [times, incidents] = await Promise.all([
      Promise.all(
        monitors.map(async (m) => latestResponseMs((await client.get(ctx, `/v2/monitors/${m.id}/response-times`, {}, responseTimes)).data.attributes.regions)),
      ),
      Promise.all(
        monitors.map(async (m) => (await client.get(ctx, '/v3/incidents', { monitor_id: m.id, resolved: false, per_page: 50 }, incidentList)).data),
      ),
    ]);
    const open = incidents.flat().filter((incident: BetterStackIncident) => incident.attributes.resolved_at === null);
    return {
      monitors: monitors.map((m, i) => toMonitor(m, times[i] ?? 0)),
      incidents: open.map(toIncident).sort((a, b) => b.startedAt.localeCompare(a.startedAt)),
    };
  },
};
