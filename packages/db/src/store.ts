import type { DumpTableName, DumpTables, Project, ProjectCreate, ProjectPatch, Settings, SettingsUpdate } from '@dash/contracts';

/** A project slug that is already taken. */
export class ProjectExistsError extends Error {
  constructor(readonly slug: string) {
    super(`A project with the slug "${slug}" already exists`);
    this.name = 'ProjectExistsError';
  }
}

/** `projectOrder` named slugs that are not projects. */
export class UnknownProjectsError extends Error {
  constructor(readonly slugs: string[]) {
    super(`projectOrder names unknown projects: ${slugs.join(', ')}`);
    this.name = 'UnknownProjectsError';
  }
}

export interface CacheEntry {
  key: string;
  route: string;
  value: unknown;
  /** ISO 8601. */
  fetchedAt: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** The dashboard's one owner: the password hash (an argon2id PHC string). There is at most one row. */
export interface OwnerRow {
  passwordHash: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
}

/** A signed-in browser. The cookie holds `<id>.<secret>`; only SHA-256(secret) is stored. */
export interface SessionRow {
  id: string;
  /** Hex SHA-256 of the session's secret. */
  secretHash: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601; bumped at most hourly while the session is used. */
  lastSeenAt: string;
  userAgent: string | null;
  ip: string | null;
}

/** An API token for scripts and the typed client; only SHA-256 of its secret is stored. */
export interface ApiTokenRow {
  id: string;
  name: string;
  /** Hex SHA-256 of the token's secret. */
  secretHash: string;
  scope: 'read' | 'write';
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601, or null when never used. */
  lastUsedAt: string | null;
  /** ISO 8601, or null for a token that does not expire. */
  expiresAt: string | null;
}

/** Severity of a notification, as the webhook parsers give it. */
import type { ChannelFloor, DecisionTraceEntry, MetricAlertParams, MetricAlertSeverity, MetricKey, NotificationSeverity, StoredDecision } from '@dash/contracts';
export type { NotificationSeverity, StoredDecision };

/** One event to store in the inbox: a relay event (or one from the local webhook route) plus its project. */
export interface IncomingEvent {
  /** Unique per real-world event; the dedup key (it already names its source: `github:…`, `vercel:…`). */
  sourceEventId: string;
  integration: string;
  /** `pr.merged`, `deploy.error`, `monitor.down`, … */
  type: string;
  /** Same thing changing state (a monitor, a deploy target, a Sentry issue); absent for stateless events. */
  subjectKey: string | null;
  /** `trigger` opens the subject's thread (or joins the open one), `resolve` closes it; null: a thread of its own. */
  transition: 'trigger' | 'resolve' | null;
  severity: NotificationSeverity;
  title: string;
  url: string | null;
  /** The dashboard project it belongs to, or null when none matched. */
  projectSlug: string | null;
  /** ISO 8601, upstream. */
  occurredAt: string;
  /** ISO 8601, when the relay (or the local route) received it. */
  receivedAt: string;
  /** The relay's id for it, when it came through the relay. */
  relayEventId: string | null;
  /**
   * What it is about, as the relay event names it (`code_host:owner/repo`, `uptime_monitor:<id>`, …): kept on the row it
   * opens, so a project created (or given that repository, monitor, …) later can claim the row while it has none.
   */
  refs?: readonly string[] | undefined;
  /** What the notification policy decided (severity already applied above); the ingest's `plan` completes it. */
  decision?: StoredDecision | null;
}

/** An inbox row: one event, or one subject's occurrence from trigger to resolve (an outage and its recovery). */
export interface NotificationRow {
  id: string;
  /**
   * Global and increasing, bumped on every change of the row: the live stream's event id. Seqs become visible in
   * increasing order on both dialects (writers that assign them are serialised until they commit), and a seq is
   * never handed out twice, even after its row was pruned: once a reader has seen seq N, every later change has a
   * bigger one, so `changedSince(N)` needs no overlap. There may be gaps.
   */
  seq: number;
  /** The seq the row was created with: its place in the list (newest first), which reading or folding never moves. */
  createdSeq: number;
  integration: string;
  /** The type of the event that opened it. */
  type: string;
  subjectKey: string | null;
  /** `open` until its resolve arrives; `resolved` after; `info` for stateless events. */
  status: 'open' | 'resolved' | 'info';
  /** The highest severity of its events. */
  severity: NotificationSeverity;
  /** The opening event's title. */
  title: string;
  url: string | null;
  projectSlug: string | null;
  eventCount: number;
  /** ISO 8601: the first and the latest event's `occurredAt`, when it resolved, when it was received, when read. */
  firstAt: string;
  lastAt: string;
  resolvedAt: string | null;
  receivedAt: string;
  readAt: string | null;
  /** ISO 8601: hidden from the list and the unread count until then; null when not snoozed. */
  snoozedUntil: string | null;
  /** Its latest event's decision (the policy's, and what became of the interruption). */
  decision: StoredDecision | null;
  /** The refs of the event that opened it (see `IncomingEvent.refs`); null in rows stored before they were kept. */
  refs: string[] | null;
}

export interface NotificationQuery {
  /** Newest first (by createdSeq); at most this many. */
  limit: number;
  /** Only rows with a smaller createdSeq (the next page). */
  beforeSeq?: number | undefined;
  unread?: boolean | undefined;
  projectSlug?: string | undefined;
  integration?: string | undefined;
}

export interface IngestResult {
  /** Events stored; the rest were duplicates within the dedup window. */
  stored: number;
  duplicates: number;
  /** Every row the batch created or changed, as it now is (for the live stream), in seq order. */
  changed: NotificationRow[];
  /** Interruptions the batch's `plan` sent (for the live stream), in seq order. */
  sent: DeliveryRow[];
  /** What became of each event given, in the order given (the deliveries log's outcome). */
  events: IngestedEvent[];
}

/** What became of one event of an ingest. */
export interface IngestedEvent {
  sourceEventId: string;
  /** `duplicate`: a copy of an event earlier in the batch or within the dedup window; otherwise how it folded. */
  effect: FoldEffect | 'duplicate';
  /** The row it made or joined; for a duplicate, its first copy's row when that was in the batch, else null. */
  notificationId: string | null;
  /** Its `notification_events.id`; null for a duplicate. */
  eventId: string | null;
}

/**
 * A row of the webhook deliveries log (`webhook_deliveries`): one per event a webhook carried (or one for a delivery
 * that carried none: ignored, invalid), with what it became. Times are ms UTC.
 */
export interface DeliveryRecord {
  id: string;
  receivedAt: number;
  source: 'relay' | 'local' | 'replay';
  /** The neutral name (`code_host`). */
  integration: string;
  eventType: string | null;
  deliveryId: string | null;
  sourceEventId: string | null;
  outcome: 'notified' | 'threaded' | 'duplicate' | 'ignored' | 'invalid';
  detail: string | null;
  title: string | null;
  projectSlug: string | null;
  notificationId: string | null;
  /** Its `notification_events.id`, whose decision the detail shows. */
  eventId: string | null;
  duplicateOf: string | null;
  replayOf: string | null;
  /** The replay request that made it (unique with `replayOf`: a request replays a row once). */
  replayRequest: string | null;
  /** The parsed event as JSON (a RelayEvent without its body), what a replay ingests again; null when none came of it. */
  event: string | null;
  /** The body as received (text), until `bodyUntil`; then null (the prune clears it). */
  body: string | null;
  bodyUntil: number | null;
}

/** A log row as listed: without its body and event, with whether the body is still there. */
export type DeliveryListRow = Omit<DeliveryRecord, 'body' | 'event'> & { hasBody: boolean };

export interface DeliveryFilter {
  integration?: string | undefined;
  outcome?: DeliveryRecord['outcome'] | undefined;
  /** Received at or after (ms). */
  since?: number | undefined;
  /** Received before (ms). */
  until?: number | undefined;
  /** Case-insensitive text in title, event type, delivery id or source event id. */
  text?: string | undefined;
  notificationId?: string | undefined;
}

/** An hour's count of one refusal reason for one integration at the relay or the local route. */
export interface RefusalRow {
  /** The hour's start, ms UTC. */
  hour: number;
  source: 'relay' | 'local';
  integration: string;
  reason: string;
  count: number;
}

/** What an interruption says: a browser notification (or a toast), later an email. */
export interface InterruptMessage {
  title: string;
  body: string;
  severity: NotificationSeverity;
  /** One per thread: a recovery replaces the outage's notification. */
  tag: string;
  url: string | null;
  renotify: boolean;
  requireInteraction: boolean;
  /**
   * A chat digest's words for each connection floor it has something for (what reaches that floor, and nothing else):
   * a connection is sent its floor's, and no digest when its floor has none.
   */
  floors?: Partial<Record<ChannelFloor, Pick<InterruptMessage, 'title' | 'body' | 'severity'>>>;
}

/** A row of the outbox (see the `notification_deliveries` table). Instants are ms UTC. */
export interface DeliveryRow {
  id: string;
  notificationId: string | null;
  /** The stored event whose interruption it is (its trace gains the scheduler's lines); null for a digest or the scheduler's own notices. */
  eventId?: string | null;
  subjectKey: string | null;
  channel: 'browser' | 'email' | 'push' | 'chat';
  purpose: 'first' | 'resolve' | 'repeat' | 'flap_start' | 'flap_end' | 'digest';
  status: 'held' | 'deferred' | 'sent' | 'cancelled' | 'suppressed' | 'digested' | 'empty';
  reason: string;
  /** Why it was held or deferred, as a value (the digest's kind is read from it); null: it never waited. */
  heldFor?: 'flap_hold' | 'quiet_hours' | 'pause' | null;
  dueAt: number | null;
  message: InterruptMessage;
  /** Set when it is sent: its place on the live stream's feed, with the inbox rows' seqs. */
  seq: number | null;
  digestId: string | null;
  createdAt: number;
  sentAt: number | null;
}

/** Flap detection's memory of a subject: its recent outages (ms UTC), whether it flaps, its latest change. */
export interface SubjectState {
  subjectKey: string;
  outages: number[];
  flappingSince: number | null;
  lastChangeAt: number;
}

export interface MuteRow {
  subjectKey: string;
  until: number;
  createdAt: number;
}

/**
 * What the fold did with one stored event: `opened` a new row (a trigger with none open), `joined` its subject's
 * open row, `raised` it (joined and lifted it to `error`), `resolved` it, `resolved_alone` (a resolve with no open
 * row: a resolved row of its own), or `info` (a row of its own without state).
 */
export type FoldEffect = 'opened' | 'joined' | 'raised' | 'resolved' | 'resolved_alone' | 'info';

export interface FoldedEvent {
  /** The id the event is stored with (`notification_events.id`), made before the plan so its interruptions can name it. */
  eventId: string;
  event: IncomingEvent;
  notificationId: string;
  effect: FoldEffect;
  /** The row as the whole batch leaves it. */
  row: NotificationRow;
}

/** The decisions a `plan` settled: one per folded event, and the new rows to store as read (discarded). */
export interface PlanOutcome {
  decisions: StoredDecision[];
  readIds: string[];
  /** What it sent, for the live stream. */
  sent: DeliveryRow[];
}

/**
 * The outbox's reads and writes inside a notifications transaction (an ingest's `plan`, or `outbox(work)`); the
 * delivery writers hand a seq to each row whose status is `sent` and has none.
 */
export interface OutboxOps {
  deliveriesFor(notificationIds: string[]): Promise<DeliveryRow[]>;
  /** With `dueBy`: only those due by then (`due_at <= dueBy`), soonest first. */
  deliveriesWithStatus(status: DeliveryRow['status'], dueBy?: number): Promise<DeliveryRow[]>;
  addDeliveries(deliveries: DeliveryRow[]): Promise<DeliveryRow[]>;
  /** Writes status, reason, heldFor, dueAt, digestId and sentAt (and a seq for a newly sent one) of each. */
  updateDeliveries(deliveries: DeliveryRow[]): Promise<DeliveryRow[]>;
  subjects(keys: string[]): Promise<SubjectState[]>;
  /** Subjects that flap and have not changed since `lastChangeBy`. */
  flapping(lastChangeBy: number): Promise<SubjectState[]>;
  putSubjects(states: SubjectState[]): Promise<void>;
  /** The mutes of these subjects, or all of them. */
  mutes(keys?: string[]): Promise<MuteRow[]>;
  putMute(mute: MuteRow): Promise<void>;
  removeMutes(keys: string[]): Promise<void>;
  rows(ids: string[]): Promise<NotificationRow[]>;
  openRows(subjectKeys: string[]): Promise<NotificationRow[]>;
  /** The newest row of each subject. */
  latestRows(subjectKeys: string[]): Promise<NotificationRow[]>;
  /**
   * The "flapping" notices of these subjects (every channel's row), oldest first, each with whether the decision of
   * the event that started the flap goes through quiet hours.
   */
  flapStarts(subjectKeys: string[]): Promise<FlapStart[]>;
  /** Snoozes rows until `until` (ms UTC), or wakes them (null: back unread); answers the rows changed, with new seqs. */
  snooze(ids: string[], until: number | null): Promise<NotificationRow[]>;
  /** Wakes the rows whose snooze ended by `now`: back unread, with new seqs. */
  wakeSnoozed(now: number): Promise<NotificationRow[]>;
  /** When the next snooze ends, ms UTC, or null. */
  nextSnoozeEnd(): Promise<number | null>;
  /**
   * Late assignment: gives each row without a project whose refs `projectOf` names a project to it (with its events),
   * each with a new seq so live streams hear of it; answers the rows changed, in seq order. A row that has a project
   * keeps it, and one stored without refs stays as it is.
   */
  assign(projectOf: (refs: readonly string[]) => string | null): Promise<NotificationRow[]>;
  /** Marks rows read (ISO 8601 `at`) without a new seq: the rows a batch creates, before anyone saw them. */
  markRead(ids: string[], at: string): Promise<void>;
  /**
   * Adds lines to stored events' traces (the scheduler released, sent or dropped what an event's decision held),
   * each event's in the order given; the thread's copy of its latest event's decision gains them too. Events without
   * a stored decision are left as they are.
   */
  appendTrace(lines: readonly TraceLine[]): Promise<void>;
}

/** A flap's start as the outbox keeps it: its notice on one channel, and how the event that started it was decided. */
export interface FlapStart {
  delivery: DeliveryRow;
  bypassQuietHours: boolean;
}

/** A line the scheduler adds to a stored event's trace. */
export interface TraceLine {
  eventId: string;
  entry: DecisionTraceEntry;
}

/** A stored event of a thread with the decision about it (`notification_events`). */
export interface NotificationEventRow {
  id: string;
  notificationId: string;
  integration: string;
  type: string;
  transition: 'trigger' | 'resolve' | null;
  severity: NotificationSeverity;
  title: string;
  url: string | null;
  /** ISO 8601: upstream, and when it reached the dashboard. */
  occurredAt: string;
  receivedAt: string;
  decision: StoredDecision | null;
}

/** An email interruption on its way to SendGrid, with the outbox row it sends. Instants are ms UTC. */
export interface EmailSendRow {
  id: string;
  state: 'queued' | 'delivered' | 'failed';
  attempts: number;
  /** When a queued one is next tried. */
  dueAt: number;
  /** SendGrid's X-Message-Id once delivered. */
  providerId: string | null;
  /** The last refusal, in SendGrid's words. */
  error: string | null;
  createdAt: number;
  sentAt: number | null;
  delivery: DeliveryRow;
}

/** How a claimed send ended (or when it is tried again). */
export interface EmailOutcome {
  state: EmailSendRow['state'];
  attempts: number;
  dueAt: number;
  providerId: string | null;
  error: string | null;
  sentAt: number | null;
}

/**
 * A push interruption to one device (`push_sends`): the released push delivery it sends, and how sending it went.
 * `gone`: the push service said the device's subscription no longer exists (404, 410). ms UTC.
 */
export interface PushSendRow {
  id: string;
  subscriptionId: string;
  state: 'queued' | 'delivered' | 'failed' | 'gone';
  attempts: number;
  /** When a queued one is next tried. */
  dueAt: number;
  /** The push service's last HTTP status, when it answered. */
  status: number | null;
  /** The last refusal or failure, in the push service's words. */
  error: string | null;
  createdAt: number;
  sentAt: number | null;
  delivery: DeliveryRow;
}

/** How a claimed push send ended (or when it is tried again). */
export interface PushSendOutcome {
  state: PushSendRow['state'];
  attempts: number;
  dueAt: number;
  status: number | null;
  error: string | null;
  sentAt: number | null;
}

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

/**
 * A device that gets Web Push (`push_subscriptions`): the browser's `PushSubscription` and how its pushes went. Its
 * keys (`p256dh`, `auth`) are the device's secrets: sealed by the caller's vault, never seen by the store in clear.
 * Instants are ms UTC.
 */
export interface PushSubscriptionRow {
  id: string;
  name: string;
  /** The browser, as its user agent names it; null when unknown. */
  browser: string | null;
  /**
   * The endpoint's reference: its push service's origin and a digest of it (`https://fcm.googleapis.com/#<digest>`,
   * the API's `endpointRef`), never the endpoint itself, which is sealed with the keys. A row saved before endpoints
   * were sealed holds the endpoint until the dashboard's next start seals it (`reseal`).
   */
  endpoint: string;
  /** The sealed `{ endpoint, p256dh, auth }`; '' once the push service said the subscription is gone. */
  sealedKeys: string;
  /** The browser's `expirationTime`, when it gave one. */
  expirationTime: number | null;
  createdAt: number;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  /** The last failure, in the push service's words (never the keys). */
  lastFailure: string | null;
  /** When the push service answered 404 or 410: the device is listed as removed and never pushed to again. */
  removedAt: number | null;
}

/**
 * One value of the metric history (`metric_points`): a project's metric on one day (`YYYY-MM-DD`), in `currency` for
 * money (null otherwise). `late`: taken after its day's time had passed; `source`: the daily snapshot, a provider's
 * series read back, or a CSV import; `takenAt`: when it was read, ms UTC.
 */
export interface MetricPointRow {
  project: string;
  metric: string;
  date: string;
  value: number;
  currency: string | null;
  late: boolean;
  source: 'snapshot' | 'backfill' | 'import';
  takenAt: number;
}

/**
 * A change alert rule on the metric history (`metric_alert_rules`): a project's metric held to `params` (a threshold,
 * a change against a comparison period, or its usual band), its alerts sent as `severity` while `enabled`. The id is a
 * UUID, or `default:<project>:<metric>` for the owner's change to a built-in `unusual` rule. Instants are ms UTC.
 */
export interface MetricAlertRuleRow {
  id: string;
  projectSlug: string;
  metric: MetricKey;
  params: MetricAlertParams;
  severity: MetricAlertSeverity;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

/**
 * Everything the dashboard stores, behind one interface with an implementation per dialect
 * (SQLite/libSQL, Postgres and MySQL). Each method is atomic on its own.
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres' | 'mysql';

  settings: {
    /** Defaults merged with what was stored; `projectOrder` lists every project in tab order. */
    get(): Promise<Settings>;
    /** Writes only the leaves the update names, in one transaction. Throws UnknownProjectsError. */
    update(update: SettingsUpdate): Promise<void>;
  };

