import { DAY_MS, demoProducts, sandboxTokens, seededRandom } from '../demo.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';
import { betterstackDocumented } from './documented.ts';

const MINUTE = 60_000;
/** How old the monitors are, and so how far back their availability goes: more than a year. */
const MONITOR_AGE_DAYS = 800;

/** A time a monitor was down: from `start` to `end` (ms), or until now while it lasts. */
interface Downtime {
  start: number;
  end: number | null;
}

/**
 * Better Stack's availability summary of one monitor over `from` to `to` (ms, clipped to its life and to now): the
 * share of the time it was up as a percentage, its downtime, and the incidents that started in it with their lengths,
 * in seconds as the documentation prints them.
 */
function availabilityOver(downtimes: readonly Downtime[], from: number, to: number, now: number) {
  const length = Math.max(0, to - from);
  let down = 0;
  const started: number[] = [];
  for (const { start, end } of downtimes) {
    const until = end ?? now;
    down += Math.max(0, Math.min(until, to) - Math.max(start, from));
    if (start >= from && start < to) started.push(Math.round((until - start) / 1000));
  }
  return {
    availability: length === 0 ? 100 : Math.round((1 - down / length) * 100_000) / 1000,
    total_downtime: Math.round(down / 1000),
    number_of_incidents: started.length,
    longest_incident: started.length === 0 ? 0 : Math.max(...started),
    average_incident: started.length === 0 ? 0 : Math.round(started.reduce((sum, s) => sum + s, 0) / started.length),
  };
}

/** `YYYY-MM-DD` as midnight UTC, or undefined when it is not such a day. */
function parseDay(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value ? undefined : ms;
}

