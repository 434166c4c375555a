import { body, none, pathParams, query, type RestRoute } from '../route.ts';

/**
 * The routes of the notifications: the inbox and its policy, the relay poller, where notifications go (email alerts,
 * push devices, chat connections) and the deliveries log of every webhook taken in.
 */

/** The inbox, its policy, and the relay poller. */
export const inboxRoutes: readonly RestRoute[] = [
  { method: 'GET', path: '/api/notifications', procedure: 'notifications.list', input: query, summary: 'List notifications, newest first, with filters and a cursor' },
  { method: 'GET', path: '/api/notifications/unread', procedure: 'notifications.unreadCount', input: none, summary: 'Count the unread notifications' },
  {
    method: 'GET',
    path: '/api/notifications/:id/events',
    procedure: 'notifications.events',
    input: pathParams,
    errors: [404],
    summary: "A notification's events in the order they happened, each with its own decision trace",
  },
  { method: 'POST', path: '/api/notifications/read', procedure: 'notifications.markRead', input: body, summary: 'Mark notifications read (some, or all)' },
  {
    method: 'GET',
    path: '/api/notifications/policy',
    procedure: 'notifications.policy',
    input: none,
    summary: 'Read the notification policy: preferences, rules, quiet hours, flap hold, pauses',
  },
  { method: 'PUT', path: '/api/notifications/preferences', procedure: 'notifications.savePreferences', input: body, summary: 'Replace the notification preferences' },
  { method: 'PUT', path: '/api/notifications/rules', procedure: 'notifications.saveRules', input: body, summary: 'Replace the notification rules' },
  { method: 'PUT', path: '/api/notifications/quiet-hours', procedure: 'notifications.saveQuietHours', input: body, summary: 'Replace the quiet hours' },
  { method: 'PUT', path: '/api/notifications/flap-hold', procedure: 'notifications.saveFlapHold', input: body, summary: "Set how long an uptime monitor's flapping is held (0-3600 s)" },
  { method: 'POST', path: '/api/notifications/pause', procedure: 'notifications.pause', input: body, summary: 'Pause notifications for a while, or resume them' },
  { method: 'POST', path: '/api/notifications/dry-run', procedure: 'notifications.dryRun', input: body, summary: 'Say what the policy would do with an event, on every channel, sending nothing' },
  { method: 'POST', path: '/api/notifications/snooze', procedure: 'notifications.snooze', input: body, summary: 'Snooze a notification until a time' },
  { method: 'POST', path: '/api/notifications/mute', procedure: 'notifications.mute', input: body, summary: 'Mute a subject (a monitor, a repository…) for a while' },
  { method: 'POST', path: '/api/relay/poll', procedure: 'relay.poll', input: none, errors: [502], summary: 'Poll the webhook relay now (`configured: false` when no relay URL is set)' },
  { method: 'GET', path: '/api/relay/status', procedure: 'relay.status', input: none, summary: "The relay poller's state: last poll, last error, events seen" },
];

