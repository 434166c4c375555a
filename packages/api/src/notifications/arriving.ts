import type { PolicyDecision, StoredDecision } from '@dash/contracts';
import type { FoldedEvent, IncomingEvent } from '@dash/db';
import type { PlannedEvent } from './policy/planner.ts';

/**
 * An event on its way into the inbox, between the policy's rules and the planner: what is stored of the rules'
 * decision, and the planner's view of the event once the store folded it into its row. An ingest and a dry run make
 * them the same way.
 */

/** The part of a decision stored with the event (the pipeline appends its own steps to the trace). */
export const storedOf = (decision: PolicyDecision): StoredDecision => ({
  severity: decision.severity,
  channels: decision.channels,
  bypassQuietHours: decision.bypassQuietHours,
  trace: decision.trace,
});

/** An event on its way into the store: as stored, with what the policy's rules read and the pipeline's extras. */
export interface Arriving {
  incoming: IncomingEvent;
  payload?: Record<string, unknown> | undefined;
  context?: readonly string[] | undefined;
  reminder?: boolean | undefined;
  lasted?: string | undefined;
  /** A replay of a webhook taken in earlier: the line that says so in its "Why?". */
  replayed?: string | undefined;
}

/** The planner's view of an event the store folded into its row, with the policy's decision and the arriving extras. */
export const planned = ({ eventId, event, effect, row }: FoldedEvent, { decision, item }: { decision: PolicyDecision; item: Arriving }): PlannedEvent => ({
  eventId,
  effect,
  decision,
  context: item.context,
  reminder: item.reminder,
  lasted: item.lasted,
  notificationId: row.id,
  row,
  subjectKey: event.transition === null ? null : event.subjectKey,
  integration: event.integration,
  type: event.type,
  title: event.title,
  occurredAt: event.occurredAt,
});
