import { demoProducts, sandboxTokens, seededRandom } from '../demo.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';

const MINUTE = 60_000;

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

/** Better Stack Uptime (`/api/v2/monitors`, `/api/v3/incidents`) over the demo products' monitors. */
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
      created_at: new Date(now - 300 * 24 * 60 * MINUTE).toISOString(),
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
