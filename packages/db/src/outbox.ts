import type { StoredDecision } from '@dash/contracts';
import { enqueueEmails } from './emails.ts';
import { enqueueChats } from './channels.ts';
import { enqueuePushes } from './push.ts';
import { chunked, type SqlDialect } from './dialects.ts';
import { isoOf } from './instants.ts';
import { refsOf } from './notification-rows.ts';
import { bind, DELIVERY_COLUMNS, num, numOrNull, parseJson, rawDelivery, type RunStatement } from './sql-rows.ts';
import type { DeliveryRow, MuteRow, NotificationEventRow, NotificationRow, OutboxOps, Store, SubjectState, TraceLine } from './store.ts';

/**
 * The outbox's reads and writes (interruptions, flap state, mutes, snoozes) as plain SQL that SQLite and Postgres
 * both run, so the one implementation serves both dialects. Every call runs inside the caller's notifications
 * transaction (the ingest's, or `Store.notifications.outbox`'s), which serialises them with every other write
 * that takes seqs. Instants of these tables are integer ms UTC.
 */

export type { RunStatement } from './sql-rows.ts';

/** A `StoredDecision` column: JSON text, or null. */
export const decisionOf = (value: unknown): StoredDecision | null => (value === null || value === undefined ? null : parseJson<StoredDecision>(value));

/** A `notifications` row as a raw statement answers it (snake_case; Postgres instants as its own text). */
export function rawNotification(r: Record<string, unknown>): NotificationRow {
  const iso = (value: unknown) => isoOf(String(value));
  const snoozed = numOrNull(r.snoozed_until);
  return {
    id: String(r.id),
    seq: num(r.seq),
    createdSeq: num(r.created_seq),
    integration: String(r.integration),
    type: String(r.type),
    subjectKey: (r.subject_key as string | null) ?? null,
    status: r.status as NotificationRow['status'],
    severity: r.severity as NotificationRow['severity'],
    title: String(r.title),
    url: (r.url as string | null) ?? null,
    projectSlug: (r.project_slug as string | null) ?? null,
    eventCount: num(r.event_count),
    firstAt: iso(r.first_at),
    lastAt: iso(r.last_at),
    resolvedAt: r.resolved_at === null || r.resolved_at === undefined ? null : iso(r.resolved_at),
    receivedAt: iso(r.received_at),
    readAt: r.read_at === null || r.read_at === undefined ? null : iso(r.read_at),
    snoozedUntil: snoozed === null ? null : new Date(snoozed).toISOString(),
    decision: decisionOf(r.decision),
    refs: refsOf(r.refs),
  };
}

const rawSubject = (r: Record<string, unknown>): SubjectState => ({
  subjectKey: String(r.subject_key),
  outages: parseJson<number[]>(r.outages),
  flappingSince: numOrNull(r.flapping_since),
  lastChangeAt: num(r.last_change_at),
});

const rawEvent = (r: Record<string, unknown>): NotificationEventRow => ({
  id: String(r.id),
  notificationId: String(r.notification_id),
  integration: String(r.integration),
  type: String(r.type),
  transition: (r.transition as NotificationEventRow['transition']) ?? null,
  severity: r.severity as NotificationEventRow['severity'],
  title: String(r.title),
  url: (r.url as string | null) ?? null,
  occurredAt: isoOf(String(r.occurred_at)),
  receivedAt: isoOf(String(r.received_at)),
  decision: decisionOf(r.decision),
});

const rawMute = (r: Record<string, unknown>): MuteRow => ({ subjectKey: String(r.subject_key), until: num(r.until), createdAt: num(r.created_at) });

/** What `NotificationReads` serves: the inbox's plain reads, the same on both dialects. */
type NotificationReads = Pick<Store['notifications'], 'list' | 'events' | 'changedSince' | 'latestSeq' | 'unreadCount' | 'mutes' | 'sentSince' | 'read'>;

/**
 * The inbox's reads on the plain connection (no transaction): the list, the live stream's feeds, the unread count,
 * the mutes, and `read(work)`, which runs the outbox's read operations outside any transaction (the dry run, the
 * mutes with their titles): a read never waits for, or holds, the notifications' write lock.
 */
