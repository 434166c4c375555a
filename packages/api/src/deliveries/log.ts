import { randomUUID } from 'node:crypto';
import {
  refusalReasonNames,
  webhookSourceNames,
  type DeliveryDetail,
  type DeliveryPage,
  type DeliveryQuery,
  type DeliveryReplayInput,
  type DeliveryReplayResult,
  type DeliverySummary,
  type RefusalCount,
  type RefusalReason,
  type RefusalSummary,
  type WebhookIntegration,
} from '@dash/contracts';
import type { DeliveryListRow, DeliveryRecord, Store } from '@dash/db';
import { relayEventSchema, type RelayEvent } from '@dash/webhooks';
import { fail } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Inbox } from '../notifications/inbox.ts';
import { formatDuration } from '../notifications/policy/digest.ts';
import { DEFAULT_BODY_RETENTION_MS, DEFAULT_ROW_RETENTION_MS, eventlessRow } from './rows.ts';

const HOUR = 60 * 60_000;
/** Where the last read of the relay's refusal counts is noted (ms), for the page's "as of". */
export const RELAY_READ_AT = 'deliveries.relayReadAt';
/** The start of the UTC hour holding `ms`: the refusal counts' key. */
const floorHour = (ms: number) => Math.floor(ms / HOUR) * HOUR;

export interface DeliveryLogOptions {
  store: Store;
  inbox: Inbox;
  log: Logger;
  now: () => number;
  /** How long a body is kept (24 hours; WEBHOOK_BODY_RETENTION_HOURS). */
  bodyRetentionMs?: number;
  /** How long a row is kept (30 days). */
  rowRetentionMs?: number;
}

/** What each refusal reason says, and what to check. */
const reasonWords: Record<RefusalReason, { what: string; check: string }> = {
  bad_signature: { what: 'refused for a bad signature', check: 'check the webhook secret: the one saved at the service must be the relay’s' },
  stale_timestamp: { what: 'refused as stale (signed more than 5 minutes from the relay’s clock)', check: 'check the relay’s clock' },
  replayed_delivery: { what: 'refused as repeats of a delivery taken in the last 5 minutes', check: 'the service redelivered; nothing is lost' },
  rate_limited: { what: 'refused over the rate limit (100 a minute per address)', check: 'the service sent a burst and retries later' },
  too_large: { what: 'refused as larger than 256 KB', check: 'send fewer kinds of events from that webhook' },
  not_json: { what: 'refused as not JSON', check: 'set the webhook’s content type to application/json' },
  disabled: { what: 'refused while ingestion is switched off', check: 'RELAY_ENABLED or RELAY_DISABLE_<INTEGRATION> is set on the relay' },
  invalid_payload: { what: 'refused as unreadable payloads', check: 'check the webhook points at the right integration’s path' },
  not_handled: { what: 'taken in but of kinds no notification comes of', check: 'subscribe the webhook to the events the dashboard handles (docs/relay.md)' },
};

/** The advice line for a count: "GitHub: 14 refused for a bad signature in the last hour: check the webhook secret…". */
export function refusalAdvice(integration: WebhookIntegration, reason: RefusalReason, count: number): string {
  const words = reasonWords[reason];
  return `${webhookSourceNames[integration]}: ${count} ${words.what} in the last hour: ${words.check}`;
}

const cursorOf = (row: Pick<DeliveryListRow, 'receivedAt' | 'id'>) => Buffer.from(`${row.receivedAt}:${row.id}`).toString('base64url');

function parseCursor(cursor: string): { receivedAt: number; id: string } {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const colon = text.indexOf(':');
  const receivedAt = Number(text.slice(0, colon));
  if (colon < 1 || !Number.isSafeInteger(receivedAt) || colon === text.length - 1) throw fail('BAD_REQUEST', 'cursor is not one a page of deliveries gave');
  return { receivedAt, id: text.slice(colon + 1) };
}

/** Pretty-printed JSON, or the text as it came when it is not JSON. */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/**
 * The deliveries log's reads and writes beyond the ingest's own rows: the local route's deliveries that carried no
 * event, the refusal counts, the pages, one row's detail (its body for the owner only), replays, and retention.
 */
export class DeliveryLog {
  readonly bodyRetentionMs: number;
  private readonly rowRetentionMs: number;

  constructor(private readonly options: DeliveryLogOptions) {
    this.bodyRetentionMs = options.bodyRetentionMs ?? DEFAULT_BODY_RETENTION_MS;
    this.rowRetentionMs = options.rowRetentionMs ?? DEFAULT_ROW_RETENTION_MS;
  }