  projects: {
    /** In tab order. */
    list(): Promise<Project[]>;
    get(slug: string): Promise<Project | undefined>;
    /** Appends the project to the tab order. Throws ProjectExistsError. */
    create(input: ProjectCreate): Promise<Project>;
    /** Replaces each integration the patch names (`null` removes it); undefined when there is no such project. */
    update(slug: string, patch: ProjectPatch): Promise<Project | undefined>;
    /** Removes the project (and so its place in the tab order); false when there was none. */
    remove(slug: string): Promise<boolean>;
  };

  credentials: {
    /** Keys with stored credentials, sorted. */
    keys(): Promise<string[]>;
    /** The sealed (encrypted) values of a key; the store never sees them in clear. */
    getSealed(key: string): Promise<string | undefined>;
    putSealed(key: string, sealed: string): Promise<void>;
    remove(key: string): Promise<boolean>;
  };

  /** `api_cache`: upstream data by route and normalised parameters, with when it was fetched and until when it is fresh. */
  cache: {
    get(key: string): Promise<CacheEntry | undefined>;
    put(entry: CacheEntry): Promise<void>;
    /** Removes every entry, or those of one route; answers how many went. */
    clear(route?: string): Promise<number>;
    /**
     * Makes the entries of `route` whose key holds the parameter `part` (`name=value`, as the key writes it) expire at
     * `at` (ISO 8601) unless they already have; they stay as the STALE fallback. Answers how many changed.
     */
    expire(route: string, part: string, at: string): Promise<number>;
  };

