import { randomUUID } from 'node:crypto';
import { webhookSourceNames, type DeliverySource, type WebhookIntegration } from '@dash/contracts';
import type { DeliveryRecord, IncomingEvent, IngestedEvent } from '@dash/db';
import type { RelayEvent } from '@dash/webhooks';

/**
 * The deliveries log's rows (issue 53), made from what an ingest did with each event: one row per event a webhook
 * carried, with its outcome in words. Pure: the inbox hands these to the store's ingest, which writes them in the
 * batch's own transaction.
 */

/** How a batch reached the inbox, and for how long its bodies are kept. */
export interface LogVia {
  source: DeliverySource;
  /**
   * A replay: its request id; each replayed event's original row and the line that marks it replayed in its "Why?"
   * (by the replayed event's source event id).
   */
  replay?: { requestId: string; of: ReadonlyMap<string, string>; notes: ReadonlyMap<string, string> } | undefined;
}

export const DEFAULT_BODY_RETENTION_MS = 24 * 60 * 60_000;
export const DEFAULT_ROW_RETENTION_MS = 30 * 24 * 60 * 60_000;

/** The ref's kind and id in words: `uptime_monitor:123` -> the Better Stack monitor 123. */
const refWords: Record<string, string> = {
  code_host: 'repository',
  deploy_host: 'Vercel project',
  error_tracker: 'Sentry project',
  issue_tracker: 'Linear team',
  uptime_monitor: 'Better Stack monitor',
};

export function refInWords(ref: string): string {
  const colon = ref.indexOf(':');
  const kind = refWords[ref.slice(0, colon)];
  return kind === undefined ? ref : `the ${kind} ${ref.slice(colon + 1)}`;
}

/** Why an event that found no project is where it is. */
function unclaimed(refs: readonly string[]): string {
  const named = refs.length === 0 ? 'it names nothing a project could have' : `no project has ${refs.slice(0, 3).map(refInWords).join(' or ')}`;
  return `No project claims it (${named}): it is in the inbox without a project, and goes to the first project given it`;
}

const effectWords: Partial<Record<IngestedEvent['effect'], string>> = {
  joined: 'Added to the open thread of its subject',
  raised: 'Added to the open thread of its subject, which it made more severe',
  resolved: 'Closed the open thread of its subject',
};

/** The event as a replay ingests it again: everything but its body, which the row keeps (for a day) on its own. */
function eventJson(event: RelayEvent): string {
  const { delivery, ...rest } = event;
  return JSON.stringify(delivery ? { ...rest, delivery: { id: delivery.id, ...(delivery.kind === undefined ? {} : { kind: delivery.kind }) } } : rest);
}

/**
 * One row per event given, in order. A delivery's body rides on its first event; every row of that delivery in the
 * batch keeps it.
 */
export function deliveryRows(
  events: readonly RelayEvent[],
  incoming: readonly IncomingEvent[],
  ingested: readonly IngestedEvent[],
  via: LogVia,
  { now, bodyRetentionMs }: { now: number; bodyRetentionMs: number },
): DeliveryRecord[] {
  const bodies = new Map<string, string>();
  for (const event of events) if (event.delivery?.body !== undefined && !bodies.has(event.delivery.id)) bodies.set(event.delivery.id, event.delivery.body);
  return events.map((event, index): DeliveryRecord => {
    const arrived = incoming[index] as IncomingEvent;
    const outcome = ingested[index] as IngestedEvent;
    const receivedAt = via.source === 'replay' ? now : Date.parse(event.receivedAt) || now;
    // A retention of 0 keeps no body at all.
    const body = event.delivery === undefined || bodyRetentionMs <= 0 ? undefined : bodies.get(event.delivery.id);
    const kind = outcome.effect === 'duplicate' ? 'duplicate' : effectWords[outcome.effect] ? 'threaded' : 'notified';
    const detail =
      kind === 'duplicate'
        ? 'A copy of an event taken in before: one notification per source event id (for 7 days)'
        : arrived.projectSlug === null
          ? unclaimed(arrived.refs ?? [])
          : (effectWords[outcome.effect] ?? null);
    return {
      id: randomUUID(),
      receivedAt,
      source: via.source,
      integration: event.integration,
      eventType: event.type,
      deliveryId: event.delivery?.id ?? null,
      sourceEventId: event.sourceEventId,
      outcome: kind,
      detail,
      title: event.title,
      projectSlug: arrived.projectSlug,
      notificationId: outcome.notificationId,
      eventId: outcome.eventId,
      duplicateOf: null,
      replayOf: via.replay?.of.get(event.sourceEventId) ?? null,
      replayRequest: via.replay?.requestId ?? null,
      event: eventJson(event),
      body: body ?? null,
      bodyUntil: body === undefined ? null : receivedAt + bodyRetentionMs,
    };
  });
}

/** A delivery that carried no event: a kind we do not handle (ignored), or a body that did not parse (invalid). */
export function eventlessRow(
  delivery: { integration: WebhookIntegration; deliveryId: string; kind: string | undefined; body: string; receivedAt: number },
  outcome: { kind: 'ignored' } | { kind: 'invalid'; error: string },
  bodyRetentionMs: number,
): DeliveryRecord {
  const service = webhookSourceNames[delivery.integration];
  const detail =
    outcome.kind === 'invalid'
      ? `The body did not parse as a ${service} webhook: ${outcome.error}`
      : delivery.kind === undefined
        ? `Nothing we handle: ${service} sent a webhook of a kind no notification comes of`
        : `Nothing we handle: no notification comes of this "${delivery.kind}" webhook from ${service}`;
  return {
    id: randomUUID(),
    receivedAt: delivery.receivedAt,
    source: 'local',
    integration: delivery.integration,
    eventType: delivery.kind ?? null,
    deliveryId: delivery.deliveryId,
    sourceEventId: null,
    outcome: outcome.kind,
    detail,
    title: null,
    projectSlug: null,
    notificationId: null,
    eventId: null,
    duplicateOf: null,
    replayOf: null,
    replayRequest: null,
    event: null,
    body: bodyRetentionMs > 0 ? delivery.body : null,
    bodyUntil: bodyRetentionMs > 0 ? delivery.receivedAt + bodyRetentionMs : null,
  };
}
