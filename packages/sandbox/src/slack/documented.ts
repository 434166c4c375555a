/**
 * Slack's own examples for incoming webhooks, copied from its documentation (Slack publishes no machine-readable
 * description of them). Read through the library's stored copies of the pages named in each `url`; text is kept
 * as printed, only whitespace differs. The fake is held to them in documented.test.ts.
 */
import type { DocumentedExample } from '../documented.ts';

/** A request a page prints, as it prints it. */
export interface DocumentedRequest {
  endpoint: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

export const slackDocumentedRequests = {
  /** "The preferred way to send Slack your JSON body is by sending a HTTP POST to your webhook URL…" */
  multiLine: {
    endpoint: 'POST https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
    url: 'https://api.slack.com/incoming-webhooks',
    headers: { 'Content-type': 'application/json' },
    body: JSON.parse(String.raw`{
      "text": "This is a line of text.\nAnd this is another one."
    }`) as unknown,
  },
} satisfies Record<string, DocumentedRequest>;

const errors = 'https://api.slack.com/changelog/2016-05-17-changes-to-errors-for-incoming-webhooks';

/**
 * The answers: "Here are the errors you may encounter, along with the simple strings we'll return to you in the
 * response body", each under the status it is printed under; the 429 from the rate-limits page.
 */
export const slackDocumented = {
  invalidPayload: { endpoint: 'POST /services/{team}/{bot}/{secret}', url: errors, status: 400, body: 'invalid_payload' },
  userNotFound: { endpoint: 'POST /services/{team}/{bot}/{secret}', url: errors, status: 400, body: 'user_not_found' },
  actionProhibited: { endpoint: 'POST /services/{team}/{bot}/{secret}', url: errors, status: 403, body: 'action_prohibited' },
  channelNotFound: { endpoint: 'POST /services/{team}/{bot}/{secret}', url: errors, status: 404, body: 'channel_not_found' },
  channelIsArchived: { endpoint: 'POST /services/{team}/{bot}/{secret}', url: errors, status: 410, body: 'channel_is_archived' },
  rateLimited: {
    endpoint: 'POST /services/{team}/{bot}/{secret}',
    url: 'https://docs.slack.dev/apis/web-api/rate-limits',
    status: 429,
    body: undefined,
    headerNames: ['Retry-After'],
    partial:
      '"If you exceed a rate limit when using any of our HTTP-based APIs (including incoming webhooks), Slack will return a `HTTP 429 Too Many Requests` error, ' +
      'and a `Retry-After` HTTP header containing the number of seconds until you can retry." (the older api.slack.com/docs/rate-limits adds "a JSON object ' +
      'containing the number of calls you have been making"). Neither page prints a body: the fake answers `rate_limited` as text, as incoming webhooks ' +
      'answer their other errors, which no Slack page says',
  },
} satisfies Record<string, DocumentedExample>;

/**
 * The current page's "Handling errors" list (https://docs.slack.dev/messaging/sending-messages-using-incoming-webhooks#handling_errors,
 * read through a stored copy of the page that names that URL as its source): "Errors you may encounter include:", each code with the words
 * it is printed with. The page prints no status for any of them; it says only that incoming webhooks return "more relevant HTTP status
 * codes (like \"HTTP 400 Bad Request\", \"HTTP 403 Forbidden\", and \"HTTP 404 Not Found\")" and sends to the 2016 changelog for them, which
 * gives statuses only to the codes in `slackDocumented` above. So the statuses the fake gives `no_service` (404), `invalid_token` (403)
 * and `no_text` (400) are not Slack's printed word (see index.ts).
 */
export const slackDocumentedErrorCodes = {
  url: 'https://docs.slack.dev/messaging/sending-messages-using-incoming-webhooks#handling_errors',
  statusesUrl: errors,
  codes: {
    action_prohibited: 'usually means that an admin has placed some kind of restriction on this avenue of posting messages and that, at least for now, the request should not be attempted again.',
    channel_is_archived: 'indicates the specified channel has been archived and is no longer accepting new messages.',
    invalid_payload: 'typically indicates that received request is malformed — perhaps the JSON is structured incorrectly, or the message text is not properly escaped. The request should not be retried without correction.',
    invalid_token: 'means the token used was expired, invalid, or missing.',
    no_active_hooks: 'means the incoming webhook is disabled.',
    no_service: 'means the incoming webhook is either disabled, removed, or invalid.',
    no_service_id: 'means the `service_id` (`B00000000` in our examples above) was either invalid or missing.',
    no_team: 'means the Slack workspace was either missing or invalid.',
    no_text: 'means the `text` attribute was missing from the payload.',
    posting_to_general_channel_denied:
      'is thrown when an incoming webhook attempts to post to the "#general" channel for a workspace where posting to that channel is 1) restricted and 2) the creator of the same incoming webhook is not authorized to post there.',
    team_disabled: 'means the Slack workspace is no longer active.',
    too_many_attachments: 'is thrown when an incoming webhook attempts to post a message with greater than 100 attachments. A message can have a maximum of 100 attachments associated with it.',
    user_not_found: 'and `channel_not_found` indicate that the user or channel being addressed either do not exist or are invalid.',
    channel_not_found: '(printed together with `user_not_found`)',
  },
};

/**
 * "In general we allow applications that integrate with Slack to send no more than one message per second. We allow bursts over that limit
 * for short periods." (api.slack.com/docs/rate-limits); the current page's table: "Incoming webhooks| 1 per second| Short bursts >1 allowed."
 */
export const slackDocumentedRate = { url: 'https://api.slack.com/docs/rate-limits', currentUrl: 'https://docs.slack.dev/apis/web-api/rate-limits', messagesPerSecond: 1 };
