import { bind, DELIVERY_PREFIXED, joinedDelivery, numOrNull, sendQueue, type RunStatement } from './sql-rows.ts';
import type { SqlDialect } from './dialects.ts';
import type { DeliveryRow, EmailOutcome, EmailSendRow, Store } from './store.ts';

/** A send joined with the outbox row it sends (`d_*` columns are the delivery's). */
function rawSend(r: Record<string, unknown>): EmailSendRow {
  return {
    id: String(r.id),
    state: r.state as EmailSendRow['state'],
    attempts: Number(r.attempts),
    dueAt: Number(r.due_at),
    providerId: (r.provider_id as string | null) ?? null,
    error: (r.error as string | null) ?? null,
    createdAt: Number(r.created_at),
    sentAt: numOrNull(r.sent_at),
    delivery: joinedDelivery(r),
  };
}

const SELECT = `select s.id, s.state, s.attempts, s.due_at, s.provider_id, s.error, s.created_at, s.sent_at, ${DELIVERY_PREFIXED} from email_sends s join notification_deliveries d on d.id = s.id`;

/** The email sends of an outbox's email deliveries, once released (`sent`): queued in the same transaction. */
export async function enqueueEmails(run: RunStatement, dialect: SqlDialect, rows: readonly DeliveryRow[], now: number): Promise<void> {
  const emails = rows.filter((row) => row.channel === 'email' && row.status === 'sent');
  if (emails.length === 0) return;
  const tuples = emails.map(() => "(?, 'queued', 0, ?, ?)").join(', ');
  // A row is released once; should it come again, the send it has stays as it is.
  await run(bind(dialect, `insert into email_sends (id, state, attempts, due_at, created_at) values ${tuples} ${dialect.upsert('id', ['id'])}`, emails.flatMap((row) => [row.id, row.sentAt ?? now, now])));
}

/**
 * The sender's operations, as plain SQL every dialect runs, outside the notifications' transaction: a claim takes
 * rows only where no live lease is (each row is one statement, so two processes never both win one).
 */
export function emailSends(run: RunStatement, dialect: SqlDialect): Store['emails'] {
  const exec = (text: string, params: unknown[] = []) => run(bind(dialect, text, params));
  return {
    ...sendQueue<EmailSendRow, EmailOutcome>(exec, 'email_sends', SELECT, rawSend, { provider_id: 'providerId' }),
    async deliveredSince(since) {
      const [row] = await exec("select count(*) as n from email_sends where state = 'delivered' and sent_at > ?", [since]);
      return Number(row?.n ?? 0);
    },
    async oldestDeliveredSince(since) {
      const [row] = await exec("select min(sent_at) as at from email_sends where state = 'delivered' and sent_at > ?", [since]);
      return numOrNull(row?.at);
    },
    async threadOf(notificationId) {
      const rows = await exec(`${SELECT} where d.notification_id = ? and s.state = 'delivered' and d.purpose in ('first', 'repeat', 'flap_start') order by s.sent_at, s.id limit 1`, [notificationId]);
      return rows.map(rawSend)[0];
    },
  };
}
