import { MAX_MUTE_MS, type DeliveryOutcome, type NotificationSeverity, type NotificationSource, type DryRunEvent, type InterruptChannel, type NotificationMute, type NotificationPolicy, type PolicyDecision, type StoredDecision } from '@dash/contracts';
import type { DeliveryRecord, IngestedEvent, DeliveryRow, IngestResult, NotificationRow, Store } from '@dash/db';
import type { RelayEvent } from '@dash/webhooks';
import type { Logger } from '../logger.ts';
import type { DataCache } from '../data/cache.ts';
import { NotificationHub } from './hub.ts';
import { planned, storedOf, type Arriving } from './arriving.ts';
import { dryRun, type Reach } from './dry-run.ts';
import { defaultFlapSettings, deliverableChannels, Planner, type FlapSettings } from './policy/planner.ts';
import { evaluate } from './policy/rules.ts';
import { step } from './policy/planner/trace.ts';
import { PolicySettings, type PolicyParts } from './policy/settings.ts';
import { projectOf, projectRefs, staleRoutes, toIncoming } from './resolve.ts';
import { DEFAULT_BODY_RETENTION_MS, deliveryRows, type LogVia } from '../deliveries/rows.ts';

const DAY = 86_400_000;

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
  async targets(): Promise<Reach> {
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
   * What an event arriving at `arrivesAt` (ms UTC) would do, writing nothing: the policy's decision and each
   * interrupting channel's outcome (see dry-run.ts).
   */
  dryRun(
    input: DryRunEvent,
    arrivesAt: number,
    override: Partial<NotificationPolicy> = {},
  ): Promise<{ decision: PolicyDecision; stored: StoredDecision; delivery: Record<InterruptChannel, DeliveryOutcome> }> {
    return dryRun({ store: this.store, planner: this.planner, policy: this.policy, targets: () => this.targets(), now: this.now }, input, arrivesAt, override);
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
