import type { DeliveryRecord } from './deliveries.ts';
import type { FoldedEvent, FoldEffect, IncomingEvent, NotificationEventRow, NotificationQuery, NotificationRow, StoredDecision } from './notifications.ts';
import type { DeliveryRow, MuteRow, OutboxOps } from './outbox.ts';

/** The inbox's interface (`Store.notifications`): the ingest and what it answers, the reads, marking read, retention. */

export interface IngestResult {
  /** Events stored; the rest were duplicates within the dedup window. */
  stored: number;
  duplicates: number;
  /** Every row the batch created or changed, as it now is (for the live stream), in seq order. */
  changed: NotificationRow[];
  /** Interruptions the batch's `plan` sent (for the live stream), in seq order. */
  sent: DeliveryRow[];
  /** What became of each event given, in the order given (the deliveries log's outcome). */
  events: IngestedEvent[];
}

/** What became of one event of an ingest. */
export interface IngestedEvent {
  sourceEventId: string;
  /** `duplicate`: a copy of an event earlier in the batch or within the dedup window; otherwise how it folded. */
  effect: FoldEffect | 'duplicate';
  /** The row it made or joined; for a duplicate, its first copy's row when that was in the batch, else null. */
  notificationId: string | null;
  /** Its `notification_events.id`; null for a duplicate. */
  eventId: string | null;
}

/** The decisions a `plan` settled: one per folded event, and the new rows to store as read (discarded). */
export interface PlanOutcome {
  decisions: StoredDecision[];
  readIds: string[];
  /** What it sent, for the live stream. */
  sent: DeliveryRow[];
}

/** The inbox: events from the relay and the local webhook route, folded into rows. */
export type NotificationsStore = {
  /**
   * Stores a batch in ONE transaction, together with the relay cursor when given, so a crash never
   * loses or doubles an event. Each event first claims its sourceEventId for `dedupWindowMs` (a claim
   * that has expired is taken again; a live one makes the event a duplicate, skipped); then it folds:
   * `trigger` joins the subject's open row or opens one, `resolve` closes the open row (or becomes a
   * resolved row of its own), null is a row of its own. Concurrent ingests of one event store it once.
   * A duplicate within the batch is a duplicate too. `now` (ISO 8601) starts the claims; `dedupWindowMs` >= 0.
   * A joined or resolved row keeps its read state: a read row that changes stays read (its seq still moves).
   */
  ingest(
    events: IncomingEvent[],
    options: {
      now: string;
      dedupWindowMs: number;
      cursor?: { relayUrl: string; since: number } | undefined;
      /**
       * Runs in the batch's transaction once the events are folded, before the rows and events are written: it
       * decides each stored event's interruption through `ops` (so a crash never keeps a row without its
       * interruptions, or the other way round) and settles the decisions stored with them.
       */
      plan?: ((folded: FoldedEvent[], ops: OutboxOps) => Promise<PlanOutcome>) | undefined;
      /**
       * The deliveries log's rows for what became of the events (`IngestResult.events`), written in the same
       * transaction: a crash never keeps a notification without its log row, or the other way round. A row whose
       * outcome is `duplicate` gets `duplicateOf` (and, when null, `notificationId`) from the newest earlier row of
       * its source event id.
       */
      log?: ((events: IngestedEvent[]) => DeliveryRecord[]) | undefined;
    },
  ): Promise<IngestResult>;
  /** Runs `work` in one notifications transaction (serialised with ingests): the scheduler's ticks, snoozes, mutes, dry runs. */
  outbox<T>(work: (ops: OutboxOps) => Promise<T>): Promise<T>;
  /** Runs `work` on the outbox's reads outside any transaction (it must not write): the dry run, the mutes with titles. */
  read<T>(work: (ops: OutboxOps) => Promise<T>): Promise<T>;
  /** Every mute, ended or not (the scheduler removes ended ones), soonest end first. */
  mutes(): Promise<MuteRow[]>;
  /** Interruptions sent after `seq`, oldest first, at most `limit`: the live stream's replay beside `changedSince`. */
  sentSince(seq: number, limit: number): Promise<DeliveryRow[]>;
  /** The relay cursor stored with the last batch from this relay URL (`since` for its next poll). */
  cursor(relayUrl: string): Promise<number | undefined>;
  /** Snoozed rows are left out until they wake. */
  list(query: NotificationQuery): Promise<NotificationRow[]>;
  /** A row's stored events, in the order they happened, each with its own decision and trace; empty when there is no such row. */
  events(notificationId: string): Promise<NotificationEventRow[]>;
  /** Rows changed after `seq` (those whose seq is bigger), oldest change first, at most `limit`: a live stream's replay. */
  changedSince(seq: number, limit: number): Promise<NotificationRow[]>;
  /**
   * A signal between the processes on this database that the change feed moved (Postgres's LISTEN/NOTIFY), so
   * their live streams read it at once instead of at their next poll; absent where the engine has none.
   */
  changes?: {
    /** Tells every listening process (this one included) that `from` committed something. */
    announce(from: string): Promise<void>;
    /** Calls `onChange` with each announcement's `from` until the returned function is called. */
    listen(onChange: (from: string) => void): Promise<() => Promise<void>>;
  };
  /** The biggest seq of the rows and sent interruptions there are (0 when there are none): where a live stream starts. */
  latestSeq(): Promise<number>;
  /** Unread rows that are not snoozed. */
  unreadCount(): Promise<number>;
  /** Marks the unread ones of the rows read (bumping their seq); answers the rows that changed, in seq order. */
  markRead(target: { ids: string[] } | { all: true }, at: string): Promise<NotificationRow[]>;
  /**
   * Retention: removes rows read before `readBefore` and unread rows received before `unreadBefore`, with their
   * events; answers how many rows went. Dedup claims outlive their rows (a late copy of a pruned row's event is
   * still a duplicate) until they expire: prune also drops the claims that expired by the earlier cut-off, so the
   * cut-offs must not lie in the future.
   */
  prune(readBefore: string, unreadBefore: string): Promise<number>;
  /** Removes the rows of these projects with their events and dedup claims (the demo went away); answers how many rows went. */
  removeForProjects(slugs: readonly string[]): Promise<number>;
};
