export { listen, type RunningServer } from './listen.ts';
export { startSandbox, type Sandbox, type SandboxOptions, type RunningService } from './sandbox.ts';
export type { Exchange, Fault, LoggedRequest, SandboxReply, SandboxRequest, SandboxRoute, SandboxService } from './service.ts';
export { sandboxAppStoreKey } from './appstoreconnect/keys.ts';
export { demoOrg, demoProducts, sandboxEmail, sandboxGitHubOAuth, sandboxGoogle, sandboxGoogleAccount, sandboxTokens, seededRandom, hexId, DAY_MS, type DemoProduct } from './demo.ts';
export type { SandboxServiceName } from './services.ts';
export { demoSetup, demoUpstreamsOf, type DemoSetup, type DemoUpstreams } from './setup.ts';
export { demoEvents, type DemoEvent } from './notifications.ts';
export { sendgridError, type FakeSendGrid, type ReceivedMail } from './sendgrid/index.ts';
export type { DiscordMessage, FakeDiscord, FakeDiscordWebhook } from './discord/index.ts';
export { parseTelegramHtml, telegramError, type FakeTelegram, type FakeTelegramBot, type HtmlParse, type TelegramChat, type TelegramMessage } from './telegram/index.ts';
export type { FakeSlack, FakeSlackWebhook, SlackMessage } from './slack/index.ts';
export { ntfyError, type FakeNtfy, type NtfyAccess, type NtfyMessage } from './ntfy/index.ts';
export {
  decryptPushMessage,
  DecryptError,
  newSubscriberKeys,
  parseVapidAuthorization,
  verifyVapid,
  type FakePushService,
  type PushSubscriptionJson,
  type ReceivedPush,
  type SubscribeOptions,
  type SubscriberKeys,
  type VapidClaims,
} from './push/index.ts';
export { NARROW_REFRESH_TOKEN, REVOKED_REFRESH_TOKEN_PREFIX } from './google/index.ts';
export type { DocumentedExample } from './documented.ts';
export { betterstackDocumented } from './betterstack/documented.ts';
export { sendgridDocumented } from './sendgrid/documented.ts';
export { umamiDocumented } from './umami/documented.ts';
export { telegramDocumented, telegramDocumentedHtml, telegramDocumentedLimits } from './telegram/documented.ts';
export { slackDocumented, slackDocumentedRequests, slackDocumentedRate, type DocumentedRequest } from './slack/documented.ts';