/** A page of a JSON:API list with Better Stack's absolute `pagination` links. */
function page<T>(request: SandboxRequest, items: T[]): SandboxReply {
  const perPage = Math.min(250, Math.max(1, Number(request.query.get('per_page') ?? 50) || 50));
  const number = Math.max(1, Number(request.query.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number) => {
    const url = new URL(request.path, request.origin);
    for (const [name, value] of request.query) url.searchParams.set(name, value);
    url.searchParams.set('page', String(n));
    return url.toString();
  };
  return {
    body: {
      data: items.slice((number - 1) * perPage, number * perPage),
      pagination: { first: link(1), last: link(last), prev: number > 1 ? link(number - 1) : null, next: number < last ? link(number + 1) : null },
    },
  };
}

/**
 * Better Stack Uptime (`/api/v2/monitors`, their response times and availability summaries, `/api/v3/incidents`) over
 * the demo products' monitors.
 */
export function betterstackService(now: number): SandboxService {
  const random = seededRandom('betterstack');
  const demo = demoProducts.flatMap((product) => product.monitors.map((m) => ({ ...m, product: product.slug })));
  // Someone else's paused monitor, and enough others that the listing has a second page at per_page=5.
  const extra = [
    { id: '1990', name: 'Old landing page', url: 'https://old.example.com', status: 'paused', product: '' },
    ...Array.from({ length: 6 }, (_, i) => ({ id: String(1900 + i), name: `Side project ${i + 1}`, url: `https://side${i + 1}.example.com`, status: 'up', product: '' })),
  ];
  // Every attribute Better Stack's monitor pages print (betterstack/documented.ts), in their order.
  const monitors = [...extra, ...demo].map((m) => ({
    id: m.id,
    type: 'monitor',
    attributes: {
      url: m.url,
      pronounceable_name: m.name,
      monitor_type: 'status',
      monitor_group_id: null,
      last_checked_at: m.status === 'paused' ? null : new Date(now - Math.floor(random() * 3 * MINUTE)).toISOString(),
      status: m.status,
      policy_id: null,
      team_name: 'Demo founder',
      required_keyword: null,
      verify_ssl: true,
      check_frequency: 180,
      call: false,
      sms: false,
      email: true,
      push: true,
      team_wait: null,
      http_method: 'get',
      request_timeout: 30,
      recovery_period: 180,
      request_headers: [],
      request_body: '',
      paused_at: m.status === 'paused' ? new Date(now - 40 * 24 * 60 * MINUTE).toISOString() : null,
      created_at: new Date(now - MONITOR_AGE_DAYS * DAY_MS).toISOString(),
      updated_at: new Date(now - 2 * 24 * 60 * MINUTE).toISOString(),
      ssl_expiration: 14,
      domain_expiration: null,
      regions: ['us', 'eu'],
      // A monitor in maintenance is inside its window; the others have none set.
      maintenance_from: m.status === 'maintenance' ? '02:00:00' : null,
      maintenance_to: m.status === 'maintenance' ? '04:00:00' : null,
      maintenance_timezone: 'UTC',
      maintenance_days: m.status === 'maintenance' ? ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] : [],
      port: null,
      confirmation_period: 60,
      expected_status_codes: [],
    },
  }));
  const responseTimes = new Map(
    monitors.map((m) => {
      const base = 0.08 + random() * 0.4;
      const series = (region: string) => ({
        region,
        response_times: Array.from({ length: 8 }, (_, i) => ({
          at: new Date(now - (8 - i) * 3 * MINUTE).toISOString(),
          response_time: Math.round((base + random() * 0.05) * 100000) / 100000,
          name_lookup_time: 0.00002,
          connection_time: 0.02,
          tls_handshake_time: 0.03,
          data_transfer_time: 0.01,
        })),
      });
      return [m.id, { data: { id: m.id, type: 'monitor_response_times', attributes: { regions: [series('us'), series('eu')] } } }];
    }),
  );
  // v3's incident as its list page prints it: attributes, metadata as typed values, and the monitor it belongs to.
  const incident = (id: string, monitorId: string, cause: string, requestSeconds: string, startedAgo: number, resolvedAgo: number | null) => {
    const m = monitors.find((candidate) => candidate.id === monitorId);
    const responseCode = /^Status (\d+)$/.exec(cause)?.[1];
    return {
      id,
      monitorId,
      type: 'incident',
      attributes: {
        name: m?.attributes.pronounceable_name ?? null,
        url: m?.attributes.url ?? null,
        http_method: 'get',
        cause,
        incident_group_id: null,
        started_at: new Date(now - startedAgo).toISOString(),
        acknowledged_at: null,
        acknowledged_by: null,
        resolved_at: resolvedAgo === null ? null : new Date(now - resolvedAgo).toISOString(),
        resolved_by: resolvedAgo === null ? null : 'Automatically',
        status: resolvedAgo === null ? 'Started' : 'Resolved',
        team_name: 'Demo founder',
        response_content: null,
        response_options: '{}',
        regions: ['us', 'eu'],
        response_url: null,
        screenshot_url: null,
        origin_url: null,
        escalation_policy_id: null,
        call: false,
        sms: false,
        email: true,
        push: true,
        metadata: {
          'Request duration': [{ type: 'String', value: requestSeconds }],
          ...(responseCode ? { 'Response code': [{ type: 'String', value: responseCode }] } : {}),
        },
      },
      relationships: { monitor: { data: { id: monitorId, type: 'monitor' } } },
    };
  };
  const incidents = [
    incident('789201', '2004', 'Status 503', '0.041236', 37 * MINUTE, null),
    incident('789188', '2004', 'Timeout (no response in 30 seconds)', '30.000000', 3 * 24 * 60 * MINUTE, 3 * 24 * 60 * MINUTE - 12 * MINUTE),
    incident('789140', '2001', 'Status 502', '0.512904', 9 * 24 * 60 * MINUTE, 9 * 24 * 60 * MINUTE - 4 * MINUTE),
  ];

  // What the availability summaries count: the listed incidents, and before them a short outage every few weeks per
  // monitor (a stream of its own, so the rest of the data stays as it was), as far back as the monitors go.
  const downtimes = new Map<string, Downtime[]>(
    monitors.map((m) => {
      const own = seededRandom(`betterstack:downtime:${m.id}`);
      const list: Downtime[] = [];
      for (let at = now - 12 * DAY_MS - own() * 20 * DAY_MS; at > now - MONITOR_AGE_DAYS * DAY_MS; at -= (8 + own() * 30) * DAY_MS) {
        const minutes = own() < 0.1 ? 45 + own() * 90 : 2 + own() * 20;
        list.push({ start: at, end: at + minutes * MINUTE });
      }
      return [m.id, list];
    }),
  );
  for (const i of incidents) {
    const { started_at, resolved_at } = i.attributes;
    downtimes.get(i.monitorId)?.push({ start: Date.parse(started_at), end: resolved_at === null ? null : Date.parse(resolved_at) });
  }

  function sla(request: SandboxRequest): SandboxReply {
    const m = monitors.find((candidate) => candidate.id === request.params.id);
    if (!m) return { status: 404, body: betterstackDocumented.monitorNotFound.body };
    const created = Date.parse(m.attributes.created_at);
    const fromParam = request.query.get('from');
    const toParam = request.query.get('to');
    const from = fromParam === null ? created : parseDay(fromParam);
    // `to` names the last day counted: its summary runs to that day's end.
    const toDay = toParam === null ? undefined : parseDay(toParam);
    const to = toParam === null ? now : toDay === undefined ? undefined : toDay + DAY_MS;
    if (from === undefined || to === undefined || from > now || to <= from) return { status: 400, body: betterstackDocumented.slaInvalidRange.body };
    const summary = availabilityOver(downtimes.get(m.id) ?? [], Math.max(from, created), Math.min(to, now), now);
    return { body: { data: { id: m.id, type: 'monitor_sla', attributes: summary } } };
  }

  return {
    name: 'betterstack',
    basePath: '/api',
    authorize: (request) => request.headers.authorization === `Bearer ${sandboxTokens.betterstack}`,
    unauthorized: () => ({ body: { errors: 'Invalid Team API Token' } }),
    // Better Stack publishes no limit; this one keeps tests of 429 honest without hurting the demo.
    rateLimit: {
      limit: 300,
      windowMs: MINUTE,
      tooMany: (retryAfterMs) => ({ status: 429, headers: { 'retry-after': String(Math.ceil(retryAfterMs / 1000)) }, body: { errors: 'Too Many Requests' } }),
    },
    routes: [
      { method: 'GET', path: '/v2/monitors', handle: (request) => page(request, monitors) },
      {
        method: 'GET',
        path: '/v2/monitors/:id',
        handle: ({ params }) => {
          const m = monitors.find((candidate) => candidate.id === params.id);
          return m ? { body: { data: m } } : { status: 404, body: { errors: 'Resource with provided ID was not found' } };
        },
      },
      { method: 'GET', path: '/v2/monitors/:id/sla', handle: sla },
      {
        method: 'GET',
        path: '/v2/monitors/:id/response-times',
        handle: ({ params }) => {
          const times = responseTimes.get(params.id ?? '');
          return times ? { body: times } : { status: 404, body: { errors: 'Resource with provided ID was not found' } };
        },
      },
      {
        method: 'GET',
        path: '/v3/incidents',
        handle: (request) => {
          const monitorId = request.query.get('monitor_id');
          const resolved = request.query.get('resolved');
          const matching = incidents
            .filter((i) => !monitorId || i.monitorId === monitorId)
            .filter((i) => resolved === null || (resolved === 'true') === (i.attributes.resolved_at !== null))
            .map(({ monitorId: _, ...rest }) => rest);
          return page(request, matching);
        },
      },
    ],
  };
}
