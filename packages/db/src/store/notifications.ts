import type { NotificationSeverity, StoredDecision } from '@dash/contracts';

/** The inbox's rows: the events it takes in, the rows they fold into (and how), and the events stored with them. */

/** Severity of a notification, as the webhook parsers give it. */
export type { NotificationSeverity, StoredDecision };

/** One event to store in the inbox: a relay event (or one from the local webhook route) plus its project. */
export interface IncomingEvent {
  /** Unique per real-world event; the dedup key (it already names its source: `github:…`, `vercel:…`). */
  sourceEventId: string;
  integration: string;
  /** `pr.merged`, `deploy.error`, `monitor.down`, … */
  type: string;
  /** Same thing changing state (a monitor, a deploy target, a Sentry issue); absent for stateless events. */
  subjectKey: string | null;
  /** `trigger` opens the subject's thread (or joins the open one), `resolve` closes it; null: a thread of its own. */
  transition: 'trigger' | 'resolve' | null;
  severity: NotificationSeverity;
  title: string;
  url: string | null;
  /** The dashboard project it belongs to, or null when none matched. */
  projectSlug: string | null;
  /** ISO 8601, upstream. */
  occurredAt: string;
  /** ISO 8601, when the relay (or the local route) received it. */
  receivedAt: string;
  /** The relay's id for it, when it came through the relay. */
  relayEventId: string | null;
  /**
   * What it is about, as the relay event names it (`code_host:owner/repo`, `uptime_monitor:<id>`, …): kept on the row it
   * opens, so a project created (or given that repository, monitor, …) later can claim the row while it has none.
   */
  refs?: readonly string[] | undefined;
  /** What the notification policy decided (severity already applied above); the ingest's `plan` completes it. */
  decision?: StoredDecision | null;
}

/** An inbox row: one event, or one subject's occurrence from trigger to resolve (an outage and its recovery). */
export interface NotificationRow {
  id: string;
  /**
   * Global and increasing, bumped on every change of the row: the live stream's event id. Seqs become visible in
   * increasing order on both dialects (writers that assign them are serialised until they commit), and a seq is
   * never handed out twice, even after its row was pruned: once a reader has seen seq N, every later change has a
   * bigger one, so `changedSince(N)` needs no overlap. There may be gaps.
   */
  seq: number;
  /** The seq the row was created with: its place in the list (newest first), which reading or folding never moves. */
  createdSeq: number;
  integration: string;
  /** The type of the event that opened it. */
  type: string;
  subjectKey: string | null;
  /** `open` until its resolve arrives; `resolved` after; `info` for stateless events. */
  status: 'open' | 'resolved' | 'info';
  /** The highest severity of its events. */
  severity: NotificationSeverity;
  /** The opening event's title. */
  title: string;
  url: string | null;
  projectSlug: string | null;
  eventCount: number;
  /** ISO 8601: the first and the latest event's `occurredAt`, when it resolved, when it was received, when read. */
  firstAt: string;
  lastAt: string;
  resolvedAt: string | null;
  receivedAt: string;
  readAt: string | null;
  /** ISO 8601: hidden from the list and the unread count until then; null when not snoozed. */
  snoozedUntil: string | null;
  /** Its latest event's decision (the policy's, and what became of the interruption). */
  decision: StoredDecision | null;
  /** The refs of the event that opened it (see `IncomingEvent.refs`); null in rows stored before they were kept. */
  refs: string[] | null;
}

export interface NotificationQuery {
  /** Newest first (by createdSeq); at most this many. */
  limit: number;
  /** Only rows with a smaller createdSeq (the next page). */
  beforeSeq?: number | undefined;
  unread?: boolean | undefined;
  projectSlug?: string | undefined;
  integration?: string | undefined;
}

/**
 * What the fold did with one stored event: `opened` a new row (a trigger with none open), `joined` its subject's
 * open row, `raised` it (joined and lifted it to `error`), `resolved` it, `resolved_alone` (a resolve with no open
 * row: a resolved row of its own), or `info` (a row of its own without state).
 */
export type FoldEffect = 'opened' | 'joined' | 'raised' | 'resolved' | 'resolved_alone' | 'info';

export interface FoldedEvent {
  /** The id the event is stored with (`notification_events.id`), made before the plan so its interruptions can name it. */
  eventId: string;
  event: IncomingEvent;
  notificationId: string;
  effect: FoldEffect;
  /** The row as the whole batch leaves it. */
  row: NotificationRow;
}

/** A stored event of a thread with the decision about it (`notification_events`). */
export interface NotificationEventRow {
  id: string;
  notificationId: string;
  integration: string;
  type: string;
  transition: 'trigger' | 'resolve' | null;
  severity: NotificationSeverity;
  title: string;
  url: string | null;
  /** ISO 8601: upstream, and when it reached the dashboard. */
  occurredAt: string;
  receivedAt: string;
  decision: StoredDecision | null;
}
