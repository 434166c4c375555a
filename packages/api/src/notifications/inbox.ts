import { MAX_MUTE_MS, type DeliveryOutcome, type NotificationSeverity, type NotificationSource, type DryRunEvent, type InterruptChannel, type NotificationMute, type NotificationPolicy, type PolicyDecision, type StoredDecision } from '@dash/contracts';
import { foldEvents, reachesConnection, type ChannelConnectionRow, type DeliveryRecord, type IngestedEvent, type DeliveryRow, type FoldedEvent, type IncomingEvent, type IngestResult, type NotificationRow, type OutboxOps, type Store, type SubjectState } from '@dash/db';
import type { RelayEvent } from '@dash/webhooks';
import type { Logger } from '../logger.ts';
import type { DataCache } from '../data/cache.ts';
import { NotificationHub } from './hub.ts';
import { defaultFlapSettings, deliverableChannels, Planner, type FlapSettings, type PlannedEvent, type TickSetting } from './policy/planner.ts';
import { evaluate } from './policy/rules.ts';
import { step } from './policy/planner/trace.ts';
import { PolicySettings, type PolicyParts } from './policy/settings.ts';
import { projectOf, projectRefs, staleRoutes, toIncoming } from './resolve.ts';
import { DEFAULT_BODY_RETENTION_MS, deliveryRows, type LogVia } from '../deliveries/rows.ts';

const DAY = 86_400_000;
/** The most scheduler ticks a dry run walks through on its way to a later time (see `ticksUntil`). */
const MAX_PREVIEW_TICKS = 200;

/** A connection the chat channel can send to now (not waiting for a fix), with its floor. */
type ChatTarget = Pick<ChannelConnectionRow, 'id' | 'name' | 'minSeverity'>;

export interface InboxOptions {
  /** The same sourceEventId within this window is one notification (7 days: GitHub redelivers for 3). */
  dedupWindowMs?: number;
  /** Retention: read rows go after this long, unread ones after `unreadRetentionMs`. */
  readRetentionMs?: number;
  unreadRetentionMs?: number;
  /** The flap hold and flap detection (120 s hold; 3 outages in 30 min; stable after 15 min). */
  flap?: Partial<FlapSettings>;
  /** The scheduler looks at least this often (30 s), besides waking when something is due. */
  tickMs?: number;
  now?: () => number;
  /** Whether email can be sent now (SendGrid set up): only then do preferences and rules open the email channel. */
  emailReady?: () => Promise<boolean>;
  /** Told when email interruptions were released (queued for SendGrid): the sender drains them. */
  onEmail?: () => void;
  /** Told when push interruptions were released (queued per device): the push sender drains them. */
  onPush?: () => void;
  /** Told when chat interruptions were released (queued per connection): the chat sender drains them. */
  onChat?: () => void;
  /** How long the deliveries log keeps a webhook's body (24 hours). */
  bodyRetentionMs?: number;
}

/** A policy error: the caller's input, answered as a 400. */
export class PolicyInputError extends Error {}

/** The cached data (route, project) these rows' events made stale, each once. */
function staleData(rows: readonly NotificationRow[]): { route: string; slug: string }[] {
  const targets = new Map<string, { route: string; slug: string }>();
  for (const { projectSlug: slug, integration, type } of rows) {
    if (slug) for (const route of staleRoutes({ integration, type })) targets.set(`${route}\n${slug}`, { route, slug });
  }
  return [...targets.values()];
}

/** The part of a decision stored with the event (the pipeline appends its own steps to the trace). */
const storedOf = (decision: PolicyDecision): StoredDecision => ({
  severity: decision.severity,
  channels: decision.channels,
  bypassQuietHours: decision.bypassQuietHours,
  trace: decision.trace,
});

/** An event on its way into the store: as stored, with what the policy's rules read and the pipeline's extras. */
interface Arriving {
  incoming: IncomingEvent;
  payload?: Record<string, unknown> | undefined;
  context?: readonly string[] | undefined;
  reminder?: boolean | undefined;
  lasted?: string | undefined;
  /** A replay of a webhook taken in earlier: the line that says so in its "Why?". */
  replayed?: string | undefined;
}

