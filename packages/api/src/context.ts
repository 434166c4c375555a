import type { Store } from '@dash/db';
import type { Access, RequestInfo } from './auth/access.ts';
import type { RelayEnvironment, RelaySecrets } from './notifications/config.ts';
import type { DeliveryLog } from './deliveries/log.ts';
import type { Inbox } from './notifications/inbox.ts';
import type { RelayPoller } from './notifications/poller.ts';
import type { LocalWebhooks } from './notifications/webhooks.ts';
import type { CredentialVault } from './credentials/vault.ts';
import type { DataCache } from './data/cache.ts';
import type { DatabaseHandle } from './database/runtime.ts';
import type { Connections } from './data/connections.ts';
import type { Backups } from './backup/runner.ts';
import type { CliLocations } from './oauth/cli-import.ts';
import type { Alerts } from './alerts/index.ts';
import type { EmailSender } from './notifications/email-sender.ts';
import type { BriefingCourier } from './briefing/courier.ts';
import type { BriefingMailer } from './briefing/mailer.ts';
import type { HistoryKeeper } from './history/keeper.ts';
import type { MetricAlerter } from './metric-alerts/alerter.ts';
import type { Logger } from './logger.ts';
import type { TestSends } from './alerts/test-sends.ts';
import type { ApiSends } from './alerts/api-sends.ts';
import type { PushDevices } from './push/devices.ts';
import type { PushSender } from './push/sender.ts';
import type { ChannelConnections } from './channels/connections.ts';
import type { ChatSender } from './channels/sender.ts';

export interface Context {
  store: Store;
  vault: CredentialVault;
  log: Logger;
  /** False when stored credentials were sealed with another key; writes are refused then. */
  credentialsKeyMatches: boolean;
  /** The data routes' cache and upstream connections, shared by every request of the process. */
  data: { cache: DataCache; connections: Connections };
  /** Where demo projects get their upstreams (the in-process sandbox); no demo when absent. */
  demo?: DemoProvider;
  /** Who may open the dashboard: password, sessions, API tokens. */
  access: Access;
  /** The inbox and what feeds it: the relay poller and the local webhook route. */
  notifications: {
    inbox: Inbox;
    /** Sends the email interruptions the policy released (SendGrid), with retries and an hourly cap. */
    emails: EmailSender;
    /** Sends the released push interruptions, one per device. */
    pushes: PushSender;
    /** Sends the released chat interruptions, one per connection. */
    chats: ChatSender;
    poller: RelayPoller;
    webhooks: LocalWebhooks;
    /** The webhook deliveries log: every webhook taken in and what it became, refusal counts, replays (issue 53). */
    deliveries: DeliveryLog;
    secrets: RelaySecrets;
    env: RelayEnvironment;
    /** How the relay is reached (the guarded fetch by default). */
    fetch: typeof fetch;
  };
  /** Every cached answer asked again: POST /api/backup, the settings page's button, BACKUP_INTERVAL. */
  backup: Backups;
  /** Email alerts through SendGrid: POST /api/alerts/send, settings' test email. */
  alerts: Alerts;
  /** The morning briefing's email: sends it at the scheduled local time, once a day across processes. */
  briefing: BriefingMailer;
  /** The briefing on the chat connections and push devices, each on its own schedule, once per destination and period. */
  briefingCourier: BriefingCourier;
  /** The metric history: the daily snapshot, the providers' days read back, once across processes. */
  history: HistoryKeeper;
  /** Change alerts on the history: after each snapshot and import, and hourly on today's visitors and error events. */
  metricAlerts: MetricAlerter;
  /** Web Push: the VAPID keys, the devices and their test push. */
  push: PushDevices;
  /** Chat and webhook connections (Slack, Discord, Telegram, ntfy, a signed webhook) and their test message. */
  channels: ChannelConnections;
  /** One test send a minute per outgoing channel. */
  testSends: TestSends;
  /** POST /api/alerts/send's limit: per token (the owner one caller of its own) and for the whole installation, an hour. */
  apiSends: ApiSends;
  /** Where gcloud and the Workspace CLI keep their files on this computer (POST /api/auth/cli-import); absent: no import. */
  cliLocations?: CliLocations;
  /** Which database the dashboard stores in, and moving to another; absent where nothing manages it (a benchmark). */
  database?: DatabaseHandle;
  /** The request a procedure serves (who, from where); absent when the server itself calls. */
  request?: RequestInfo;
}

/** The demo's projects and credentials, pointing at upstreams this process runs. */
export interface DemoProvider {
  setup(): Promise<{
    projects: { slug: string; name: string; color: string; integrations: Record<string, unknown> }[];
    credentials: { key: string; values: Record<string, string> }[];
    /** Relay events for the inbox, checked as any relay's are. */
    events?: unknown[];
  }>;
}
