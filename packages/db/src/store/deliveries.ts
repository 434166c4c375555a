import type { StoredDecision } from '@dash/contracts';

/** The webhook deliveries log's rows, how it is listed, and the refusal counts beside it. */

/**
 * A row of the webhook deliveries log (`webhook_deliveries`): one per event a webhook carried (or one for a delivery
 * that carried none: ignored, invalid), with what it became. Times are ms UTC.
 */
export interface DeliveryRecord {
  id: string;
  receivedAt: number;
  source: 'relay' | 'local' | 'replay';
  /** The neutral name (`code_host`). */
  integration: string;
  eventType: string | null;
  deliveryId: string | null;
  sourceEventId: string | null;
  outcome: 'notified' | 'threaded' | 'duplicate' | 'ignored' | 'invalid';
  detail: string | null;
  title: string | null;
  projectSlug: string | null;
  notificationId: string | null;
  /** Its `notification_events.id`, whose decision the detail shows. */
  eventId: string | null;
  duplicateOf: string | null;
  replayOf: string | null;
  /** The replay request that made it (unique with `replayOf`: a request replays a row once). */
  replayRequest: string | null;
  /** The parsed event as JSON (a RelayEvent without its body), what a replay ingests again; null when none came of it. */
  event: string | null;
  /** The body as received (text), until `bodyUntil`; then null (the prune clears it). */
  body: string | null;
  bodyUntil: number | null;
}

/** A log row as listed: without its body and event, with whether the body is still there. */
export type DeliveryListRow = Omit<DeliveryRecord, 'body' | 'event'> & { hasBody: boolean };

export interface DeliveryFilter {
  integration?: string | undefined;
  outcome?: DeliveryRecord['outcome'] | undefined;
  /** Received at or after (ms). */
  since?: number | undefined;
  /** Received before (ms). */
  until?: number | undefined;
  /** Case-insensitive text in title, event type, delivery id or source event id. */
  text?: string | undefined;
  notificationId?: string | undefined;
}

/** An hour's count of one refusal reason for one integration at the relay or the local route. */
export interface RefusalRow {
  /** The hour's start, ms UTC. */
  hour: number;
  source: 'relay' | 'local';
  integration: string;
  reason: string;
  count: number;
}

/**
 * The webhook deliveries log (issue 53) and the refusal counts beside it. Rows of ingested events are written by
 * `notifications.ingest`'s `log`; `record` writes the rest (a delivery that carried no event: ignored, invalid).
 */
export type DeliveriesStore = {
  /** Writes rows outside an ingest; a duplicate's `duplicateOf` is filled as the ingest's log does. */
  record(rows: DeliveryRecord[]): Promise<void>;
  /** Newest first (receivedAt, then id, descending), after `cursor` when given, at most `limit`, without bodies. */
  list(filter: DeliveryFilter, limit: number, cursor?: { receivedAt: number; id: string }): Promise<DeliveryListRow[]>;
  /** One row with its body and event, and the decision stored with its notification event (null when none). */
  get(id: string): Promise<(DeliveryRecord & { decision: StoredDecision | null }) | undefined>;
  /** Rows with these ids (missing ones left out), with body and event. */
  many(ids: readonly string[]): Promise<DeliveryRecord[]>;
  /** The rows that replay `id`, newest first. */
  replaysOf(id: string): Promise<DeliveryListRow[]>;
  /** The rows a replay request made, in the order they were made. */
  byReplayRequest(requestId: string): Promise<DeliveryListRow[]>;
  /** Clears bodies whose `bodyUntil` <= `bodiesBy` and removes rows received before `rowsBefore`; answers both counts. */
  prune(bodiesBy: number, rowsBefore: number): Promise<{ bodies: number; rows: number }>;
  /**
   * Counts refusals: `add` adds to the hour's count (the local route's own), `max` keeps the larger of the stored
   * and the given count (the relay's counts are its hour's totals so far, read again on every poll).
   */
  countRefusals(rows: readonly RefusalRow[], mode: 'add' | 'max'): Promise<void>;
  /** The counts of hours starting at or after `sinceHour` (ms), newest hour first. */
  refusals(sinceHour: number): Promise<RefusalRow[]>;
  /** Removes counts of hours before `before` (ms). */
  pruneRefusals(before: number): Promise<number>;
};
