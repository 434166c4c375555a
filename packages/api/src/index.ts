import { TestSends } from './alerts/test-sends.ts';
import { ApiSends } from './alerts/api-sends.ts';
import { systemClock, type Clock } from '@dash/connectors';
import { memoizeReads, type Store } from '@dash/db';
import { defaultGuardedFetch, publicOnlyFetch } from '@dash/connectors';
import { receiveSettingsFrom } from '@dash/webhooks';
import { Access, type AccessOptions } from './auth/access.ts';
import { receiveSettings, RelaySecrets, relayTarget, type RelayEnvironment } from './notifications/config.ts';
import { DeliveryLog } from './deliveries/log.ts';
import { RelayRefusals } from './deliveries/relay-refusals.ts';
import { Inbox } from './notifications/inbox.ts';
import { RelayPoller } from './notifications/poller.ts';
import { LocalWebhooks } from './notifications/webhooks.ts';
import type { Context, DemoProvider } from './context.ts';
import type { Logger } from './logger.ts';
import { CredentialsKeyMismatchError, CredentialVault } from './credentials/vault.ts';
import { DataCache } from './data/cache.ts';
import { Connections, type ConnectionOptions } from './data/connections.ts';
import { coordinationFor, type Coordination } from './data/shared.ts';
import type { DatabaseHandle } from './database/runtime.ts';
import { Backups, type BackupOptions } from './backup/runner.ts';
import { Alerts, type EmailEnvironment } from './alerts/index.ts';
import { EmailSender } from './notifications/email-sender.ts';
import { BriefingMailer } from './briefing/mailer.ts';
import { BriefingCourier } from './briefing/courier.ts';
import { briefingMedia } from './briefing/targets.ts';
import { HistoryKeeper } from './history/keeper.ts';
import { pushAddressScope, PushDevices, PushSender, VapidKeys, WebPushAdapter, type PushEnvironment } from './push/index.ts';
import { ChannelConnections, type ChatEnvironment } from './channels/connections.ts';
import { ChatSender } from './channels/sender.ts';
import type { CliLocations } from './oauth/cli-import.ts';
import type { BackupReads } from './backup/plan.ts';
import { loadShipped } from './data/shipping.ts';
import { MetricAlerter } from './metric-alerts/alerter.ts';
import { dataReadsOf } from './router/data.ts';

export { appRouter, cachedCaller, createCaller, type AppRouter, type Caller } from './root.ts';
export type { Context, DemoProvider } from './context.ts';
export type { Logger } from './logger.ts';
export { resumeDemo, startDemo } from './router/demo.ts';
export { describeError } from './errors.ts';
export { logFailure } from './trpc.ts';
export { ttl } from './data/ttl.ts';
export { coordinationFor, installationOf, redisCoordination, type Coordination, type RedisCoordination } from './data/shared.ts';
export { BackupBusyError, Backups, type BackupOptions } from './backup/runner.ts';
export { Access, type AccessOptions, type ClientInfo, type EnvPassword, type Identity, type NewSession, type RequestInfo, type UserIdentity } from './auth/access.ts';
export { ThrottledError } from './auth/throttle.ts';
export { RetryLaterError, retryAfterOf } from './errors.ts';
export type { RelayEnvironment } from './notifications/config.ts';
export type { EmailEnvironment } from './alerts/index.ts';
export type { PushEnvironment } from './push/index.ts';
export type { ChatEnvironment } from './channels/connections.ts';
export type { CliLocations } from './oauth/cli-import.ts';
export { OAUTH_COOKIE } from './oauth/flow.ts';
export { Inbox } from './notifications/inbox.ts';
export { RelayPoller, type PollerStatus } from './notifications/poller.ts';
export { notificationOf } from './router/notifications.ts';
export { Runtime, type DatabaseHandle, type RuntimeOptions } from './database/runtime.ts';
export { DatabaseManager, type DatabaseManagerOptions } from './database/manager.ts';
export { CredentialsKeyMismatchError, CredentialVault, parseCredentialsKey, resolveCredentialsKey } from './credentials/vault.ts';

const KEY_CHECK = 'credentialsKeyCheck';

/**
 * Builds the procedures' context. A sealed marker written with the first key tells, at start, whether
 * the configured key is the one the stored credentials were sealed with.
 */