/** One of the dashboard's own events: a metric alert's trigger, reminder or resolve (see `Inbox.ingestOwn`). */
export interface OwnEvent {
  sourceEventId: string;
  integration: NotificationSource;
  type: string;
  subject: string;
  transition: 'trigger' | 'resolve';
  severity: NotificationSeverity;
  title: string;
  url: string | null;
  projectSlug: string;
  occurredAt: string;
  /** What else happened to the project in the window, one plain-text line each. */
  context?: readonly string[] | undefined;
  /** Still out of range a week on: it interrupts again although its thread is open. */
  reminder?: boolean | undefined;
  /** A resolve's words for the time out of range, before the duration ("Out of range for"). */
  lasted?: string | undefined;
  payload?: Record<string, unknown> | undefined;
}

const planned = ({ eventId, event, effect, row }: FoldedEvent, { decision, item }: { decision: PolicyDecision; item: Arriving }): PlannedEvent => ({
  eventId,
  effect,
  decision,
  context: item.context,
  reminder: item.reminder,
  lasted: item.lasted,
  notificationId: row.id,
  row,
  subjectKey: event.transition === null ? null : event.subjectKey,
  integration: event.integration,
  type: event.type,
  title: event.title,
  occurredAt: event.occurredAt,
});

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
 * The outbox as a preview sees it: its reads, with writes kept instead of made (in `written`) and seen by the reads
 * that follow. The planner runs on these exactly as in an ingest (same reads, same decisions), and the scheduler's
 * tick too, so a preview of a later instant first does what the scheduler would do until then; the dry run reads back
 * what the event's plan would have written.
 */
