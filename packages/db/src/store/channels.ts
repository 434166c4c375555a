import type { ChannelFloor } from '@dash/contracts';
import type { DeliveryRow } from './outbox.ts';

/** The chat and webhook connections and their sends: their rows, how a send ends, and the interface. */

/**
 * A chat or webhook connection (`channel_connections`): Slack, Discord, Telegram, ntfy or a signed webhook. Its
 * secret is sealed by the caller's vault (the store never sees it in clear); `settings` is the kind's part that is
 * not secret, as JSON. Instants are ms UTC.
 */
export interface ChannelConnectionRow {
  id: string;
  kind: 'slack' | 'discord' | 'telegram' | 'ntfy' | 'webhook';
  name: string;
  /** The least severe notification it is sent. */
  minSeverity: ChannelFloor;
  settings: string;
  sealedSecret: string;
  createdAt: number;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  /** The last failure, in the service's words (never a secret). */
  lastFailure: string | null;
  /** When the service refused for good (a deleted webhook, a revoked token), and its words: nothing is sent until it is fixed. */
  attentionAt: number | null;
  attention: string | null;
}

/**
 * A chat interruption to one connection (`channel_sends`): the released chat delivery it sends, and how sending it
 * went. `gone`: the connection was removed or refused for good; `skipped`: nothing to send there (a recovery whose
 * outage never went to it). `providerId`: the service's id of the message made (an edit or a reply names it). ms UTC.
 */
export interface ChannelSendRow {
  id: string;
  connectionId: string;
  state: 'queued' | 'delivered' | 'failed' | 'gone' | 'skipped';
  attempts: number;
  dueAt: number;
  status: number | null;
  error: string | null;
  providerId: string | null;
  createdAt: number;
  sentAt: number | null;
  delivery: DeliveryRow;
}

/** How a claimed chat send ended (or when it is tried again). */
export interface ChannelSendOutcome {
  state: ChannelSendRow['state'];
  attempts: number;
  dueAt: number;
  status: number | null;
  error: string | null;
  providerId: string | null;
  sentAt: number | null;
}

/** Chat and webhook connections (see ChannelConnectionRow). */
export type ChannelsStore = {
  /** Oldest first. */
  list(): Promise<ChannelConnectionRow[]>;
  get(id: string): Promise<ChannelConnectionRow | undefined>;
  add(row: ChannelConnectionRow): Promise<void>;
  /** Its name, floor, settings and secret, as given; a change clears "needs attention" (it is fixed, or to be tried again). */
  update(row: Pick<ChannelConnectionRow, 'id' | 'name' | 'minSeverity' | 'settings' | 'sealedSecret'>): Promise<void>;
  /** False when there was none; what still waited for it never goes. */
  remove(id: string): Promise<boolean>;
  /**
   * Its secret sealed again (`to`) for what it was sealed for under another name, or with what its settings kept in
   * clear (then `settings` is what stays in clear), only while it is still `from`; nothing else changes.
   */
  rebind(id: string, from: string, to: string, settings?: string): Promise<void>;
  /** A message the service accepted: clears "needs attention". */
  succeeded(id: string, at: number): Promise<void>;
  /** A message the service refused or could not take; `reason` is its words. */
  failed(id: string, at: number, reason: string): Promise<void>;
  /** The service refused for good: marked "needs attention", and what waited for it never goes. */
  attention(id: string, at: number, reason: string): Promise<void>;
  /**
   * Chat interruptions per connection: queued when the outbox releases a chat delivery (in that transaction, one per
   * connection then that its floor lets through), claimed with a lease, settled as the push sends are.
   */
  sends: {
    claim(holder: string, now: number, leaseMs: number, limit: number): Promise<ChannelSendRow[]>;
    /** As the email sends' `hold`. */
    hold(id: string, holder: string, now: number, leaseMs: number): Promise<boolean>;
    settle(id: string, holder: string, outcome: ChannelSendOutcome): Promise<void>;
    /** The newest sends first. */
    recent(limit: number): Promise<ChannelSendRow[]>;
    nextDue(): Promise<number | null>;
    /**
     * The latest "flapping" notice about a subject delivered to a connection, which the flap's end answers (whatever
     * row of the subject it is filed on); undefined when none went there.
     */
    flapStart(connectionId: string, subjectKey: string): Promise<ChannelSendRow | undefined>;
    /** Whether a thread's outage notice to a connection is still queued (its recovery goes there after it). */
    outageQueued(connectionId: string, notificationId: string): Promise<boolean>;
    /**
     * The latest message a thread's outage made on a connection (a delivered send of a first, repeat or flap notice
     * for `notificationId`), which its recovery edits, replies to or names; undefined when none went there.
     */
    outage(connectionId: string, notificationId: string): Promise<ChannelSendRow | undefined>;
  };
};
