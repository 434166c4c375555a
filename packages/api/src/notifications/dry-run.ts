import { foldEvents, reachesConnection, type ChannelConnectionRow, type DeliveryRow, type IncomingEvent, type OutboxOps, type Store } from '@dash/db';
import type { DeliveryOutcome, DryRunEvent, InterruptChannel, NotificationPolicy, PolicyDecision, StoredDecision } from '@dash/contracts';
import { planned, storedOf } from './arriving.ts';
import type { Planner, TickSetting } from './policy/planner.ts';
import { evaluate } from './policy/rules.ts';
import type { PolicySettings } from './policy/settings.ts';
import { previewOps } from './preview-ops.ts';

/**
 * The notification policy's dry run ("what would this event do?"): the policy's decision and each interrupting
 * channel's outcome for an event arriving at a given time, by the code a real ingest runs on the store as it is,
 * writing nothing (the outbox as a preview sees it is preview-ops.ts).
 */

/** The most scheduler ticks a dry run walks through on its way to a later time (see `ticksUntil`). */
const MAX_PREVIEW_TICKS = 200;

/** A connection the chat channel can send to now (not waiting for a fix), with its floor. */
export type ChatTarget = Pick<ChannelConnectionRow, 'id' | 'name' | 'minSeverity'>;

/** Who an interruption can reach now: the channels that can deliver, the push devices and the chat connections. */
export interface Reach {
  available: readonly InterruptChannel[];
  devices: { id: string; name: string }[];
  connections: ChatTarget[];
}

/** What a dry run reads: the store, the planner, the saved policy, who can be reached now, and the clock. */
export interface DryRunSources {
  store: Pick<Store, 'notifications' | 'push' | 'channels'>;
  planner: Planner;
  policy: Pick<PolicySettings, 'state'>;
  targets: () => Promise<Reach>;
  now: () => number;
}

/** What a delivery row's status says about its channel, in the dry run's words. */
const outcomeStatus: Record<DeliveryRow['status'], DeliveryOutcome['status']> = {
  sent: 'now',
  held: 'held',
  deferred: 'deferred',
  suppressed: 'suppressed',
  cancelled: 'suppressed',
  digested: 'none',
  empty: 'none',
};

const channelNames: Record<InterruptChannel, string> = { browser: 'browser notification', email: 'email', push: 'push', chat: 'chat message' };
const notSetUp: Record<InterruptChannel, string> = {
  browser: '',
  email: 'it is not set up (SendGrid, under Alerts)',
  push: 'no device is subscribed (Settings → Notifications → Devices)',
  chat: 'no chat or webhook connection is ready (Settings → Notifications → Chat and webhooks)',
};

/**
 * Each interrupting channel's outcome, from the delivery rows the planner wrote for the event (the last one of a
 * channel: a recovery cancels the held outage, or adds its own): its status, when it is due, and the row's reason.
 * A channel with no row says why it has none. The planner's trace is the event's, not a channel's: it is read only
 * when no channel interrupts.
 */
function channelOutcomes(
  written: readonly DeliveryRow[],
  decision: StoredDecision,
  available: readonly InterruptChannel[],
  devices: readonly { id: string; name: string }[],
  connections: readonly ChatTarget[],
): Record<InterruptChannel, DeliveryOutcome> {
  const outcome = (channel: InterruptChannel): DeliveryOutcome => {
    const row = written.findLast((delivery) => delivery.channel === channel);
    if (row) {
      const until = row.dueAt === null ? null : new Date(row.dueAt).toISOString();
      // A push goes to each device subscribed when it is released: the dry run names them.
      const reached = channel === 'chat' ? connections.filter((connection) => reachesConnection(row, connection.minSeverity)) : [];
      return {
        status: outcomeStatus[row.status],
        until,
        why: row.reason,
        ...(channel === 'push' ? { devices: [...devices] } : {}),
        ...(channel === 'chat' ? { connections: reached.map(({ id, name }) => ({ id, name })) } : {}),
      };
    }
    if (!available.includes(channel)) return { status: 'none', until: null, why: `no ${channelNames[channel]}: ${notSetUp[channel]}` };
    // Nothing interrupts at all: the trace's last step says why (in the inbox only, joined its thread, …).
    if (written.length === 0) return { status: 'none', until: null, why: decision.trace.at(-1)?.why ?? 'no interruption' };
    return { status: 'none', until: null, why: `no ${channelNames[channel]}: its decision does not open that channel` };
  };
  return { browser: outcome('browser'), email: outcome('email'), push: outcome('push'), chat: outcome('chat') };
}

/**
 * The devices and connections a previewed interruption would reach: all of them, but a recovery only those told of
 * its outage (as the push queue and the chat sender decide), and a flap's end on chat only where its "flapping" went.
 */