  /** Who may open the dashboard: the owner's password, browser sessions and API tokens. */
  auth: {
    owner(): Promise<OwnerRow | undefined>;
    /**
     * Inserts the owner unless there is one, in one statement: true when this call created it, so of
     * any number of concurrent first-run setups exactly one gets true.
     */
    createOwner(passwordHash: string): Promise<boolean>;
    /**
     * Replaces the owner's password and ends every session but `keepSessionId`, in one transaction; false when there is
     * no owner. With `removeDevices` (a password change, not a rehash) every Web Push device goes in that transaction too:
     * a browser signed out keeps no push subscription, and the owner adds their devices again.
     */
    changePassword(passwordHash: string, keepSessionId?: string, removeDevices?: boolean): Promise<boolean>;
    /**
     * Removes the owner, every session and every Web Push device in one transaction (the shell's password reset): as
     * after a password change, no browser keeps getting alerts, and the owner adds their devices again.
     */
    removeOwner(): Promise<void>;

    sessions: {
      create(session: SessionRow): Promise<void>;
      get(id: string): Promise<SessionRow | undefined>;
      /** Most recently seen first. */
      list(): Promise<SessionRow[]>;
      touch(id: string, lastSeenAt: string): Promise<void>;
      remove(id: string): Promise<boolean>;
      /**
       * Removes every session but `exceptId`; answers how many went. With `removeDevices` ("sign out everywhere") every
       * Web Push device goes in the same transaction.
       */
      removeAll(exceptId?: string, removeDevices?: boolean): Promise<number>;
      /** Removes sessions last seen before `seenBefore` or created before `createdBefore`; answers how many went. */
      removeExpired(seenBefore: string, createdBefore: string): Promise<number>;
    };

    tokens: {
      create(token: ApiTokenRow): Promise<void>;
      get(id: string): Promise<ApiTokenRow | undefined>;
      /** Newest first. */
      list(): Promise<ApiTokenRow[]>;
      touch(id: string, lastUsedAt: string): Promise<void>;
      remove(id: string): Promise<boolean>;
    };
  };

