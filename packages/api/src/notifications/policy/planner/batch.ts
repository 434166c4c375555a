import type { DecisionTraceEntry, PolicyDecision } from '@dash/contracts';
import type { DeliveryRow, FoldEffect, MuteRow, NotificationRow, OutboxOps, SubjectState } from '@dash/db';
import type { Moment, Recipients } from './release.ts';
import { TraceBook } from './trace.ts';

/** One event ready to plan: what the fold did with it and the policy's decision. */
export interface PlannedEvent {
  /** The id it is stored with: its interruptions name it, and later lines of its trace find it by it. */
  eventId: string;
  effect: FoldEffect;
  decision: PolicyDecision;
  notificationId: string;
  row: NotificationRow;
  subjectKey: string | null;
  integration: string;
  type: string;
  title: string;
  occurredAt: string;
  /**
   * What else happened around it, one line each (a metric alert's deploys, errors, outages…): under its message on
   * every channel. Absent for webhook events.
   */
  context?: readonly string[] | undefined;
  /** A reminder that its subject is still in trouble (a metric out of range a week on): a join that interrupts again. */
  reminder?: boolean | undefined;
  /**
   * How its recovery names the time it was out, before the duration ("Out of range for" 2 d); absent, a provider's
   * outage: "Down 2 h, recovered".
   */
  lasted?: string | undefined;
}

/**
 * One batch's plan: what its stages read once (the subjects' flap memory and mutes), and what they leave to write
 * at the end (the new interruptions in one statement, the changed ones, the subjects, the later trace lines). A later
 * event of the batch sees what an earlier one decided.
 */
export class BatchPlan {
  /** Each event's steps, by event id, in the batch's order. */
  readonly steps = new Map<string, DecisionTraceEntry[]>();
  readonly readIds: string[] = [];
  readonly changedSubjects = new Map<string, SubjectState>();
  readonly trace = new TraceBook();
  private readonly pending: DeliveryRow[] = [];
  private readonly updated = new Map<string, DeliveryRow>();

  private constructor(
    readonly ops: OutboxOps,
    readonly moment: Moment,
    readonly holdMs: number,
    /** Where a push and a chat message released now go (the trace names them). */
    readonly recipients: Recipients,
    private readonly subjects: ReadonlyMap<string, SubjectState>,
    readonly mutes: ReadonlyMap<string, MuteRow>,
    /** Rows this batch opens: nothing of theirs is stored yet. */
    private readonly created: ReadonlySet<string>,
  ) {}

  static async open(events: readonly PlannedEvent[], ops: OutboxOps, moment: Moment, holdMs: number, recipients: Recipients): Promise<BatchPlan> {
    const keys = [...new Set(events.flatMap((event) => (event.subjectKey ? [event.subjectKey] : [])))];
    const [subjects, mutes] = await Promise.all([ops.subjects(keys), ops.mutes(keys)]);
    const created = events.filter((event) => event.effect === 'opened' || event.effect === 'info' || event.effect === 'resolved_alone').map((event) => event.notificationId);
    return new BatchPlan(
      ops,
      moment,
      holdMs,
      recipients,
      new Map(subjects.map((state) => [state.subjectKey, state])),
      new Map(mutes.filter((mute) => mute.until > moment.now).map((mute) => [mute.subjectKey, mute])),
      new Set(created),
    );
  }

  /** A subject's flap memory as the batch has left it so far. */
  subject(key: string): SubjectState | undefined {
    return this.changedSubjects.get(key) ?? this.subjects.get(key);
  }

  add(rows: DeliveryRow[]): void {
    this.pending.push(...rows);
  }

  update(rows: DeliveryRow[]): void {
    for (const row of rows) {
      const mine = this.pending.findIndex((item) => item.id === row.id);
      if (mine >= 0) this.pending[mine] = row;
      else this.updated.set(row.id, row);
    }
  }

  /** The interruptions of a row: stored ones (as this batch changed them) and this batch's. */
  async deliveriesOf(notificationId: string): Promise<DeliveryRow[]> {
    const stored = this.created.has(notificationId) ? [] : await this.ops.deliveriesFor([notificationId]);
    return [...stored.map((row) => this.updated.get(row.id) ?? row), ...this.pending.filter((row) => row.notificationId === notificationId)];
  }

  /** Writes what the batch decided; answers what it sent, in stream order. */
  async write(): Promise<DeliveryRow[]> {
    const sent = [...(await this.ops.updateDeliveries([...this.updated.values()])), ...(await this.ops.addDeliveries(this.pending))].filter((row) => row.status === 'sent');
    if (this.changedSubjects.size > 0) await this.ops.putSubjects([...this.changedSubjects.values()]);
    await this.ops.appendTrace(this.trace.take(this.steps));
    return sent.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  }
}