async function toldOf(
  store: DryRunSources['store'],
  written: readonly DeliveryRow[],
  devices: { id: string; name: string }[],
  connections: ChatTarget[],
): Promise<{ devices: { id: string; name: string }[]; connections: ChatTarget[] }> {
  const push = written.findLast((delivery) => delivery.channel === 'push');
  const chat = written.findLast((delivery) => delivery.channel === 'chat');
  const { sends } = store.channels;
  const toldDevices = push?.purpose === 'resolve' && push.notificationId !== null ? new Set(await store.push.sends.toldOf(push.notificationId)) : undefined;
  const answers = async (connection: ChatTarget): Promise<boolean> => {
    if (chat?.purpose === 'flap_end') return chat.subjectKey !== null && (await sends.flapStart(connection.id, chat.subjectKey)) !== undefined;
    if (chat?.purpose !== 'resolve') return true;
    return chat.notificationId !== null && ((await sends.outage(connection.id, chat.notificationId)) !== undefined || (await sends.outageQueued(connection.id, chat.notificationId)));
  };
  const toldConnections = await Promise.all(connections.map(answers));
  return {
    devices: toldDevices ? devices.filter((device) => toldDevices.has(device.id)) : devices,
    connections: connections.filter((_, i) => toldConnections[i]),
  };
}

/**
 * What an event arriving at `arrivesAt` (ms UTC: its occurrence and receipt, and the planner's now, as in an ingest
 * of it then) would do: the policy's decision and each interrupting channel's outcome, by the code a real ingest
 * runs (the store's thread grouping, the planner on the outbox's reads), on the store as it is, writing nothing. A
 * later `arrivesAt` sees the store as the scheduler's tick would leave it then (a hold ended, a digest sent).
 */
export async function dryRun(
  sources: DryRunSources,
  input: DryRunEvent,
  arrivesAt: number,
  override: Partial<NotificationPolicy> = {},
): Promise<{ decision: PolicyDecision; stored: StoredDecision; delivery: Record<InterruptChannel, DeliveryOutcome> }> {
  const [{ policy: saved, pausedSince }, { available, devices, connections }] = await Promise.all([sources.policy.state(), sources.targets()]);
  const policy = { ...saved, ...override };
  const subjectKey = input.transition === null ? null : input.subjectKey;
  const decision = evaluate(
    { ...input, transition: subjectKey === null ? null : input.transition },
    { projectSlug: input.project, payload: input.payload },
    { ...policy, available },
  );
  const iso = new Date(arrivesAt).toISOString();
  const event: IncomingEvent = {
    sourceEventId: 'dry-run',
    integration: input.integration,
    type: input.type,
    subjectKey,
    transition: subjectKey === null ? null : input.transition,
    severity: decision.severity,
    title: input.title,
    url: null,
    projectSlug: input.project,
    occurredAt: iso,
    receivedAt: iso,
    relayEventId: null,
    decision: storedOf(decision),
  };
  // Reads only, outside any transaction: a preview never waits for (or holds up) an ingest.
  const { stored, written } = await sources.store.notifications.read(async (ops) => {
    const open = new Map((subjectKey === null ? [] : await ops.openRows([subjectKey])).map((row) => [subjectKey as string, row]));
    const [folded] = foldEvents([event], open);
    const preview = previewOps(ops);
    // Later than now: what the scheduler does until then first (a hold that ends, a flap that calms down, a digest),
    // at each moment it would (a digest sent when a pause ends at 21:00 is not held back by quiet hours from 22:00).
    const recipients = { devices: devices.map((device) => device.name), connections };
    if (arrivesAt > sources.now()) {
      await ticksUntil(sources, preview.ops, arrivesAt, { policy, available, recipients, pausedSince });
      preview.written.length = 0;
    }
    const outcome = await sources.planner.plan(folded ? [planned(folded, { decision, item: { incoming: event } })] : [], preview.ops, arrivesAt, policy, recipients);
    return { stored: outcome.decisions[0] ?? storedOf(decision), written: preview.written };
  });
  const told = await toldOf(sources.store, written, devices, connections);
  return { decision, stored, delivery: channelOutcomes(written, stored, available, told.devices, told.connections) };
}

/**
 * The scheduler's ticks from now until `until` on `ops` (a preview's), as they would come: now, then at each moment
 * the last one said it has something to do, then at `until`. (At most MAX_PREVIEW_TICKS: each moment is later than
 * the one before, so the walk ends; the cap only keeps a preview bounded.)
 */
async function ticksUntil({ planner, now }: Pick<DryRunSources, 'planner' | 'now'>, ops: OutboxOps, until: number, setting: TickSetting): Promise<void> {
  let at = now();
  for (let step = 0; step < MAX_PREVIEW_TICKS && at < until; step++) {
    const { next } = await planner.tick(ops, at, setting);
    at = next === null || next <= at ? until : Math.min(next, until);
  }
  await planner.tick(ops, until, setting);
}