export function notificationReads(run: RunStatement, dialect: SqlDialect): NotificationReads {
  const exec = (text: string, params: unknown[] = []) => run(bind(dialect, text, params));
  const until = dialect.quote('until');
  return {
    async list({ limit, beforeSeq, unread, projectSlug, integration }) {
      // Snoozed rows are left out until they wake; each filter given adds its condition.
      const conditions: [string, unknown[]][] = [
        ['snoozed_until is null', []],
        ...(beforeSeq === undefined ? [] : [['created_seq < ?', [beforeSeq]] as [string, unknown[]]]),
        ...(unread ? [['read_at is null', []] as [string, unknown[]]] : []),
        ...(projectSlug === undefined ? [] : [['project_slug = ?', [projectSlug]] as [string, unknown[]]]),
        ...(integration === undefined ? [] : [['integration = ?', [integration]] as [string, unknown[]]]),
      ];
      const where = conditions.map(([condition]) => condition).join(' and ');
      const rows = await exec(`select * from notifications where ${where} order by created_seq desc limit ?`, [...conditions.flatMap(([, params]) => params), limit]);
      return rows.map(rawNotification);
    },
    async events(notificationId) {
      // Instants are ISO text (Postgres's its own, which sorts the same): the order they happened, then arrived; an
      // outage and its recovery within one second, the outage first.
      const order = "occurred_at, received_at, case when transition = 'resolve' then 1 else 0 end, id";
      return (await exec(`select * from notification_events where notification_id = ? order by ${order}`, [notificationId])).map(rawEvent);
    },
    async changedSince(seq, limit) {
      return (await exec('select * from notifications where seq > ? order by seq limit ?', [seq, limit])).map(rawNotification);
    },
    async latestSeq() {
      const [row] = await exec('select max(seq) as seq from (select max(seq) as seq from notifications union all select max(seq) from notification_deliveries) as feeds');
      return Number(row?.seq ?? 0);
    },
    async unreadCount() {
      const [row] = await exec('select count(*) as n from notifications where read_at is null and snoozed_until is null');
      return Number(row?.n ?? 0);
    },
    async mutes() {
      return (await exec(`select * from notification_mutes order by ${until}`)).map(rawMute);
    },
    async sentSince(seq, limit) {
      return (await exec("select * from notification_deliveries where channel = 'browser' and status = 'sent' and seq > ? order by seq limit ?", [seq, limit])).map(rawDelivery);
    },
    read(work) {
      return work(
        outboxOps(run, dialect, () => {
          throw new Error('A read of the outbox takes no seqs: writes go through Store.notifications.outbox');
        }),
      );
    },
  };
}

/**
 * The outbox operations on a transaction. `takeSeqs(n)` hands out n new seqs of the notifications' sequence, ascending
 * (a sent interruption gets one: it is on the live stream's feed with the inbox rows).
 */