function previewOps(ops: OutboxOps): { ops: OutboxOps; written: DeliveryRow[] } {
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

/**
 * Where every event from the relay and from the local webhook route goes: matched to its project,
 * stored once (deduplicated, folded into its row, with the relay cursor in the same transaction), the
 * cached data it makes stale expired, and the changed rows told to live streams. The policy layer
 * (preferences and rules, then the planner: threads, mutes, the flap hold, quiet hours) decides in the
 * same transaction what interrupts, and the scheduler (`start`, `tick`) sends what was held when its time comes.
 */
export class Inbox {
  readonly hub: NotificationHub;
  readonly policy: PolicySettings;
  readonly planner: Planner;
  private readonly now: () => number;
  private readonly dedupWindowMs: number;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private running = false;

  constructor(
    private readonly store: Store,
    private readonly cache: DataCache,
    private readonly log: Logger,
    private readonly options: InboxOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.dedupWindowMs = options.dedupWindowMs ?? 7 * DAY;
    this.hub = new NotificationHub(store.notifications, 1_000, (rows) => {
      for (const { route, slug } of staleData(rows)) cache.forget(route, slug);
    });
    this.policy = new PolicySettings(store, this.now, log);
    this.planner = new Planner({ ...defaultFlapSettings, ...options.flap });
  }

  /**
   * The channels that can deliver now, the devices a push released now goes to (subscribed, not removed by their
   * push service) and the connections a chat message may go to (not waiting for a fix), in one read of each.
   */
  async targets(): Promise<{ available: readonly InterruptChannel[]; devices: { id: string; name: string }[]; connections: ChatTarget[] }> {
    const [email, rows, chats] = await Promise.all([this.options.emailReady?.().catch(() => false) ?? false, this.store.push.list(), this.store.channels.list()]);
    const devices = rows.filter((row) => row.removedAt === null).map(({ id, name }) => ({ id, name }));
    const connections = chats.filter((row) => row.attentionAt === null).map(({ id, name, minSeverity }) => ({ id, name, minSeverity }));
    return { available: deliverableChannels(email, devices.length > 0, connections.length > 0), devices, connections };
  }

  /** Rows and browser interruptions to the live streams; released emails, pushes and chat messages to their senders. */
  private publish(rows: NotificationRow[], sent: DeliveryRow[] = []) {
    this.hub.publish(rows, sent.filter((delivery) => delivery.channel === 'browser'));
    if (sent.some((delivery) => delivery.channel === 'email')) this.options.onEmail?.();
    if (sent.some((delivery) => delivery.channel === 'push')) this.options.onPush?.();
    if (sent.some((delivery) => delivery.channel === 'chat')) this.options.onChat?.();
  }

  /** Live streams from the store's change feed, and the scheduler (held interruptions, digests, snoozes, mutes). */
  async start(): Promise<void> {
    await this.hub.start();
    this.running = true;
    this.wakeBy(this.now());
  }

  /** Ends live streams and the scheduler (the process is stopping). */
  close(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.hub.close();
  }

  /** Settles once the work queued so far (ingests, ticks) has. */
  async idle(): Promise<void> {
    await this.queue;
  }

  /** Makes the scheduler tick by `deadline` (ms UTC) at the latest, when it runs. */
  wakeBy(deadline: number): void {
    if (!this.running) return;
    const when = Math.min(deadline, this.now() + (this.options.tickMs ?? 30_000));
    if (this.timer && when >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = when;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        void this.tick().catch((error: unknown) => this.log.warn(`notifications: the scheduler's tick failed: ${(error as Error).message}`));
      },
      Math.max(0, when - this.now()),
    );
    this.timer.unref();
  }

  /**
   * One tick of the scheduler: releases held interruptions, ends calm flaps and mutes, wakes snoozed rows, sends the
   * digest once quiet hours end; in one transaction, so that several processes (or a restart) never send one twice.
   */
  tick(): Promise<{ sent: DeliveryRow[]; rows: NotificationRow[] }> {
    const run = this.queue.then(async () => {
      const now = this.now();
      const [{ policy, pausedSince }, { available, devices, connections }] = await Promise.all([this.policy.state(), this.targets()]);
      const recipients = { devices: devices.map((device) => device.name), connections };
      const result = await this.store.notifications.outbox((ops) => this.planner.tick(ops, now, { policy, available, recipients, pausedSince }));
      this.publish(result.rows, result.sent);
      this.wakeBy(result.next ?? Infinity);
      return { sent: result.sent, rows: result.rows };
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Stores a batch (one transaction, with `cursor` when it came from a relay poll). Batches of this
   * process run one after another, so the relay poller and the local route never race each other here.
   */
  ingest(events: readonly RelayEvent[], cursor?: { relayUrl: string; since: number }, via: LogVia = { source: cursor ? 'relay' : 'local' }): Promise<IngestResult> {
    return this.enqueue(async () => {
      const refs = projectRefs(await this.store.projects.list());
      const items = events.map((event) => ({ incoming: toIncoming(event, refs), payload: event.payload, replayed: via.replay?.notes.get(event.sourceEventId) }));
      const incoming = items.map((item) => item.incoming);
      // Every event that came in is in the deliveries log, written with what became of it in the ingest's transaction.
      const bodyRetentionMs = this.options.bodyRetentionMs ?? DEFAULT_BODY_RETENTION_MS;
      const log = (ingested: IngestedEvent[]) => deliveryRows(events, incoming, ingested, via, { now: this.now(), bodyRetentionMs });
      return this.ingestNow(items, cursor, log);
    });
  }

  /**
   * Stores the dashboard's own events (metric alerts): their project is known, and their lines of what else happened
   * go into the "Why?" trace and under the message on every channel. One transaction, in this process's ingest order.
   */
  ingestOwn(events: readonly OwnEvent[]): Promise<IngestResult> {
    const receivedAt = new Date(this.now()).toISOString();
    return this.enqueue(() =>
      this.ingestNow(
        events.map((event) => ({
          incoming: {
            sourceEventId: event.sourceEventId,
            integration: event.integration,
            type: event.type,
            subjectKey: event.subject,
            transition: event.transition,
            severity: event.severity,
            title: event.title,
            url: event.url,
            projectSlug: event.projectSlug,
            occurredAt: event.occurredAt,
            receivedAt,
            relayEventId: null,
            refs: [],
          },
          payload: event.payload,
          context: event.context,
          reminder: event.reminder,
          lasted: event.lasted,
        })),
      ),
    );
  }

  private enqueue(work: () => Promise<IngestResult>): Promise<IngestResult> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async ingestNow(
    items: readonly Arriving[],
    cursor?: { relayUrl: string; since: number },
    log?: (ingested: IngestedEvent[]) => DeliveryRecord[],
  ): Promise<IngestResult> {
    const [policy, { available, devices, connections }] = await Promise.all([this.policy.get(), this.targets()]);
    const now = this.now();
    // The pure policy first (preferences, rules): it may raise the severity the row is stored with.
    const decided = new Map<string, { decision: PolicyDecision; item: Arriving }>();
    const incoming = items.map((item) => {
      const base = item.incoming;
      const policed = evaluate(base, { projectSlug: base.projectSlug, payload: item.payload }, { ...policy, available });
      // A replay says so first in its "Why?", then what else happened, before the policy's steps and the pipeline's.
      const marks = [...(item.replayed === undefined ? [] : [step('replay', 'noted', item.replayed)]), ...(item.context ?? []).map((line) => step('context', 'noted', line))];
      const decision = { ...policed, trace: [...marks, ...policed.trace] };
      decided.set(base.sourceEventId, { decision, item });
      return { ...base, severity: decision.severity, decision: storedOf(decision) };
    });
    const result = await this.store.notifications.ingest(incoming, {
      now: new Date(now).toISOString(),
      dedupWindowMs: this.dedupWindowMs,
      cursor,
      log,
      plan: (folded, ops) =>
        this.planner.plan(
          folded.map((item) => planned(item, decided.get(item.event.sourceEventId) as { decision: PolicyDecision; item: Arriving })),
          ops,
          now,
          policy,
          { devices: devices.map((device) => device.name), connections },
        ),
    });
    if (result.changed.length > 0) await this.expireStaleData(result.changed);
    this.publish(result.changed, result.sent);
    if (result.stored > 0) this.wakeBy(this.planner.nextLookAfterIngest(now, policy));
    return result;
  }

  /**
   * The devices and connections a previewed interruption would reach: all of them, but a recovery only those told of
   * its outage (as the push queue and the chat sender decide), and a flap's end on chat only where its "flapping" went.
   */
  private async toldOf(
    written: readonly DeliveryRow[],
    devices: { id: string; name: string }[],
    connections: ChatTarget[],
  ): Promise<{ devices: { id: string; name: string }[]; connections: ChatTarget[] }> {
    const push = written.findLast((delivery) => delivery.channel === 'push');
    const chat = written.findLast((delivery) => delivery.channel === 'chat');
    const { sends } = this.store.channels;
    const toldDevices = push?.purpose === 'resolve' && push.notificationId !== null ? new Set(await this.store.push.sends.toldOf(push.notificationId)) : undefined;
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
  async dryRun(
    input: DryRunEvent,
    arrivesAt: number,
    override: Partial<NotificationPolicy> = {},
  ): Promise<{ decision: PolicyDecision; stored: StoredDecision; delivery: Record<InterruptChannel, DeliveryOutcome> }> {
    const [{ policy: saved, pausedSince }, { available, devices, connections }] = await Promise.all([this.policy.state(), this.targets()]);
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
    const { stored, written } = await this.store.notifications.read(async (ops) => {
      const open = new Map((subjectKey === null ? [] : await ops.openRows([subjectKey])).map((row) => [subjectKey as string, row]));
      const [folded] = foldEvents([event], open);
      const preview = previewOps(ops);
      // Later than now: what the scheduler does until then first (a hold that ends, a flap that calms down, a digest),
      // at each moment it would (a digest sent when a pause ends at 21:00 is not held back by quiet hours from 22:00).
      const recipients = { devices: devices.map((device) => device.name), connections };
      if (arrivesAt > this.now()) {
        await this.ticksUntil(preview.ops, arrivesAt, { policy, available, recipients, pausedSince });
        preview.written.length = 0;
      }
      const outcome = await this.planner.plan(folded ? [planned(folded, { decision, item: { incoming: event } })] : [], preview.ops, arrivesAt, policy, recipients);
      return { stored: outcome.decisions[0] ?? storedOf(decision), written: preview.written };
    });
    const told = await this.toldOf(written, devices, connections);
    return { decision, stored, delivery: channelOutcomes(written, stored, available, told.devices, told.connections) };
  }

  /**
   * The scheduler's ticks from now until `until` on `ops` (a preview's), as they would come: now, then at each moment
   * the last one said it has something to do, then at `until`. (At most MAX_PREVIEW_TICKS: each moment is later than
   * the one before, so the walk ends; the cap only keeps a preview bounded.)
   */
  private async ticksUntil(ops: OutboxOps, until: number, setting: TickSetting): Promise<void> {
    let at = this.now();
    for (let step = 0; step < MAX_PREVIEW_TICKS && at < until; step++) {
      const { next } = await this.planner.tick(ops, at, setting);
      at = next === null || next <= at ? until : Math.min(next, until);
    }
    await this.planner.tick(ops, until, setting);
  }

  /** Snoozes rows until `until` (ms UTC), or wakes them now (null); live streams hear of it. */
  async snooze(ids: string[], until: number | null): Promise<number> {
    if (until !== null && until <= this.now()) throw new PolicyInputError('until is in the past: pick a later time');
    const rows = await this.serially(() => this.store.notifications.outbox((ops) => ops.snooze(ids, until)));
    this.hub.publish(rows);
    if (until !== null) this.wakeBy(until);
    return rows.length;
  }

  /**
   * Late assignment, after a project was created or changed: each row without a project whose refs a project now claims
   * (as `projectRefs` gives them: the first project keeps a ref) goes to it, with a new seq, and live streams hear of
   * it. In the ingests' queue, so a batch that read the projects before the change is stored before the rows are looked
   * at. Every unassigned row is looked at each time, so rows a failed run left are assigned by the next. No cached data
   * is expired: a project's data is cached under its settings, so a project that claims a new ref reads afresh anyway.
   */
  async assign(): Promise<NotificationRow[]> {
    const rows = await this.serially(async () => {
      const refs = projectRefs(await this.store.projects.list());
      return this.store.notifications.outbox((ops) => ops.assign((rowRefs) => projectOf(rowRefs, refs)));
    });
    this.hub.publish(rows);
    return rows;
  }

  /** Mutes a subject until `until` (ms UTC, at most 30 days ahead), or ends its mute (null). */
  async mute(subjectKey: string, until: number | null): Promise<NotificationMute[]> {
    const now = this.now();
    if (until !== null && until <= now) throw new PolicyInputError('until is in the past: pick a later time');
    if (until !== null && until - now > MAX_MUTE_MS) throw new PolicyInputError('A mute lasts at most 30 days');
    await this.serially(() =>
      this.store.notifications.outbox((ops) => (until === null ? ops.removeMutes([subjectKey]) : ops.putMute({ subjectKey, until, createdAt: now }))),
    );
    if (until !== null) this.wakeBy(until);
    return this.mutes();
  }

  /** The mutes that are on, soonest end first, each named by its subject's latest row. */
  async mutes(): Promise<NotificationMute[]> {
    const now = this.now();
    return this.store.notifications.read(async (ops) => {
      const mutes = (await ops.mutes()).filter((mute) => mute.until > now);
      const latest = new Map((await ops.latestRows(mutes.map((mute) => mute.subjectKey))).map((row) => [row.subjectKey, row]));
      return mutes.map((mute) => ({ subjectKey: mute.subjectKey, until: new Date(mute.until).toISOString(), title: latest.get(mute.subjectKey)?.title ?? null }));
    });
  }

  /** Saves parts of the policy; the scheduler looks again at once (quiet hours switched off flush the digest). */
  async savePolicy(parts: PolicyParts): Promise<NotificationPolicy> {
    const policy = await this.policy.save(parts);
    this.wakeBy(this.now());
    return policy;
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The next read of what these rows' events changed asks the upstream; the cached value stays as a fallback. */
  private async expireStaleData(rows: readonly NotificationRow[]) {
    for (const { route, slug } of staleData(rows)) {
      try {
        await this.cache.expire(route, slug);
      } catch (error) {
        // The notification is stored; a cache that stays fresh a little longer is no reason to fail.
        this.log.warn(`could not expire ${route} for ${slug}: ${(error as Error).message}`);
      }
    }
  }

  /** The daily retention job: read rows after 90 days, unread after 180, with their events. */
  async prune(): Promise<number> {
    const now = this.now();
    const removed = await this.store.notifications.prune(
      new Date(now - (this.options.readRetentionMs ?? 90 * DAY)).toISOString(),
      new Date(now - (this.options.unreadRetentionMs ?? 180 * DAY)).toISOString(),
    );
    if (removed > 0) this.log.info(`notifications: ${removed} old row(s) removed`);
    return removed;
  }
}
