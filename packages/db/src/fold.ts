import { randomUUID } from 'node:crypto';
import { severityRank } from '@dash/contracts';
import { isoOf } from './instants.ts';
import type { FoldedEvent, FoldEffect, IncomingEvent, NotificationRow, NotificationSeverity } from './store.ts';

/** The fold of a batch of events onto the inbox's rows: which row each event goes into, and how each row changes. */

const higherSeverity = (a: NotificationSeverity, b: NotificationSeverity) => (severityRank[b] > severityRank[a] ? b : a);
/** Of two normalised ISO instants, the later (they compare as text). */
const later = (a: string, b: string) => (b > a ? b : a);

/** A batch's event with its instants normalised, once its in-batch copies are set aside. */
export interface BatchEvent {
  event: IncomingEvent;
  occurredAt: string;
  receivedAt: string;
  /** What its transition acts on: null when it is a row of its own (no transition, or no subject). */
  subject: string | null;
  /** The id of the row it opens, when it opens one. */
  newId: string;
  /** The id it is stored with: its interruptions name it. */
  eventId: string;
  /** Its copies later in the batch. */
  copies: number;
}

/** An event as the fold takes it: its instants normalised (and checked), its subject, the id of a row it would open. */
export function batchEvent(event: IncomingEvent): BatchEvent {
  // Without a subject a transition has nothing to join or close: the event is a row of its own.
  const subject = event.transition === null ? null : event.subjectKey;
  return { event, occurredAt: isoOf(event.occurredAt), receivedAt: isoOf(event.receivedAt), subject, newId: randomUUID(), eventId: randomUUID(), copies: 0 };
}

/** A row the fold changed, as it is after the batch; `last` is the index of the last event that changed it. */
export interface FoldedRow {
  /** A new row gets its createdSeq with its seq, when the batch is written. */
  row: Omit<NotificationRow, 'seq' | 'createdSeq'> & { createdSeq?: number };
  existed: boolean;
  last: number;
}

/**
 * Folds the events that `stored` admits, in order, onto the subjects' `open` rows: the row each event went into
 * (undefined for those not stored) and every row changed, new or existing, as the batch leaves it.
 */
export function fold(batch: readonly BatchEvent[], stored: (index: number) => boolean, open: ReadonlyMap<string, NotificationRow>) {
  const rowOf: (string | undefined)[] = new Array<string | undefined>(batch.length);
  const effects: (FoldEffect | undefined)[] = new Array<FoldEffect | undefined>(batch.length);
  const rows = new Map<string, FoldedRow>();
  const openIds = new Map<string, string>();
  for (const [subject, row] of open) openIds.set(subject, row.id);
  for (const [index, { event, occurredAt, receivedAt, subject, newId }] of batch.entries()) {
    if (!stored(index)) continue;
    const openId = subject === null ? undefined : openIds.get(subject);
    let folded: FoldedRow;
    if (subject !== null && openId !== undefined) {
      // An open row the batch has not changed yet is the subject's row from before the batch.
      const before = open.get(subject);
      folded = rows.get(openId) ?? { row: { ...(before as NotificationRow) }, existed: true, last: index };
      const { row } = folded;
      row.eventCount += 1;
      row.lastAt = later(row.lastAt, occurredAt);
      if (event.transition === 'trigger') {
        const before = row.severity;
        row.severity = higherSeverity(row.severity, event.severity);
        effects[index] = row.severity === 'error' && before !== 'error' ? 'raised' : 'joined';
      } else {
        effects[index] = 'resolved';
        // The resolve closes the occurrence; its own severity (`success`) does not raise the row's.
        row.status = 'resolved';
        row.resolvedAt = occurredAt;
        openIds.delete(subject);
      }
    } else {
      // A trigger opens a new occurrence (after a resolve too: a second outage is a second row); a resolve
      // with no open row is a resolved row of its own; a stateless event is an info row.
      const status = subject === null ? 'info' : event.transition === 'trigger' ? 'open' : 'resolved';
      effects[index] = status === 'info' ? 'info' : status === 'open' ? 'opened' : 'resolved_alone';
      folded = {
        row: {
          id: newId,
          integration: event.integration,
          type: event.type,
          subjectKey: event.subjectKey,
          status,
          severity: event.severity,
          title: event.title,
          url: event.url,
          projectSlug: event.projectSlug,
          eventCount: 1,
          firstAt: occurredAt,
          lastAt: occurredAt,
          resolvedAt: status === 'resolved' ? occurredAt : null,
          receivedAt,
          readAt: null,
          snoozedUntil: null,
          decision: event.decision ?? null,
          refs: event.refs === undefined ? null : [...event.refs],
        },
        existed: false,
        last: index,
      };
      if (subject !== null && status === 'open') openIds.set(subject, newId);
    }
    folded.last = index;
    folded.row.decision = event.decision ?? folded.row.decision;
    rows.set(folded.row.id, folded);
    rowOf[index] = folded.row.id;
  }
  return { rowOf, effects, rows };
}

/**
 * The thread-grouping step of an ingest on its own, writing nothing: what `ingestEvents` folds these distinct, new
 * events into, given their subjects' `open` rows (keyed by subject), as the plan sees them. The dry run asks this,
 * so it groups exactly as a real ingest does; a row it would open has a new id and seq 0.
 */
export function foldEvents(events: readonly IncomingEvent[], open: ReadonlyMap<string, NotificationRow>): FoldedEvent[] {
  const batch = events.map(batchEvent);
  const { rowOf, effects, rows } = fold(batch, () => true, open);
  return batch.map(({ event, eventId }, index) => {
    const { row } = rows.get(rowOf[index] as string) as FoldedRow;
    return { eventId, event, notificationId: row.id, effect: effects[index] as FoldEffect, row: { ...row, seq: 0, createdSeq: row.createdSeq ?? 0 } };
  });
}