  /**
   * A delivery the local route took in that carried no event: ignored (nothing we handle) or invalid (did not parse).
   * The log is the log's: a write that fails is told to the server's log, and the sender still gets its answer.
   */
  async recordEventless(
    delivery: { integration: WebhookIntegration; deliveryId: string; kind: string | undefined; body: Uint8Array },
    outcome: { kind: 'ignored' } | { kind: 'invalid'; error: string },
  ): Promise<void> {
    const row = eventlessRow({ ...delivery, body: Buffer.from(delivery.body).toString('utf8'), receivedAt: this.options.now() }, outcome, this.bodyRetentionMs);
    await this.options.store.deliveries.record([row]).catch((error: unknown) => this.options.log.warn(`deliveries log: ${(error as Error).message}`));
  }

  /** One more refusal at the local route this hour (a failed write is logged, as above). */
  async countLocal(integration: WebhookIntegration, reason: RefusalReason): Promise<void> {
    await this.options.store.deliveries
      .countRefusals([{ hour: floorHour(this.options.now()), source: 'local', integration, reason, count: 1 }], 'add')
      .catch((error: unknown) => this.options.log.warn(`refusal counts: ${(error as Error).message}`));
  }

  private summary(row: DeliveryListRow): DeliverySummary {
    const now = this.options.now();
    return {
      id: row.id,
      receivedAt: new Date(row.receivedAt).toISOString(),
      source: row.source,
      integration: row.integration as WebhookIntegration,
      eventType: row.eventType,
      deliveryId: row.deliveryId,
      outcome: row.outcome,
      detail: row.detail,
      title: row.title,
      projectSlug: row.projectSlug,
      notificationId: row.notificationId,
      duplicateOf: row.duplicateOf,
      replayOf: row.replayOf,
      hasBody: row.hasBody && row.bodyUntil !== null && row.bodyUntil > now,
    };
  }

  async list(query: DeliveryQuery): Promise<DeliveryPage> {
    const cursor = query.cursor === undefined ? undefined : parseCursor(query.cursor);
    const since = query.since === undefined ? undefined : Date.parse(query.since);
    const until = query.until === undefined ? undefined : Date.parse(query.until);
    if (since !== undefined && until !== undefined && until <= since) throw fail('BAD_REQUEST', 'until must be later than since');
    // One more than the page: whether there is a next one, without a count of them all.
    const rows = await this.options.store.deliveries.list(
      { integration: query.integration, outcome: query.outcome, since, until, text: query.q, notificationId: query.notification },
      query.limit + 1,
      cursor,
    );
    const page = rows.slice(0, query.limit);
    return { deliveries: page.map((row) => this.summary(row)), nextCursor: rows.length > query.limit ? cursorOf(page.at(-1) as DeliveryListRow) : null };
  }

  /** One row; its body only for `owner` (a signed-in browser or the open local dashboard), never a token. */
  async get(id: string, { owner }: { owner: boolean }): Promise<DeliveryDetail> {
    const row = await this.options.store.deliveries.get(id);
    if (!row) throw fail('NOT_FOUND', `No delivery with the id "${id}" (the log keeps 30 days)`);
    const summary = this.summary({ ...row, hasBody: row.body !== null });
    const replays = await this.options.store.deliveries.replaysOf(id);
    const bodyNote = !summary.hasBody
      ? this.bodyRetentionMs > 0 && (row.bodyUntil !== null || row.receivedAt + this.bodyRetentionMs <= this.options.now())
        ? ('expired' as const)
        : ('not_kept' as const)
      : owner
        ? null
        : ('owner_only' as const);
    return {
      ...summary,
      sourceEventId: row.sourceEventId,
      body: bodyNote === null && row.body !== null ? pretty(row.body) : null,
      bodyNote,
      decision: row.decision,
      replays: replays.map((replay) => ({ id: replay.id, receivedAt: new Date(replay.receivedAt).toISOString(), outcome: replay.outcome, notificationId: replay.notificationId })),
    };
  }