  /** The inbox: events from the relay and the local webhook route, folded into rows. */
  notifications: {
    /**
     * Stores a batch in ONE transaction, together with the relay cursor when given, so a crash never
     * loses or doubles an event. Each event first claims its sourceEventId for `dedupWindowMs` (a claim
     * that has expired is taken again; a live one makes the event a duplicate, skipped); then it folds:
     * `trigger` joins the subject's open row or opens one, `resolve` closes the open row (or becomes a
     * resolved row of its own), null is a row of its own. Concurrent ingests of one event store it once.
     * A duplicate within the batch is a duplicate too. `now` (ISO 8601) starts the claims; `dedupWindowMs` >= 0.
     * A joined or resolved row keeps its read state: a read row that changes stays read (its seq still moves).
     */
    ingest(
      events: IncomingEvent[],
      options: {
        now: string;
        dedupWindowMs: number;
        cursor?: { relayUrl: string; since: number } | undefined;
        /**
         * Runs in the batch's transaction once the events are folded, before the rows and events are written: it
         * decides each stored event's interruption through `ops` (so a crash never keeps a row without its
         * interruptions, or the other way round) and settles the decisions stored with them.
         */
        plan?: ((folded: FoldedEvent[], ops: OutboxOps) => Promise<PlanOutcome>) | undefined;
        /**
         * The deliveries log's rows for what became of the events (`IngestResult.events`), written in the same
         * transaction: a crash never keeps a notification without its log row, or the other way round. A row whose
         * outcome is `duplicate` gets `duplicateOf` (and, when null, `notificationId`) from the newest earlier row of
         * its source event id.
         */
        log?: ((events: IngestedEvent[]) => DeliveryRecord[]) | undefined;
      },
    ): Promise<IngestResult>;
    /** Runs `work` in one notifications transaction (serialised with ingests): the scheduler's ticks, snoozes, mutes, dry runs. */
    outbox<T>(work: (ops: OutboxOps) => Promise<T>): Promise<T>;
    /** Runs `work` on the outbox's reads outside any transaction (it must not write): the dry run, the mutes with titles. */
    read<T>(work: (ops: OutboxOps) => Promise<T>): Promise<T>;
    /** Every mute, ended or not (the scheduler removes ended ones), soonest end first. */
    mutes(): Promise<MuteRow[]>;
    /** Interruptions sent after `seq`, oldest first, at most `limit`: the live stream's replay beside `changedSince`. */
    sentSince(seq: number, limit: number): Promise<DeliveryRow[]>;
    /** The relay cursor stored with the last batch from this relay URL (`since` for its next poll). */
    cursor(relayUrl: string): Promise<number | undefined>;
    /** Snoozed rows are left out until they wake. */
    list(query: NotificationQuery): Promise<NotificationRow[]>;
    /** A row's stored events, in the order they happened, each with its own decision and trace; empty when there is no such row. */
    events(notificationId: string): Promise<NotificationEventRow[]>;
    /** Rows changed after `seq` (those whose seq is bigger), oldest change first, at most `limit`: a live stream's replay. */
    changedSince(seq: number, limit: number): Promise<NotificationRow[]>;
    /**
     * A signal between the processes on this database that the change feed moved (Postgres's LISTEN/NOTIFY), so
     * their live streams read it at once instead of at their next poll; absent where the engine has none.
     */
    changes?: {
      /** Tells every listening process (this one included) that `from` committed something. */
      announce(from: string): Promise<void>;
      /** Calls `onChange` with each announcement's `from` until the returned function is called. */
      listen(onChange: (from: string) => void): Promise<() => Promise<void>>;
    };
    /** The biggest seq of the rows and sent interruptions there are (0 when there are none): where a live stream starts. */
    latestSeq(): Promise<number>;
    /** Unread rows that are not snoozed. */
    unreadCount(): Promise<number>;
    /** Marks the unread ones of the rows read (bumping their seq); answers the rows that changed, in seq order. */
    markRead(target: { ids: string[] } | { all: true }, at: string): Promise<NotificationRow[]>;
    /**
     * Retention: removes rows read before `readBefore` and unread rows received before `unreadBefore`, with their
     * events; answers how many rows went. Dedup claims outlive their rows (a late copy of a pruned row's event is
     * still a duplicate) until they expire: prune also drops the claims that expired by the earlier cut-off, so the
     * cut-offs must not lie in the future.
     */
    prune(readBefore: string, unreadBefore: string): Promise<number>;
    /** Removes the rows of these projects with their events and dedup claims (the demo went away); answers how many rows went. */
    removeForProjects(slugs: readonly string[]): Promise<number>;
  };