/** Where notifications go: email alerts and their deliveries, push devices, chat connections. */
export const destinationRoutes: readonly RestRoute[] = [
  {
    method: 'POST',
    path: '/api/alerts/send',
    procedure: 'alerts.send',
    input: body,
    errors: [502],
    summary: 'Send an email alert (health or custom; 10 an hour per token, 30 in all); `configured: false` when email is not set up',
  },
  { method: 'GET', path: '/api/alerts', procedure: 'alerts.status', input: none, summary: 'Where alerts go and what is missing (never the key)' },
  { method: 'POST', path: '/api/alerts/test', procedure: 'alerts.test', input: none, errors: [502], summary: 'Send a test email (one a minute)' },
  { method: 'GET', path: '/api/alerts/deliveries', procedure: 'alerts.deliveries', input: none, summary: 'The newest notification emails and how each went' },

  { method: 'GET', path: '/api/push/key', procedure: 'push.key', input: none, summary: 'The VAPID public key (base64url) a browser subscribes with as its applicationServerKey' },
  {
    method: 'POST',
    path: '/api/push/subscriptions',
    procedure: 'push.subscribe',
    input: body,
    status: 201,
    access: 'owner',
    summary: "Add a device for Web Push: the browser's PushSubscription JSON plus a name (the owner, with the password once one is set)",
    description:
      'The endpoint must be https (plain http only to a loopback address) and not a link-local or cloud-metadata address; keys.p256dh a P-256 point, keys.auth 16 bytes. Bad input is a 400 and stores nothing. The same endpoint again replaces its device.',
  },
  {
    method: 'GET',
    path: '/api/push/contact',
    procedure: 'push.contact',
    input: none,
    summary: 'Whether push services have a contact (the VAPID subject) and where it comes from; the addresses only for the owner',
  },
  {
    method: 'PUT',
    path: '/api/push/contact',
    procedure: 'push.saveContact',
    input: body,
    access: 'owner',
    summary: 'Save the email address push services may write to about our pushes (`{ email }`; `null` removes it)',
    description:
      'Used when VAPID_SUBJECT is not set, before the alert address and an https ORIGIN; without any contact every push is refused. Bad input is a 400 naming `email` and stores nothing.',
  },
  { method: 'GET', path: '/api/push/subscriptions', procedure: 'push.list', input: none, summary: 'The Web Push devices and how their pushes went (never their keys)' },
  { method: 'DELETE', path: '/api/push/subscriptions/:id', procedure: 'push.remove', input: pathParams, access: 'owner', summary: 'Remove a Web Push device' },
  {
    method: 'POST',
    path: '/api/push/test',
    procedure: 'push.test',
    input: body,
    access: 'owner',
    errors: [404],
    summary: 'Send a test push to every device (`{}`) or one (`{ id }`); one test a minute',
    description: "Each device's result: sent, retry (429/5xx, with retryAt from Retry-After), gone (404/410: the device is removed), or refused.",
  },
  { method: 'GET', path: '/api/channels', procedure: 'channels.list', input: none, summary: 'The chat and webhook connections and how their messages went (never a secret)' },
  {
    method: 'POST',
    path: '/api/channels',
    procedure: 'channels.add',
    input: body,
    status: 201,
    access: 'owner',
    summary: 'Add a Slack, Discord, Telegram, ntfy or signed-webhook connection (the owner, with the password once one is set)',
    description:
      "`destination` by kind: slack/discord `{ webhookUrl }`, telegram `{ botToken, chatId }`, ntfy `{ server?, topic, token? | username, password }`, webhook `{ url }`. A signed webhook's `secret` (whsec_…) is answered once. Bad input is a 400 and stores nothing.",
  },
  {
    method: 'PATCH',
    path: '/api/channels/:id',
    procedure: 'channels.update',
    input: { build: (p) => ({ ...(p.body as object), id: p.params.id }), body: 'input' },
    access: 'owner',
    errors: [404],
    summary: "Change a connection's name, floor or destination (a new host needs its secret again; the owner, with the password once one is set)",
  },
  { method: 'DELETE', path: '/api/channels/:id', procedure: 'channels.remove', input: pathParams, access: 'owner', summary: 'Remove a chat or webhook connection' },
  {
    method: 'POST',
    path: '/api/channels/:id/test',
    procedure: 'channels.test',
    input: pathParams,
    access: 'owner',
    errors: [404],
    summary: 'Send a test message to one connection now; one test a minute per connection',
    description: "The service's answer: sent, retry (429/5xx), gone (404/410: the connection needs attention) or refused (401/403 and the like).",
  },
  {
    method: 'GET',
    path: '/api/push/messages/:id',
    procedure: 'push.message',
    input: pathParams,
    errors: [404],
    summary: 'A sent push notification, by the id its push carried when it was too large to carry it whole (the service worker asks)',
  },
];

/** Every webhook taken in, what it became, what was turned away, and its replay. */
export const deliveriesRoutes: readonly RestRoute[] = [
  {
    method: 'GET',
    path: '/api/deliveries',
    procedure: 'deliveries.list',
    input: query,
    summary: 'Every webhook taken in (relay polls and the local route), newest first, with what it became; filters and cursor paging',
    description:
      'Filters: `integration`, `outcome` (notified, threaded, duplicate, ignored, invalid), `since` and `until` (ISO 8601), `q` (text in the title, event type, delivery id or source event id), `notification` (the rows that became or joined it). `limit` 1-200 (50). Pass `nextCursor` back as `cursor` for the next, older page.',
  },
  {
    method: 'GET',
    path: '/api/deliveries/refusals',
    procedure: 'deliveries.refusals',
    input: query,
    summary: 'What the relay and the local route turned away, per hour, integration and reason (the last 24 hours, or since `since`), with what to check',
  },
  {
    method: 'GET',
    path: '/api/deliveries/:id',
    procedure: 'deliveries.get',
    input: pathParams,
    errors: [404],
    summary: 'One delivery: what it became, the policy’s decision and its trace, its replays, and its body (the signed-in owner only, for 24 hours)',
  },
  {
    method: 'POST',
    path: '/api/deliveries/replay',
    procedure: 'deliveries.replay',
    input: body,
    access: 'owner',
    summary: 'Replay deliveries (`{ ids, requestId }`, 1-100) through today’s projects and policy, as new events marked replayed',
    description: 'The same `requestId` again answers the first replay’s rows with `repeated: true` and sends nothing. A row that carried no event (ignored, invalid) is listed in `skipped` with why.',
  },
];