export async function createContext(options: {
  store: Store;
  credentialsKey: Buffer;
  log: Logger;
  /** How connectors reach upstreams; tests and the demo keep the default (real HTTP). */
  fetch?: typeof fetch;
  clock?: Clock;
  /** False: the notification scheduler does not run on its own (a test with a fake clock calls `inbox.tick()`). */
  scheduler?: boolean;
  /**
   * False: the metric history's keeper does not look on its own (a test calls `history.tick()`); the unit tests' default,
   * so that a test counting upstream calls counts its own.
   */
  historyKeeper?: boolean;
  demo?: DemoProvider;
  /** Access control; a local dashboard with no password from the environment when absent. */
  access?: AccessOptions;
  /** The relay and the local webhook route as the environment configures them; none when absent. */
  relay?: RelayEnvironment;
  /** The database manager and its runtime (see `Runtime`); the database routes answer 503 without. */
  database?: DatabaseHandle;
  /** Backups: BACKUP_INTERVAL's schedule (none when absent), whether BACKUP_SECRET is set, shorter delays for tests. */
  backup?: Pick<BackupOptions, 'interval' | 'httpEnabled' | 'delays'>;
  /** SENDGRID_API_KEY, ALERT_EMAIL_FROM, ALERT_EMAIL_TO, SENDGRID_API_URL; a SendGrid credential in settings otherwise. */
  email?: EmailEnvironment;
  /** VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, VAPID_SUBJECT; a pair made on first start and kept in the store otherwise. */
  push?: PushEnvironment;
  /** CHAT_SLACK_URL, CHAT_DISCORD_URL, CHAT_TELEGRAM_URL: the chat services' roots, for a proxy or the sandbox. */
  chat?: ChatEnvironment;
  /** Where gcloud and the Workspace CLI keep their files (a local dashboard imports Google's login from them). */
  cliLocations?: CliLocations;
  /** Upstream limits other than the published ones: a test or benchmark that shortens time in proportion. */
  rateLimits?: ConnectionOptions['rateLimits'];
  /**
   * Where the processes serving one database share rate windows and cache fetches (Redis, from REDIS_URL); through
   * the store itself when absent (its tables on Postgres and MySQL, this process's memory on SQLite).
   */
  coordination?: Coordination;
}): Promise<Context> {
  const { log } = options;
  const store = memoizeReads(options.store);
  const vault = new CredentialVault(options.credentialsKey);
  const check = await store.meta.get(KEY_CHECK);
  let credentialsKeyMatches = true;
  if (typeof check === 'string') {
    try {
      vault.open(KEY_CHECK, check);
    } catch (error) {
      if (!(error instanceof CredentialsKeyMismatchError)) throw error;
      credentialsKeyMatches = false;
      log.error(error.message);
    }
  } else {
    await store.meta.put(KEY_CHECK, vault.seal(KEY_CHECK, {}));
  }
  const clock = options.clock ?? systemClock;
  const coordination = options.coordination ?? coordinationFor(store);
  const connections = new Connections(store, vault, { clock, coordination, rateLimits: options.rateLimits, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const access = await Access.open(store, log, options.access ?? { mode: 'local' });
  const cache = new DataCache(store.cache, clock, coordination.flights);
  const relayEnv = options.relay ?? { receive: receiveSettingsFrom({}) };
  const secrets = new RelaySecrets(store, vault);
  const alerts = new Alerts({ store, vault, env: options.email ?? {}, clock, log });
  const pushEnv = options.push ?? {};
  const push = new PushDevices({
    store,
    vault,
    keys: new VapidKeys({ store, vault, env: pushEnv, clock }),
    // A push endpoint is a browser's push service: only a public address, checked at connect time too, unless PUSH_ALLOW_PRIVATE_ENDPOINTS.
    adapter: new WebPushAdapter({
      fetch: options.fetch ?? (pushAddressScope(pushEnv) === 'public' ? publicOnlyFetch : defaultGuardedFetch),
      clock,
      scope: pushAddressScope(pushEnv),
    }),
    env: pushEnv,
    clock,
    log,
    alertAddress: async () => (await alerts.status()).to[0],
    origin: access.options.origin,
  });
  const emails = new EmailSender({ store, alerts, clock, log });
  const pushes = new PushSender({ store, devices: push, clock, log });
  const channels = new ChannelConnections({ store, vault, fetch: options.fetch ?? defaultGuardedFetch, clock, log, env: options.chat ?? {}, origin: access.options.origin });
  const chats = new ChatSender({ store, connections: channels, clock, log });
  // What rows saved before kept in clear (a push endpoint, an ntfy topic, a webhook's URL) is sealed before anything reads them.
  if (credentialsKeyMatches) {
    await push.sealEndpoints();
    await channels.sealDestinations();
  }
  const inbox = new Inbox(store, cache, log, {
    now: () => clock.now(),
    emailReady: () => alerts.ready(),
    onEmail: () => emails.kick(),
    onPush: () => pushes.kick(),
    onChat: () => chats.kick(),
    bodyRetentionMs: options.relay?.bodyRetentionMs,
  });
  // The scheduler (held interruptions, digests, snoozes, mutes) runs unless a test drives its ticks itself.
  if (options.scheduler === false) await inbox.hub.start();
  else {
    await inbox.start();
    emails.start();
    pushes.start();
    chats.start();
  }
  const fetcher = options.fetch ?? defaultGuardedFetch;
  const deliveries = new DeliveryLog({ store, inbox, log, now: () => clock.now(), bodyRetentionMs: relayEnv.bodyRetentionMs });
  const refusals = new RelayRefusals({ store, fetch: fetcher, clock, log });
  const notifications = {
    inbox,
    emails,
    pushes,
    chats,
    deliveries,
    poller: new RelayPoller({ store, inbox, target: () => relayTarget(store, secrets, relayEnv), log, clock, fetch: fetcher, refusals }),
    webhooks: new LocalWebhooks(inbox, () => receiveSettings(secrets, relayEnv), () => clock.now(), deliveries),
    secrets,
    env: relayEnv,
    fetch: fetcher,
  };
  // The backup and the briefing ask the data procedures through callers over the context they are part of.
  const backup = new Backups({ store, log, clock, ...options.backup, reads: ({ signal, limiterWaitMs }) => backupReads(context, signal, limiterWaitMs) });
  const briefing = new BriefingMailer({
    store,
    clock,
    log,
    reads: (signal) => dataReadsOf(context, signal),
    alerts,
    backup,
    policy: inbox.policy,
    origin: access.options.origin,
  });
  const briefingCourier = new BriefingCourier({
    store,
    clock,
    log,
    reads: (signal) => dataReadsOf(context, signal),
    media: briefingMedia({ store, clock, channels, push }),
    policy: inbox.policy,
    origin: access.options.origin,
  });
  const metricAlerts = new MetricAlerter({
    store,
    clock,
    log,
    ingest: (events) => inbox.ingestOwn(events),
    reads: () => dataReadsOf(context),
    data: { cache, connections },
    origin: access.options.origin,
  });
  const history = new HistoryKeeper({
    store,
    clock,
    log,
    data: { cache, connections },
    reads: (signal) => dataReadsOf(context, signal),
    afterSnapshot: (projects) => metricAlerts.evaluate({ projects }),
  });
  const context: Context = {
    store,
    vault,
    log,
    credentialsKeyMatches,
    data: { cache, connections },
    access,
    notifications,
    backup,
    alerts,
    briefing,
    briefingCourier,
    history,
    metricAlerts,
    push,
    channels,
    testSends: new TestSends(store.leases, () => clock.now()),
    apiSends: new ApiSends(store.leases, () => clock.now()),
    ...(options.demo ? { demo: options.demo } : {}),
    ...(options.database ? { database: options.database } : {}),
    ...(options.cliLocations ? { cliLocations: options.cliLocations } : {}),
  };
  context.backup.schedule();
  // The briefing email's sender runs with the other schedulers (a test with a fake clock calls `briefing.tick()`).
  if (options.scheduler !== false) {
    context.briefing.start();
    context.briefingCourier.start();
  }
  if (options.scheduler !== false && options.historyKeeper !== false) {
    context.history.start();
    context.metricAlerts.start();
  }
  return context;
}

/** What a backup asks over the context: the data procedures and shipping's loaders, with connections that wait their turn. */
function backupReads(context: Context, signal: AbortSignal, limiterWaitMs: number): BackupReads {
  const patient: Context = { ...context, data: { ...context.data, connections: context.data.connections.patient(limiterWaitMs) } };
  return { procedures: dataReadsOf(patient, signal), shipped: (source, input) => loadShipped(patient, source, input, signal) };
}
