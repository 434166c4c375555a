import { isoDate, none, one, withPayload } from '../events.ts';
import { sha256Hex, tokensMatch } from '../hmac.ts';
import { check, ignore, readJson } from '../json.ts';
import type { HeaderBag, Severity, WebhookProvider } from '../types.ts';
import { type IncidentDelivery, incidentDelivery, incidentMarker } from './schemas.ts';

type Attributes = IncidentDelivery['data']['attributes'];

const states = new Map<string, { type: string; severity: Severity; verb: string }>([
  ['started', { type: 'monitor.down', severity: 'error', verb: 'Monitor down' }],
  ['reopened', { type: 'monitor.down', severity: 'error', verb: 'Monitor down again' }],
  ['acknowledged', { type: 'monitor.acknowledged', severity: 'warning', verb: 'Incident acknowledged' }],
  ['resolved', { type: 'monitor.up', severity: 'success', verb: 'Monitor up' }],
]);

/** The `event` when there is one; else the API's `status`; else the latest of the three times that is set. */
function stateOf(event: string | undefined, attributes: Attributes): string {
  if (event) return event;
  if (attributes.status) return attributes.status.toLowerCase();
  if (attributes.resolved_at) return 'resolved';
  if (attributes.acknowledged_at) return 'acknowledged';
  return 'started';
}

function timeOf(state: string, attributes: Attributes): string | undefined {
  if (state === 'resolved') return isoDate(attributes.resolved_at);
  if (state === 'acknowledged') return isoDate(attributes.acknowledged_at);
  // A reopening has no time of its own: started_at is the first outage's.
  return state === 'started' ? isoDate(attributes.started_at) : undefined;
}

const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).host : '') || url;

function bearerOf(header: string | null): string {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';
}

function tokenVerified(headers: HeaderBag, secrets: readonly string[]): boolean {
  // Both places are checked, so a stray value in one cannot mask the right token in the other.
  const inHeader = tokensMatch(headers.get('x-betterstack-token')?.trim() ?? '', secrets);
  const asBearer = tokensMatch(bearerOf(headers.get('authorization')), secrets);
  return inHeader || asBearer;
}

/**
 * Better Stack Uptime signs nothing: the relay's shared token arrives in `x-betterstack-token` or as
 * `Authorization: Bearer <token>` (set in the webhook's header template). There is no delivery id, so
 * the body's hash stands in. Incidents are the monitors' downs and ups.
 */
export const betterstack: WebhookProvider = {
  integration: 'uptime_monitor',

  verify: (_rawBody, headers, secrets) => tokenVerified(headers, secrets),

  identify: (rawBody) => ({ deliveryId: sha256Hex(rawBody) }),

  parse(rawBody, _headers, receivedAt) {
    const json = readJson(rawBody);
    if (!json.ok) return json;
    if (!check(incidentMarker, json.value).ok) return ignore(json.value);
    const parsed = check(incidentDelivery, json.value);
    if (!parsed.ok) return parsed;
    const { event, data } = parsed.value;
    const { attributes } = data;
    const state = stateOf(event, attributes);
    const shape = states.get(state);
    if (!shape) return none();
    const when = timeOf(state, attributes);
    const label = attributes.name || (attributes.url ? hostOf(attributes.url) : `incident ${data.id}`);
    const monitorId = data.relationships?.monitor?.data?.id;
    const transition = shape.type === 'monitor.down' ? 'trigger' : shape.type === 'monitor.up' ? 'resolve' : undefined;
    const cause = state === 'started' && attributes.cause ? ` (${attributes.cause})` : '';
    return one({
      integration: 'uptime_monitor',
      type: shape.type,
      // The incident id keeps two outages of one monitor apart, the state its down and up; the time (or,
      // for a reopening, the body) keeps a second resolution of a reopened incident from being a duplicate.
      sourceEventId: `betterstack:incident:${data.id}:${state}:${when ?? sha256Hex(rawBody).slice(0, 16)}`,
      title: `${shape.verb}: ${label}${cause}`,
      ...(attributes.url ? { url: attributes.url } : {}),
      ...(attributes.name ? { project: attributes.name } : {}),
      ...(monitorId ? { refs: [`uptime_monitor:${monitorId}`] } : {}),
      // The monitor is what goes down and comes back up; without its id, the incident stands in.
      ...(transition ? { subject: `betterstack:monitor:${monitorId ?? `incident:${data.id}`}`, transition } : {}),
      severity: shape.severity,
      occurredAt: when ?? receivedAt.toISOString(),
      // Better Stack's JSON:API nesting: `event` (absent in API-shaped bodies), the incident's attributes, its monitor.
      ...withPayload({
        event,
        data: {
          id: data.id,
          attributes: { name: attributes.name, url: attributes.url, cause: attributes.cause, status: attributes.status },
          relationships: monitorId ? { monitor: { data: { id: monitorId } } } : undefined,
        },
      }),
    });
  },
};
