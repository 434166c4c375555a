import { severityRank } from '@dash/contracts';
import { bind, DELIVERY_PREFIXED, joinedDelivery, numOrNull, outageQueuedFor, sendQueue, type RunStatement } from './sql-rows.ts';
import type { SqlDialect } from './dialects.ts';
import type { ChannelConnectionRow, ChannelSendOutcome, ChannelSendRow, DeliveryRow, Store } from './store.ts';

const COLUMNS = ['id', 'kind', 'name', 'min_severity', 'settings', 'sealed_secret', 'created_at', 'last_success_at', 'last_failure_at', 'last_failure', 'attention_at', 'attention'];

function rawConnection(r: Record<string, unknown>): ChannelConnectionRow {
  return {
    id: String(r.id),
    kind: r.kind as ChannelConnectionRow['kind'],
    name: String(r.name),
    minSeverity: r.min_severity as ChannelConnectionRow['minSeverity'],
    settings: String(r.settings),
    sealedSecret: String(r.sealed_secret),
    createdAt: Number(r.created_at),
    lastSuccessAt: numOrNull(r.last_success_at),
    lastFailureAt: numOrNull(r.last_failure_at),
    lastFailure: (r.last_failure as string | null) ?? null,
    attentionAt: numOrNull(r.attention_at),
    attention: (r.attention as string | null) ?? null,
  };
}

/** A send joined with the outbox row it sends (`d_*` columns are the delivery's). */
function rawSend(r: Record<string, unknown>): ChannelSendRow {
  return {
    id: String(r.id),
    connectionId: String(r.connection_id),
    state: r.state as ChannelSendRow['state'],
    attempts: Number(r.attempts),
    dueAt: Number(r.due_at),
    status: numOrNull(r.status),
    error: (r.error as string | null) ?? null,
    providerId: (r.provider_id as string | null) ?? null,
    createdAt: Number(r.created_at),
    sentAt: numOrNull(r.sent_at),
    delivery: joinedDelivery(r),
  };
}

const SEND = `select s.id, s.connection_id, s.state, s.attempts, s.due_at, s.status, s.error, s.provider_id, s.created_at, s.sent_at, ${DELIVERY_PREFIXED} from channel_sends s join notification_deliveries d on d.id = s.delivery_id`;


/**
 * Whether a released chat delivery goes to a connection: a digest when it has words for the connection's floor (what
 * reaches it: `message.floors`); a recovery and a flap's end to each (each goes only where its outage, or the flap's
 * start, went, as the sender checks); anything else when its severity reaches the connection's floor.
 */
export function reachesConnection(delivery: Pick<DeliveryRow, 'purpose' | 'message'>, minSeverity: ChannelConnectionRow['minSeverity']): boolean {
  if (delivery.purpose === 'digest') return delivery.message.floors === undefined || delivery.message.floors[minSeverity] !== undefined;
  if (delivery.purpose === 'resolve' || delivery.purpose === 'flap_end') return true;
  return severityRank[delivery.message.severity] >= severityRank[minSeverity];
}

/**
 * The chat sends of an outbox's chat deliveries, once released (`sent`): one per connection now (not waiting for a
 * fix) whose floor the delivery reaches, queued in the same transaction.
 */
export async function enqueueChats(run: RunStatement, dialect: SqlDialect, rows: readonly DeliveryRow[], now: number): Promise<void> {
  const chats = rows.filter((row) => row.channel === 'chat' && row.status === 'sent');
  if (chats.length === 0) return;
  const connections = await run(bind(dialect, 'select id, min_severity from channel_connections where attention_at is null order by created_at, id', []));
  const sends = chats.flatMap((row) =>
    connections
      .filter((connection) => reachesConnection(row, connection.min_severity as ChannelConnectionRow['minSeverity']))
      .map((connection) => [`${row.id}:${String(connection.id)}`, row.id, String(connection.id), row.sentAt ?? now, now]),
  );
  // A row is released once; should it come again, the sends it has stay as they are.
  for (let i = 0; i < sends.length; i += 200) {
    const slice = sends.slice(i, i + 200);
    const tuples = slice.map(() => "(?, ?, ?, 'queued', 0, ?, ?)").join(', ');
    await run(bind(dialect, `insert into channel_sends (id, delivery_id, connection_id, state, attempts, due_at, created_at) values ${tuples} ${dialect.upsert('id', ['id'])}`, slice.flat()));
  }
}