  /**
   * Replays rows through today's projects and policy as new events marked replayed, in one ingest. The same request id
   * again answers the first replay's rows and replays nothing: the store refuses a second row for a request and row
   * (a unique key), so two at once, in one process or two, replay once.
   */
  async replay({ ids, requestId }: DeliveryReplayInput): Promise<DeliveryReplayResult> {
    const { store, inbox, now } = this.options;
    const earlier = await store.deliveries.byReplayRequest(requestId);
    if (earlier.length > 0) return this.replayed(requestId, ids, earlier, true);
    const rows = new Map((await store.deliveries.many(ids)).map((row) => [row.id, row]));
    const skipped: DeliveryReplayResult['skipped'] = [];
    const events: RelayEvent[] = [];
    const of = new Map<string, string>();
    const notes = new Map<string, string>();
    const at = new Date(now()).toISOString();
    for (const id of ids) {
      const row = rows.get(id);
      const event = row ? eventOf(row) : undefined;
      if (!row) skipped.push({ id, why: 'No such delivery (the log keeps 30 days)' });
      else if (!event) skipped.push({ id, why: `Nothing to replay: it was ${row.outcome}, so no event came of it` });
      else {
        const sourceEventId = `replay:${requestId}:${row.id}`;
        const delivery = event.delivery ?? (row.deliveryId === null ? undefined : { id: row.deliveryId });
        events.push({
          ...event,
          id: randomUUID(),
          sourceEventId,
          receivedAt: at,
          ...(delivery ? { delivery: { ...delivery, ...(row.body === null ? {} : { body: row.body }) } } : {}),
        });
        of.set(sourceEventId, row.id);
        // Words without a clock time: a trace is read in the reader's own zone, and "how long before" reads in any.
        const before = formatDuration(Math.max(0, now() - row.receivedAt));
        notes.set(sourceEventId, `On request, the webhook taken in ${before} before${row.deliveryId ? ` (delivery ${row.deliveryId})` : ''}, through today's projects and policy`);
      }
    }
    if (events.length > 0) {
      try {
        await inbox.ingest(events, undefined, { source: 'replay', replay: { requestId, of, notes } });
      } catch (error) {
        // Another replay of this request won the race: its rows are the answer.
        const raced = await store.deliveries.byReplayRequest(requestId);
        if (raced.length > 0) return this.replayed(requestId, ids, raced, true);
        throw error;
      }
    }
    const made = await store.deliveries.byReplayRequest(requestId);
    return { ...this.replayed(requestId, ids, made, false), skipped };
  }

  private replayed(requestId: string, ids: readonly string[], rows: readonly DeliveryListRow[], repeated: boolean): DeliveryReplayResult {
    const byOriginal = new Map(rows.map((row) => [row.replayOf, row]));
    const replayed = ids.flatMap((id) => {
      const row = byOriginal.get(id);
      return row ? [this.summary(row)] : [];
    });
    const skipped = repeated ? ids.filter((id) => !byOriginal.has(id)).map((id) => ({ id, why: 'Not replayed by this request' })) : [];
    return { requestId, repeated, replayed, skipped };
  }

  /** The hourly counts since `since` (ms), newest first, and the last hour's, each with what to check. */
  async refusals(since: number): Promise<RefusalSummary> {
    const { store, now } = this.options;
    const [rows, readAt] = await Promise.all([store.deliveries.refusals(floorHour(since)), store.meta.get(RELAY_READ_AT)]);
    const counts: RefusalCount[] = rows.map((row) => ({
      hour: new Date(row.hour).toISOString(),
      source: row.source,
      integration: row.integration as WebhookIntegration,
      reason: row.reason as RefusalReason,
      count: row.count,
    }));
    const lastHour = new Map<string, { integration: WebhookIntegration; reason: RefusalReason; count: number }>();
    const from = now() - HOUR;
    for (const row of counts) {
      if (Date.parse(row.hour) + HOUR <= from) continue;
      const key = `${row.integration}:${row.reason}`;
      const sum = lastHour.get(key) ?? { integration: row.integration, reason: row.reason, count: 0 };
      sum.count += row.count;
      lastHour.set(key, sum);
    }
    const advice = [...lastHour.values()]
      .sort((a, b) => b.count - a.count || refusalReasonNames.indexOf(a.reason) - refusalReasonNames.indexOf(b.reason))
      .map((sum) => ({ ...sum, message: refusalAdvice(sum.integration, sum.reason, sum.count) }));
    return { counts, advice, relayReadAt: typeof readAt === 'number' ? new Date(readAt).toISOString() : null };
  }

  /** Bodies past their day, rows and refusal counts past 30 days: hourly, from the server (apps/web's retention job). */
  async prune(): Promise<{ bodies: number; rows: number }> {
    const { store, now } = this.options;
    const at = now();
    const removed = await store.deliveries.prune(at, at - this.rowRetentionMs);
    await store.deliveries.pruneRefusals(at - this.rowRetentionMs);
    return removed;
  }
}

/** A row's event as stored, checked as the relay's events are; undefined when none came of it (or it no longer reads). */
function eventOf(row: DeliveryRecord): RelayEvent | undefined {
  if (row.event === null) return undefined;
  try {
    const parsed = relayEventSchema.safeParse(JSON.parse(row.event));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
