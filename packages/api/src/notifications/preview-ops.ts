import type { DeliveryRow, OutboxOps, SubjectState } from '@dash/db';

/**
 * The outbox as a preview sees it: its reads, with writes kept instead of made (in `written`) and seen by the reads
 * that follow. The planner runs on these exactly as in an ingest (same reads, same decisions), and the scheduler's
 * tick too, so a preview of a later instant first does what the scheduler would do until then; the dry run reads back
 * what the event's plan would have written.
 */
export function previewOps(ops: OutboxOps): { ops: OutboxOps; written: DeliveryRow[] } {
  const written: DeliveryRow[] = [];
  /** Rows written (made or changed), by id, and subjects and mutes as the writes left them. */
  const rows = new Map<string, DeliveryRow>();
  const subjects = new Map<string, SubjectState>();
  const endedMutes = new Set<string>();
  const keep = (changed: DeliveryRow[]) => {
    for (const row of changed) rows.set(row.id, row);
    written.push(...changed);
    return Promise.resolve(changed);
  };
  /** Stored rows as the writes left them, those that still match, and the written ones that match and were not stored. */
  const merged = (stored: DeliveryRow[], matches: (row: DeliveryRow) => boolean) => {
    const ids = new Set(stored.map((row) => row.id));
    return [...stored.map((row) => rows.get(row.id) ?? row), ...[...rows.values()].filter((row) => !ids.has(row.id))].filter(matches);
  };
  const byCreation = (a: DeliveryRow, b: DeliveryRow) => a.createdAt - b.createdAt || a.id.localeCompare(b.id);
  const states = (stored: SubjectState[], matches: (state: SubjectState) => boolean, keys?: readonly string[]) => {
    const ids = new Set(stored.map((state) => state.subjectKey));
    const own = [...subjects.values()].filter((state) => !ids.has(state.subjectKey) && (keys === undefined || keys.includes(state.subjectKey)));
    return [...stored.map((state) => subjects.get(state.subjectKey) ?? state), ...own].filter(matches);
  };
  const refuse = () => Promise.reject(new Error('a preview writes nothing'));
  return {
    written,
    ops: {
      deliveriesFor: async (ids) => merged(await ops.deliveriesFor(ids), (row) => row.notificationId !== null && ids.includes(row.notificationId)).sort(byCreation),
      async deliveriesWithStatus(status, dueBy) {
        const due = (row: DeliveryRow) => row.status === status && (dueBy === undefined || (row.dueAt !== null && row.dueAt <= dueBy));
        const found = merged(await ops.deliveriesWithStatus(status, dueBy), due);
        return dueBy === undefined ? found.sort(byCreation) : found.sort((a, b) => (a.dueAt ?? 0) - (b.dueAt ?? 0) || byCreation(a, b));
      },
      addDeliveries: keep,
      updateDeliveries: keep,
      subjects: async (keys) => states(await ops.subjects(keys), () => true, keys),
      flapping: async (lastChangeBy) => states(await ops.flapping(lastChangeBy), (state) => state.flappingSince !== null && state.lastChangeAt <= lastChangeBy),
      putSubjects(changed) {
        for (const state of changed) subjects.set(state.subjectKey, state);
        return Promise.resolve();
      },
      mutes: async (keys) => (await ops.mutes(keys)).filter((mute) => !endedMutes.has(mute.subjectKey)),
      putMute: refuse,
      removeMutes(keys) {
        for (const key of keys) endedMutes.add(key);
        return Promise.resolve();
      },
      rows: (ids) => ops.rows(ids),
      openRows: (keys) => ops.openRows(keys),
      latestRows: (keys) => ops.latestRows(keys),
      flapStarts: (keys) => ops.flapStarts(keys),
      snooze: refuse,
      // Rows that wake change no interruption: a preview leaves them asleep.
      wakeSnoozed: () => Promise.resolve([]),
      nextSnoozeEnd: () => ops.nextSnoozeEnd(),
      assign: refuse,
      markRead: refuse,
      // The lines a plan adds to earlier events' traces: what the previewed event would change, not its own outcome.
      appendTrace: () => Promise.resolve(),
    },
  };
}