  /**
   * Email interruptions: queued when the outbox releases an email delivery (in that transaction), claimed with a
   * lease by the sender of one process, settled as delivered, failed, or queued again for later.
   */
  emails: {
    /** Claims up to `limit` queued sends due by `now` for `holder` until `now + leaseMs`, soonest due first. */
    claim(holder: string, now: number, leaseMs: number, limit: number): Promise<EmailSendRow[]>;
    /**
     * Renews `holder`'s claim on one send until `now + leaseMs`, just before it is sent: false when the claim is lost
     * (its lease ran out mid-batch and another process claimed it, or it was settled), and then it must not be sent.
     */
    hold(id: string, holder: string, now: number, leaseMs: number): Promise<boolean>;
    /** Writes how a claimed send ended, and gives its lease up; nothing when `holder` no longer holds it. */
    settle(id: string, holder: string, outcome: EmailOutcome): Promise<void>;
    /** The newest sends first. */
    recent(limit: number): Promise<EmailSendRow[]>;
    /** How many were delivered after `since` (the hourly cap: the last hour is after `now - 1 h`). */
    deliveredSince(since: number): Promise<number>;
    /** The earliest delivery after `since`, or null: when the hourly cap frees a place. */
    oldestDeliveredSince(since: number): Promise<number | null>;
    /** The first delivered email about a notification: the thread its recovery answers. */
    threadOf(notificationId: string): Promise<EmailSendRow | undefined>;
    /** When the next queued send is due, or null. */
    nextDue(): Promise<number | null>;
  };

