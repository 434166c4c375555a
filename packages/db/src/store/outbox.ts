import type { ChannelFloor, DecisionTraceEntry, NotificationSeverity } from '@dash/contracts';
import type { NotificationRow } from './notifications.ts';

/** The outbox's rows (interruptions, flap state, mutes) and its reads and writes inside a notifications transaction. */

/** What an interruption says: a browser notification (or a toast), later an email. */
export interface InterruptMessage {
  title: string;
  body: string;
  severity: NotificationSeverity;
  /** One per thread: a recovery replaces the outage's notification. */
  tag: string;
  url: string | null;
  renotify: boolean;
  requireInteraction: boolean;
  /**
   * A chat digest's words for each connection floor it has something for (what reaches that floor, and nothing else):
   * a connection is sent its floor's, and no digest when its floor has none.
   */
  floors?: Partial<Record<ChannelFloor, Pick<InterruptMessage, 'title' | 'body' | 'severity'>>>;
}

/** A row of the outbox (see the `notification_deliveries` table). Instants are ms UTC. */
export interface DeliveryRow {
  id: string;
  notificationId: string | null;
  /** The stored event whose interruption it is (its trace gains the scheduler's lines); null for a digest or the scheduler's own notices. */
  eventId?: string | null;
  subjectKey: string | null;
  channel: 'browser' | 'email' | 'push' | 'chat';
  purpose: 'first' | 'resolve' | 'repeat' | 'flap_start' | 'flap_end' | 'digest';
  status: 'held' | 'deferred' | 'sent' | 'cancelled' | 'suppressed' | 'digested' | 'empty';
  reason: string;
  /** Why it was held or deferred, as a value (the digest's kind is read from it); null: it never waited. */
  heldFor?: 'flap_hold' | 'quiet_hours' | 'pause' | null;
  dueAt: number | null;
  message: InterruptMessage;
  /** Set when it is sent: its place on the live stream's feed, with the inbox rows' seqs. */
  seq: number | null;
  digestId: string | null;
  createdAt: number;
  sentAt: number | null;
}

/** Flap detection's memory of a subject: its recent outages (ms UTC), whether it flaps, its latest change. */
export interface SubjectState {
  subjectKey: string;
  outages: number[];
  flappingSince: number | null;
  lastChangeAt: number;
}

export interface MuteRow {
  subjectKey: string;
  until: number;
  createdAt: number;
}

/**
 * The outbox's reads and writes inside a notifications transaction (an ingest's `plan`, or `outbox(work)`); the
 * delivery writers hand a seq to each row whose status is `sent` and has none.
 */
export interface OutboxOps {
  deliveriesFor(notificationIds: string[]): Promise<DeliveryRow[]>;
  /** With `dueBy`: only those due by then (`due_at <= dueBy`), soonest first. */
  deliveriesWithStatus(status: DeliveryRow['status'], dueBy?: number): Promise<DeliveryRow[]>;
  addDeliveries(deliveries: DeliveryRow[]): Promise<DeliveryRow[]>;
  /** Writes status, reason, heldFor, dueAt, digestId and sentAt (and a seq for a newly sent one) of each. */
  updateDeliveries(deliveries: DeliveryRow[]): Promise<DeliveryRow[]>;
  subjects(keys: string[]): Promise<SubjectState[]>;
  /** Subjects that flap and have not changed since `lastChangeBy`. */
  flapping(lastChangeBy: number): Promise<SubjectState[]>;
  putSubjects(states: SubjectState[]): Promise<void>;
  /** The mutes of these subjects, or all of them. */
  mutes(keys?: string[]): Promise<MuteRow[]>;
  putMute(mute: MuteRow): Promise<void>;
  removeMutes(keys: string[]): Promise<void>;
  rows(ids: string[]): Promise<NotificationRow[]>;
  openRows(subjectKeys: string[]): Promise<NotificationRow[]>;
  /** The newest row of each subject. */
  latestRows(subjectKeys: string[]): Promise<NotificationRow[]>;
  /**
   * The "flapping" notices of these subjects (every channel's row), oldest first, each with whether the decision of
   * the event that started the flap goes through quiet hours.
   */
  flapStarts(subjectKeys: string[]): Promise<FlapStart[]>;
  /** Snoozes rows until `until` (ms UTC), or wakes them (null: back unread); answers the rows changed, with new seqs. */
  snooze(ids: string[], until: number | null): Promise<NotificationRow[]>;
  /** Wakes the rows whose snooze ended by `now`: back unread, with new seqs. */
  wakeSnoozed(now: number): Promise<NotificationRow[]>;
  /** When the next snooze ends, ms UTC, or null. */
  nextSnoozeEnd(): Promise<number | null>;
  /**
   * Late assignment: gives each row without a project whose refs `projectOf` names a project to it (with its events),
   * each with a new seq so live streams hear of it; answers the rows changed, in seq order. A row that has a project
   * keeps it, and one stored without refs stays as it is.
   */
  assign(projectOf: (refs: readonly string[]) => string | null): Promise<NotificationRow[]>;
  /** Marks rows read (ISO 8601 `at`) without a new seq: the rows a batch creates, before anyone saw them. */
  markRead(ids: string[], at: string): Promise<void>;
  /**
   * Adds lines to stored events' traces (the scheduler released, sent or dropped what an event's decision held),
   * each event's in the order given; the thread's copy of its latest event's decision gains them too. Events without
   * a stored decision are left as they are.
   */
  appendTrace(lines: readonly TraceLine[]): Promise<void>;
}

/** A flap's start as the outbox keeps it: its notice on one channel, and how the event that started it was decided. */
export interface FlapStart {
  delivery: DeliveryRow;
  bypassQuietHours: boolean;
}

/** A line the scheduler adds to a stored event's trace. */
export interface TraceLine {
  eventId: string;
  entry: DecisionTraceEntry;
}