export function outboxOps(run: RunStatement, dialect: SqlDialect, takeSeqs: (count: number) => Promise<number[]>): OutboxOps {
  const statement = (text: string, params: unknown[]) => bind(dialect, text, params);
  /** MySQL reserves the word. */
  const until = dialect.quote('until');
  const exec = (text: string, params: unknown[] = []) => run(statement(text, params));
  const list = (count: number) => Array.from({ length: count }, () => '?').join(', ');

  /** Gives each browser delivery that is `sent` and has no seq yet a seq, in list order (emails are not on the stream). */
  const withSeqs = async (rows: DeliveryRow[]): Promise<DeliveryRow[]> => {
    const unsequenced = rows.filter((row) => row.channel === 'browser' && row.status === 'sent' && row.seq === null);
    if (unsequenced.length === 0) return rows;
    const seqs = await takeSeqs(unsequenced.length);
    unsequenced.forEach((row, index) => (row.seq = seqs[index] ?? null));
    return rows;
  };

  return {
    async deliveriesFor(notificationIds) {
      if (notificationIds.length === 0) return [];
      const rows = await exec(`select * from notification_deliveries where notification_id in (${list(notificationIds.length)}) order by created_at, id`, notificationIds);
      return rows.map(rawDelivery);
    },
    async deliveriesWithStatus(status, dueBy) {
      const rows =
        dueBy === undefined
          ? await exec('select * from notification_deliveries where status = ? order by created_at, id', [status])
          : await exec('select * from notification_deliveries where status = ? and due_at <= ? order by due_at, created_at, id', [status, dueBy]);
      return rows.map(rawDelivery);
    },
    async addDeliveries(deliveries) {
      if (deliveries.length === 0) return [];
      const rows = await withSeqs(deliveries.map((delivery) => ({ ...delivery })));
      for (let i = 0; i < rows.length; i += 250) await insertDeliveries(rows.slice(i, i + 250));
      const now = Math.max(...rows.map((row) => row.createdAt));
      await enqueueEmails(run, dialect, rows, now);
      await enqueuePushes(run, dialect, rows, now);
      await enqueueChats(run, dialect, rows, now);
      return rows;
    },
    async updateDeliveries(changes) {
      const rows = await withSeqs(changes.map((row) => ({ ...row })));
      for (const row of rows) {
        await exec('update notification_deliveries set status = ?, reason = ?, held_for = ?, due_at = ?, seq = ?, digest_id = ?, sent_at = ? where id = ?', [
          row.status,
          row.reason,
          row.heldFor ?? null,
          row.dueAt,
          row.seq,
          row.digestId,
          row.sentAt,
          row.id,
        ]);
      }
      const now = Math.max(0, ...rows.map((row) => row.sentAt ?? 0));
      await enqueueEmails(run, dialect, rows, now);
      await enqueuePushes(run, dialect, rows, now);
      await enqueueChats(run, dialect, rows, now);
      return rows;
    },
    async subjects(keys) {
      if (keys.length === 0) return [];
      return (await exec(`select * from notification_subjects where subject_key in (${list(keys.length)})`, keys)).map(rawSubject);
    },
    async flapping(lastChangeBy) {
      const rows = await exec('select * from notification_subjects where flapping_since is not null and last_change_at <= ? order by last_change_at', [lastChangeBy]);
      return rows.map(rawSubject);
    },
    async putSubjects(states) {
      // One statement for the lot (each subject once: Postgres refuses to change a row twice in one statement).
      for (let i = 0; i < states.length; i += 250) {
        const slice = states.slice(i, i + 250);
        await exec(
          `insert into notification_subjects (subject_key, outages, flapping_since, last_change_at) values ${slice.map(() => '(?, ?, ?, ?)').join(', ')} ` +
            dialect.upsert('subject_key', ['outages', 'flapping_since', 'last_change_at']),
          slice.flatMap((state) => [state.subjectKey, JSON.stringify(state.outages), state.flappingSince, state.lastChangeAt]),
        );
      }
    },
    async mutes(keys) {
      if (keys !== undefined && keys.length === 0) return [];
      const rows =
        keys === undefined
          ? await exec(`select * from notification_mutes order by ${until}`)
          : await exec(`select * from notification_mutes where subject_key in (${list(keys.length)})`, keys);
      return rows.map(rawMute);
    },
    async putMute(mute) {
      await exec(`insert into notification_mutes (subject_key, ${until}, created_at) values (?, ?, ?) ${dialect.upsert('subject_key', [until])}`, [
        mute.subjectKey,
        mute.until,
        mute.createdAt,
      ]);
    },
    async removeMutes(keys) {
      if (keys.length === 0) return;
      await exec(`delete from notification_mutes where subject_key in (${list(keys.length)})`, keys);
    },
    async rows(ids) {
      if (ids.length === 0) return [];
      return (await exec(`select * from notifications where id in (${list(ids.length)})`, ids)).map(rawNotification);
    },
    async openRows(subjectKeys) {
      if (subjectKeys.length === 0) return [];
      const rows = await exec(`select * from notifications where status = 'open' and subject_key in (${list(subjectKeys.length)})`, subjectKeys);
      return rows.map(rawNotification);
    },
    async latestRows(subjectKeys) {
      if (subjectKeys.length === 0) return [];
      const rows = await exec(
        `select * from notifications n where subject_key in (${list(subjectKeys.length)}) and created_seq = ` +
          '(select max(created_seq) from notifications m where m.subject_key = n.subject_key)',
        subjectKeys,
      );
      return rows.map(rawNotification);
    },
    async flapStarts(subjectKeys) {
      if (subjectKeys.length === 0) return [];
      const rows = await exec(
        'select d.*, e.decision as started_by from notification_deliveries d left join notification_events e on e.id = d.event_id ' +
          `where d.purpose = 'flap_start' and d.subject_key in (${list(subjectKeys.length)}) order by d.created_at, d.id`,
        subjectKeys,
      );
      return rows.map((row) => ({ delivery: rawDelivery(row), bypassQuietHours: decisionOf(row.started_by)?.bypassQuietHours === true }));
    },
    async snooze(ids, until) {
      if (ids.length === 0) return [];
      // Waking (until null) brings back only rows that are snoozed; snoozing moves the time of a snoozed row too.
      const targets = await exec(
        `select id from notifications where id in (${list(ids.length)})${until === null ? ' and snoozed_until is not null' : ''} order by seq`,
        ids,
      );
      return changeRows(
        targets.map((row) => String(row.id)),
        until === null ? 'snoozed_until = null, read_at = null' : 'snoozed_until = ?',
        until === null ? [] : [until],
      );
    },
    async wakeSnoozed(now) {
      const due = await exec('select id from notifications where snoozed_until is not null and snoozed_until <= ? order by seq', [now]);
      // Back unread, as if new: that is what a snooze promises.
      return changeRows(
        due.map((row) => String(row.id)),
        'snoozed_until = null, read_at = null',
        [],
      );
    },
    async nextSnoozeEnd() {
      const [row] = await exec('select min(snoozed_until) as next from notifications where snoozed_until is not null');
      return numOrNull(row?.next);
    },
    async assign(projectOf) {
      const unassigned = await exec('select id, refs from notifications where project_slug is null and refs is not null order by seq');
      const bySlug = new Map<string, string[]>();
      for (const row of unassigned) {
        const slug = projectOf(refsOf(row.refs) ?? []);
        if (slug === null) continue;
        const ids = bySlug.get(slug) ?? [];
        ids.push(String(row.id));
        bySlug.set(slug, ids);
      }
      const changed: NotificationRow[] = [];
      for (const [slug, allIds] of bySlug) {
        for (const ids of chunked(allIds)) {
          // Its events too: each carries the project its row has.
          await exec(`update notification_events set project_slug = ? where project_slug is null and notification_id in (${list(ids.length)})`, [slug, ...ids]);
          changed.push(...(await changeRows(ids, 'project_slug = ?', [slug])));
        }
      }
      return changed.sort((a, b) => a.seq - b.seq);
    },
    async markRead(ids, at) {
      if (ids.length === 0) return;
      await exec(`update notifications set read_at = ? where read_at is null and id in (${list(ids.length)})`, [at, ...ids]);
    },
    async appendTrace(lines) {
      const byEvent = new Map<string, TraceLine[]>();
      for (const line of lines) byEvent.set(line.eventId, [...(byEvent.get(line.eventId) ?? []), line]);
      if (byEvent.size === 0) return;
      // A digest after a long pause may move thousands of rows: the ids go a slice at a time (bound parameters are limited).
      const stored: Record<string, unknown>[] = [];
      for (const ids of chunked([...byEvent.keys()])) {
        stored.push(...(await exec(`select id, notification_id, decision from notification_events where id in (${list(ids.length)}) and decision is not null`, ids)));
      }
      for (const event of stored) {
        const before = String(event.decision);
        const decision = decisionOf(before) as StoredDecision;
        const after = JSON.stringify({ ...decision, trace: [...decision.trace, ...(byEvent.get(String(event.id)) ?? []).map((line) => line.entry)] });
        await exec('update notification_events set decision = ? where id = ?', [after, event.id]);
        // The thread holds a copy of its latest event's decision, written from the same text: it is this event's
        // exactly when the texts are equal (a later event of the thread has its own trace, which it keeps).
        await exec('update notifications set decision = ? where id = ? and decision = ?', [after, event.notification_id, before]);
      }
    },
  };

  /** One multi-row insert (at most 250 rows: 3,500 parameters). */
  async function insertDeliveries(rows: DeliveryRow[]) {
    const tuples = rows.map(() => `(${list(DELIVERY_COLUMNS.length)})`).join(', ');
    const params = rows.flatMap((row) => [
      row.id,
      row.notificationId,
      row.eventId ?? null,
      row.subjectKey,
      row.channel,
      row.purpose,
      row.status,
      row.reason,
      row.heldFor ?? null,
      row.dueAt,
      JSON.stringify(row.message),
      row.seq,
      row.digestId,
      row.createdAt,
      row.sentAt,
    ]);
    await exec(`insert into notification_deliveries (${DELIVERY_COLUMNS.join(', ')}) values ${tuples}`, params);
  }

  /** Sets `assignments` on each row (in the order given) with a new seq each; answers the rows as they now are. */
  async function changeRows(ids: string[], assignments: string, params: unknown[]): Promise<NotificationRow[]> {
    if (ids.length === 0) return [];
    const seqs = await takeSeqs(ids.length);
    for (const [index, id] of ids.entries()) {
      const text = `update notifications set ${assignments}, seq = ? where id = ?`;
      await run(statement(text, [...params, seqs[index], id]));
    }
    const rows = (await run(statement(`select * from notifications where id in (${list(ids.length)})`, ids))).map(rawNotification);
    return rows.sort((a, b) => a.seq - b.seq);
  }
}