  /** Web Push devices (see PushSubscriptionRow). */
  push: {
    /** Oldest first. */
    list(): Promise<PushSubscriptionRow[]>;
    get(id: string): Promise<PushSubscriptionRow | undefined>;
    /** Adds a device; one with the same endpoint reference (the same browser subscribing again) is replaced. */
    add(row: PushSubscriptionRow): Promise<void>;
    /** False when there was none. */
    remove(id: string): Promise<boolean>;
    /** Removes the device of an endpoint reference (a browser signing out); answers its name, or undefined when there was none. */
    removeEndpoint(endpoint: string): Promise<string | undefined>;
    /** A device's `endpoint` and `sealedKeys` replaced, only while its endpoint is still `from`; nothing else changes. */
    reseal(id: string, from: string, endpoint: string, sealedKeys: string): Promise<void>;
    /** A push the service accepted. */
    succeeded(id: string, at: number): Promise<void>;
    /** A push the service refused or could not take; `reason` is its words. */
    failed(id: string, at: number, reason: string): Promise<void>;
    /** The push service said the subscription is gone (404, 410): its keys are dropped, the row stays to say so. */
    gone(id: string, at: number, reason: string): Promise<void>;
    /**
     * Push interruptions per device: queued when the outbox releases a push delivery (in that transaction, one per
     * device subscribed then), claimed with a lease by the sender of one process, settled as the email sends are.
     */
    sends: {
      /** Claims up to `limit` queued sends due by `now` for `holder` until `now + leaseMs`, soonest due first. */
      claim(holder: string, now: number, leaseMs: number, limit: number): Promise<PushSendRow[]>;
      /**
       * Renews `holder`'s claim on one send until `now + leaseMs`, just before it is sent: false when the claim is lost
       * (its lease ran out mid-batch and another process claimed it, or it was settled), and then it must not be sent.
       */
      hold(id: string, holder: string, now: number, leaseMs: number): Promise<boolean>;
      /** Writes how a claimed send ended, and gives its lease up; nothing when `holder` no longer holds it. */
      settle(id: string, holder: string, outcome: PushSendOutcome): Promise<void>;
      /** The newest sends first. */
      recent(limit: number): Promise<PushSendRow[]>;
      /** When the next queued send is due, or null. */
      nextDue(): Promise<number | null>;
      /** The devices told of a thread's outage (the ones its recovery goes to): by id. */
      toldOf(notificationId: string): Promise<string[]>;
      /** A released push delivery by its id (what a service worker asks for when the push was too large to carry it). */
      delivery(id: string): Promise<DeliveryRow | undefined>;
    };
  };

