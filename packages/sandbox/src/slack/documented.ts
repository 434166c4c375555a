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
    url: 'https://api.slack.com/docs/rate-limits',
    status: 429,
    body: undefined,
    headerNames: ['Retry-After'],
    partial:
      '"If you go over these limits when using our HTTP based APIs, including Incoming Webhooks, Slack will start returning a HTTP 429 Too Many Requests error, ' +
      'a JSON object containing the number of calls you have been making, and a Retry-After header containing the number of seconds until you can retry." ' +
      'The page prints no body: the fake answers `rate_limited` as text, as incoming webhooks answer their other errors',
  },
} satisfies Record<string, DocumentedExample>;

/** "In general we allow applications that integrate with Slack to send no more than one message per second. We allow bursts over that limit for short periods." */
export const slackDocumentedRate = { url: 'https://api.slack.com/docs/rate-limits', messagesPerSecond: 1 };
