import type { DecisionTraceEntry, PolicyDecision, StoredDecision } from '@dash/contracts';
import type { DeliveryRow, TraceLine } from '@dash/db';

/**
 * The "Why?" trace's bookkeeping: a step of the pipeline, the decision stored with an event, and the lines added to
 * stored events' traces when something later moves what their decision held back.
 */

/** A step of the pipeline in a trace; `decidedAt` (ms UTC) on a line added after the event was stored. */
export const step = (stage: DecisionTraceEntry['stage'], verdict: DecisionTraceEntry['verdict'], why: string, decidedAt?: number): DecisionTraceEntry => ({
  stage,
  id: stage,
  name: stageNames[stage],
  verdict,
  why,
  ...(decidedAt === undefined ? {} : { decidedAt: new Date(decidedAt).toISOString() }),
});

const stageNames: Record<DecisionTraceEntry['stage'], string> = {
  preference: 'Preference',
  rule: 'Rule',
  thread: 'Thread',
  mute: 'Mute',
  flap: 'Flap hold',
  quiet_hours: 'Quiet hours',
  pause: 'Pause',
  delivery: 'Delivery',
  context: 'What else happened',
  replay: 'Replay',
};

/** The part of the policy's decision stored with the event, with its trace as the pipeline completed it. */
export const storedDecision = (decision: PolicyDecision, steps: readonly DecisionTraceEntry[]): StoredDecision => ({
  severity: decision.severity,
  channels: decision.channels,
  bypassQuietHours: decision.bypassQuietHours,
  trace: [...decision.trace, ...steps],
});

/**
 * Later lines of stored events' traces, one per event and saying: what a tick (or a later event of the batch) did with
 * the interruptions its decision held back. Its rows of every channel share one fate, so their lines are one.
 */
export class TraceBook {
  private readonly lines = new Map<string, TraceLine>();

  /** `entry` on the trace of each event whose interruption is among `rows`. */
  note(rows: readonly DeliveryRow[], entry: (row: DeliveryRow) => DecisionTraceEntry | null): void {
    for (const row of rows) {
      const line = row.eventId ? entry(row) : null;
      if (line && row.eventId) this.lines.set(`${row.eventId}\n${line.why}`, { eventId: row.eventId, entry: line });
    }
  }

  /** The lines for events not in `inBatch` (stored before); those in it get theirs there. */
  take(inBatch: ReadonlyMap<string, DecisionTraceEntry[]> = new Map()): TraceLine[] {
    const stored: TraceLine[] = [];
    for (const line of this.lines.values()) {
      const steps = inBatch.get(line.eventId);
      if (steps) steps.push(line.entry);
      else stored.push(line);
    }
    return stored;
  }
}