  /** Chat and webhook connections (see ChannelConnectionRow). */
  channels: {
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

  /** The metric history: the dashboard's own memory of each project's numbers, a value per metric and day. */
  history: {
    /**
     * Writes each point in one transaction; a stored point of the same (project, metric, date) is replaced (the later
     * read wins), but one whose value, currency and late flag are the same is left as it is (its source and takenAt
     * too). Of points naming one day twice, the later is the one written (and counted once). Answers how many were
     * new, replaced and unchanged, exactly even while another process puts the same days. A value must be finite.
     */
    put(points: readonly MetricPointRow[]): Promise<{ created: number; updated: number; unchanged: number }>;
    /**
     * One project's (undefined: every project's) metrics (undefined: all of them) from `from` to `to` inclusive,
     * ordered by project, metric, then date.
     */
    read(project: string | undefined, metrics: readonly string[] | undefined, from: string, to: string): Promise<MetricPointRow[]>;
    /** Per project and metric (in that order): how many days are stored, the first and the last. */
    summary(project?: string): Promise<{ project: string; metric: string; points: number; first: string; last: string }[]>;
    /** Rows stored in all. */
    count(): Promise<number>;
    /** Removes these projects' history (a project deleted, the demo removed); answers how many rows went. */
    removeForProjects(slugs: readonly string[]): Promise<number>;
  };

  /**
   * The change alert rules on the metric history (see MetricAlertRuleRow). A stored rule whose params do not parse as
   * contracts' `MetricAlertParams` is an error naming the rule, never skipped (only the store writes them).
   */
  metricAlerts: {
    /** One project's rules (undefined: every project's), ordered by project, metric, then createdAt (and id). */
    list(projectSlug?: string): Promise<MetricAlertRuleRow[]>;
    get(id: string): Promise<MetricAlertRuleRow | undefined>;
    /**
     * Writes the rule, or replaces the one of its id (its project, metric, params, severity, enabled and updatedAt;
     * the first put's createdAt stays), in one statement: of processes putting one id at once, one row remains, the
     * last put's. Params that do not parse as `MetricAlertParams` are refused before anything is written.
     */
    put(row: MetricAlertRuleRow): Promise<void>;
    /** False when there was none. */
    remove(id: string): Promise<boolean>;
    /** Removes these projects' rules (a project deleted, the demo removed); answers how many went. */
    removeForProjects(slugs: readonly string[]): Promise<number>;
  };

  /**
   * The webhook deliveries log (issue 53) and the refusal counts beside it. Rows of ingested events are written by
   * `notifications.ingest`'s `log`; `record` writes the rest (a delivery that carried no event: ignored, invalid).
   */
  deliveries: {
    /** Writes rows outside an ingest; a duplicate's `duplicateOf` is filled as the ingest's log does. */
    record(rows: DeliveryRecord[]): Promise<void>;
    /** Newest first (receivedAt, then id, descending), after `cursor` when given, at most `limit`, without bodies. */
    list(filter: DeliveryFilter, limit: number, cursor?: { receivedAt: number; id: string }): Promise<DeliveryListRow[]>;
    /** One row with its body and event, and the decision stored with its notification event (null when none). */
    get(id: string): Promise<(DeliveryRecord & { decision: StoredDecision | null }) | undefined>;
    /** Rows with these ids (missing ones left out), with body and event. */
    many(ids: readonly string[]): Promise<DeliveryRecord[]>;
    /** The rows that replay `id`, newest first. */
    replaysOf(id: string): Promise<DeliveryListRow[]>;
    /** The rows a replay request made, in the order they were made. */
    byReplayRequest(requestId: string): Promise<DeliveryListRow[]>;
    /** Clears bodies whose `bodyUntil` <= `bodiesBy` and removes rows received before `rowsBefore`; answers both counts. */
    prune(bodiesBy: number, rowsBefore: number): Promise<{ bodies: number; rows: number }>;
    /**
     * Counts refusals: `add` adds to the hour's count (the local route's own), `max` keeps the larger of the stored
     * and the given count (the relay's counts are its hour's totals so far, read again on every poll).
     */
    countRefusals(rows: readonly RefusalRow[], mode: 'add' | 'max'): Promise<void>;
    /** The counts of hours starting at or after `sinceHour` (ms), newest hour first. */
    refusals(sinceHour: number): Promise<RefusalRow[]>;
    /** Removes counts of hours before `before` (ms). */
    pruneRefusals(before: number): Promise<number>;
  };

  /** Named leases, so that of several dashboard processes on one database one does a job at a time (the relay poller). */
  leases: {
    /**
     * Takes or renews `name` for `holder` until `now + ttlMs` when it is free, expired (its end <= `now`) or already
     * the holder's, in one atomic statement; false otherwise. `now` is ISO 8601.
     */
    acquire(name: string, holder: string, ttlMs: number, now: string): Promise<boolean>;
    /** Gives it up, when `holder` holds it. */
    release(name: string, holder: string): Promise<void>;
  };

  /**
   * Upstream rate windows shared by every dashboard process on this database: Postgres and MySQL have them, SQLite
   * does not (one process is all there is; its limiters stay in memory). `key` names one upstream account.
   */
  rateWindows?: RateWindows;

  /** Small internal values such as the credentials key check; JSON-serialisable. */
  meta: {
    get(key: string): Promise<unknown>;
    put(key: string, value: unknown): Promise<void>;
    /**
     * Stores `value` only when `key` has none, in one atomic statement, and answers the value `key` then holds: of
     * processes claiming one key at once, every one gets the first claim's value (the installation id).
     */
    claim(key: string, value: unknown): Promise<unknown>;
  };

  /**
   * When drizzle's migrator (or the SQL `migrationStatements` gave someone to run) last brought this database up to
   * date: the newest `created_at` (the migration's folder time, ms) of its bookkeeping table; undefined when none.
   */
  lastMigration(): Promise<number | undefined>;

  /** Every stored row at once: an export, an import, a copy into another database (see contracts' `DumpTables`). */
  transfer: {
    /** The rows of every dumped table, read in one transaction. */
    dump(): Promise<Required<DumpTables>>;
    /** How many rows each dumped table holds. */
    counts(): Promise<Record<DumpTableName, number>>;
    /**
     * Replaces the rows of each table `tables` names with the given ones (the tables it leaves out keep theirs), in
     * one transaction: all or nothing. The notifications' sequence then hands out values above every restored seq.
     */
    restore(tables: DumpTables): Promise<void>;
  };

  close(): Promise<void>;
}

/** A sliding window of calls per key (see `Store.rateWindows`); every method is one transaction. Instants are ms UTC. */
export interface RateWindows {
  /**
   * Counts a call at `now` when fewer than `limit` fall within the last `windowMs` and no pause holds: its turn (to
   * refund); otherwise how long until a place could free, and nothing is counted.
   */
  take(key: string, limit: number, windowMs: number, now: number): Promise<{ turn: number } | { waitMs: number }>;
  /** The upstream said 429: no call until `until`. A later pause wins over an earlier one. */
  pause(key: string, until: number): Promise<void>;
  /** The upstream did not count the call that took `turn`: its place is free again. */
  refund(key: string, turn: number): Promise<void>;
}
