import type { Integrations } from '@dash/contracts';
import type { HealthConnector } from '../connector.ts';
import type { ConnectorContext } from '../context.ts';
import { isoDay } from '../dates.ts';
import { collectPages, defineClient } from '../http.ts';
import { daysBetween, readableWindow } from '../series.ts';
import { dailyUptime, latestResponseMs, toIncident, toMonitor } from './map.ts';
import { errorBody, incidentList, monitorList, monitorSla, responseTimes, type BetterStackIncident, type BetterStackMonitor } from './schemas.ts';

const client = defineClient({
  service: 'Better Stack',
  headers: (credentials) => ({ authorization: `Bearer ${credentials.apiToken ?? ''}` }),
  errorMessage(body) {
    const parsed = errorBody.safeParse(body);
    if (!parsed.success) return undefined;
    return Array.isArray(parsed.data.errors) ? parsed.data.errors.join('; ') : parsed.data.errors;
  },
});

/** The monitors the project names that are not paused, as one listing finds them, however many pages the team has. */
async function projectMonitors(ctx: ConnectorContext, config: Integrations['uptime_monitor']): Promise<BetterStackMonitor[]> {
  const wanted = new Set(config.monitorIds);
  const all = await collectPages<BetterStackMonitor, string>(undefined, async (next) => {
    const page = next
      ? (await client.request(ctx, { path: next, schema: monitorList })).data
      : await client.get(ctx, '/v2/monitors', { per_page: 250 }, monitorList);
    return { items: page.data, next: page.pagination.next ?? undefined };
  });
  return all.filter((m) => wanted.has(m.id) && m.attributes.status !== 'paused');
}

/** How many availability requests a series read has in flight at once; each still takes its turn on the limiter. */
const SLA_CONCURRENCY = 4;

/** `work` over every item, at most `limit` at a time, the results in the items' order; the first failure fails all. */
async function inTurns<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Better Stack Uptime: the project's monitors (status, latest response time) and their open incidents. */
export const betterstack: HealthConnector = {
  service: 'betterstack',
  defaultBaseUrl: 'https://uptime.betterstack.com/api',

  async test(ctx) {
    await client.get(ctx, '/v2/monitors', { per_page: 1 }, monitorList);
  },

  async health(ctx, { config }) {
    const monitors = await projectMonitors(ctx, config);

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

  history: {
    // One request per monitor and day: a month is ~30 × the project's monitors, which a backfill can afford.
    seriesDays: 30,
    /**
     * `uptime.up_ratio` (the monitors' average availability, 0-1) and `uptime.incidents` (their incidents, summed) per
     * day, from each monitor's availability summary of that one day, `from` and `to` both that day. Better Stack's
     * page does not say whether `to` is inclusive; it refuses only an end before the start, and the summary of a
     * single day is what a day's row is, so a day is asked as from=to=that day. `number_of_incidents` is the summary's
     * count for the period, taken as the incidents that started in it. The monitors are those `health` shows (named by
     * the project, not paused); a day before a monitor was created is not asked for it, and a day no monitor covers
     * is left out. Requests run SLA_CONCURRENCY at a time, each through the account's limiter.
     */
    async series(ctx, { config, ...window }) {
      const span = readableWindow(window);
      if (!span) return [];
      const monitors = await projectMonitors(ctx, config);
      const asks = monitors.flatMap((monitor) => {
        const created = monitor.attributes.created_at ? isoDay(Date.parse(monitor.attributes.created_at)) : span.from;
        return daysBetween(created > span.from ? created : span.from, span.to).map((date) => ({ id: monitor.id, date }));
      });
      const summaries = await inTurns(asks, SLA_CONCURRENCY, async ({ id, date }) => {
        const { data } = await client.get(ctx, `/v2/monitors/${encodeURIComponent(id)}/sla`, { from: date, to: date }, monitorSla);
        return { date, ...data.attributes };
      });
      return dailyUptime(summaries);
    },
  },
};