/** The chat and webhook connections and their sends, as plain SQL every dialect runs (as the push devices are). */
export function channelConnections(run: RunStatement, dialect: SqlDialect): Store['channels'] {
  const exec = (text: string, params: unknown[] = []) => run(bind(dialect, text, params));
  const select = `select ${COLUMNS.join(', ')} from channel_connections`;
  // What waits unclaimed goes nowhere; what a sender holds now, it settles itself (it reads the connection first).
  const dropQueued = (id: string, state: 'gone' | 'failed') =>
    exec(`update channel_sends set state = ? where connection_id = ? and state = 'queued' and lease_holder is null`, [state, id]);
  return {
    async list() {
      return (await exec(`${select} order by created_at, id`)).map(rawConnection);
    },
    async get(id) {
      const [row] = await exec(`${select} where id = ?`, [id]);
      return row ? rawConnection(row) : undefined;
    },
    async add(row) {
      await exec(`insert into channel_connections (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`, [
        row.id,
        row.kind,
        row.name,
        row.minSeverity,
        row.settings,
        row.sealedSecret,
        row.createdAt,
        row.lastSuccessAt,
        row.lastFailureAt,
        row.lastFailure,
        row.attentionAt,
        row.attention,
      ]);
    },
    async update(row) {
      await exec('update channel_connections set name = ?, min_severity = ?, settings = ?, sealed_secret = ?, attention_at = null, attention = null where id = ?', [
        row.name,
        row.minSeverity,
        row.settings,
        row.sealedSecret,
        row.id,
      ]);
    },
    async remove(id) {
      const existed = (await exec('select id from channel_connections where id = ?', [id])).length > 0;
      if (existed) {
        await exec('delete from channel_connections where id = ?', [id]);
        await dropQueued(id, 'gone');
      }
      return existed;
    },
    async rebind(id, from, to, settings) {
      if (settings === undefined) await exec('update channel_connections set sealed_secret = ? where id = ? and sealed_secret = ?', [to, id, from]);
      else await exec('update channel_connections set sealed_secret = ?, settings = ? where id = ? and sealed_secret = ?', [to, settings, id, from]);
    },
    async succeeded(id, at) {
      await exec('update channel_connections set last_success_at = ?, attention_at = null, attention = null where id = ?', [at, id]);
    },
    async failed(id, at, reason) {
      await exec('update channel_connections set last_failure_at = ?, last_failure = ? where id = ?', [at, reason, id]);
    },
    async attention(id, at, reason) {
      await exec('update channel_connections set attention_at = ?, attention = ?, last_failure_at = ?, last_failure = ? where id = ?', [at, reason, at, reason, id]);
      await dropQueued(id, 'failed');
    },
    sends: {
      ...sendQueue<ChannelSendRow, ChannelSendOutcome>(exec, 'channel_sends', SEND, rawSend, { status: 'status', provider_id: 'providerId' }),
      outageQueued(connectionId, notificationId) {
        return outageQueuedFor(exec, connectionId, notificationId);
      },
      async flapStart(connectionId, subjectKey) {
        const [row] = await exec(
          `${SEND} where s.connection_id = ? and s.state = 'delivered' and d.subject_key = ? and d.purpose = 'flap_start' order by s.sent_at desc, s.id desc limit 1`,
          [connectionId, subjectKey],
        );
        return row ? rawSend(row) : undefined;
      },
      async outage(connectionId, notificationId) {
        const [row] = await exec(
          `${SEND} where s.connection_id = ? and s.state = 'delivered' and d.notification_id = ? and d.purpose in ('first', 'repeat', 'flap_start') order by s.sent_at desc, s.id desc limit 1`,
          [connectionId, notificationId],
        );
        return row ? rawSend(row) : undefined;
      },
    },
  };
}
