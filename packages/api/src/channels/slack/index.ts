import {
  answerReason,
  destinationUrl,
  PaceKeeper,
  recoveryLine,
  refusalOutcome,
  sendInOrder,
  sendRequest,
  type ChannelAdapter,
  type ChannelMessage,
  type ChannelOutcome,
  type PacedAdapterOptions,
  type SequenceOutcome,
} from '../channel.ts';

/**
 * Slack through an incoming webhook (https://api.slack.com/messaging/webhooks): one `POST` of JSON to the webhook's
 * URL, answered `200 ok` as text/plain or a plain-text error under its status. An incoming webhook cannot edit or
 * reply, so a recovery is a new message that names its outage and how long it lasted.
 */
export interface SlackDestination {
  /** `https://hooks.slack.com/services/T…/B…/<secret>`: the secret is its last segment, so the URL is never shown. */
  webhookUrl: string;
}

/** Slack's pace for a webhook: "no more than one message per second" (api.slack.com/docs/rate-limits). */
export const SLACK_PACE = { limit: 1, windowMs: 1_000 };
/** Block Kit's limits: a header's text 150 characters, a section's text 3000, a field's 2000 (docs.slack.dev, Block Kit reference). */
const HEADER_MAX = 150;
const SECTION_MAX = 3_000;
const FIELD_MAX = 2_000;

/** A message body for an incoming webhook as Slack takes it: the fallback `text` and Block Kit `blocks`. */
export interface SlackRawPayload {
  text: string;
  blocks?: readonly Record<string, unknown>[];
}

const severityWord = { error: 'Error', warning: 'Warning', info: 'Info', success: 'Recovered' } as const;

/**
 * Strangers' text for Slack: `&`, `<` and `>` as entities, Slack's only reserved characters, which is what keeps
 * `<!channel>`, `<@U…>` and `<url|text>` from pinging or linking (docs.slack.dev, Formatting: escaping text). The
 * text goes in `plain_text` objects, which Slack never formats, so `*bold*` and `_it_` stay as typed.
 */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Cut to `max` characters of the escaped text, never inside an entity, with an ellipsis when cut. */
function fit(text: string, max: number): string {
  const escaped = escapeSlack(text);
  if (escaped.length <= max) return escaped;
  const cut = escaped.slice(0, max - 1);
  return `${cut.replace(/&[a-z]{0,3}$/, '')}…`;
}

const plain = (text: string, max: number) => ({ type: 'plain_text', text: fit(text, max), emoji: false });

/** The message as Block Kit: a header, the body, its fields (project, severity), and a button to the thread. */
export function slackPayload(message: ChannelMessage): SlackRawPayload & { unfurl_links: false; unfurl_media: false } {
  const body = [message.body, recoveryLine(message)].filter((line): line is string => Boolean(line)).join('\n');
  const fields = [
    ...(message.project ? [plain(`Project: ${message.project}`, FIELD_MAX)] : []),
    plain(`Severity: ${message.kind === 'digest' ? 'Digest' : severityWord[message.severity]}`, FIELD_MAX),
  ];
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: plain(message.title, HEADER_MAX) },
    ...(body ? [{ type: 'section', text: plain(body, SECTION_MAX) }] : []),
    { type: 'section', fields },
  ];
  if (message.url) {
    blocks.push({ type: 'actions', elements: [{ type: 'button', text: plain('Open in the dashboard', 75), url: message.url }] });
  }
  return {
    // What Slack shows in a phone's notification and where blocks cannot be drawn.
    text: fit(message.title, SECTION_MAX),
    blocks,
    // A stranger's URL in the text never unfurls into a preview.
    unfurl_links: false as const,
    unfurl_media: false as const,
  };
}

/** Sends chat messages through Slack incoming webhooks, keeping each webhook's pace. */
export class SlackAdapter implements ChannelAdapter<SlackDestination> {
  private readonly pace: PaceKeeper;

  constructor(private readonly options: PacedAdapterOptions) {
    this.pace = new PaceKeeper({ clock: options.clock, longestWindowMs: SLACK_PACE.windowMs, maxWaitMs: options.maxPaceWaitMs });
  }

  async send(destination: SlackDestination, message: ChannelMessage): Promise<ChannelOutcome> {
    return this.sendRaw(destination, slackPayload(message));
  }

  /**
   * Posts a payload rendered elsewhere (the briefing's Block Kit) as `send` posts its own: the same address check,
   * pace and answers. A stranger's URL in it never unfurls, whatever the payload says.
   */
  async sendRaw(destination: SlackDestination, payload: SlackRawPayload): Promise<ChannelOutcome> {
    const target = destinationUrl(destination.webhookUrl, 'The Slack webhook URL');
    if ('refused' in target) return { kind: 'refused', status: null, reason: target.refused };
    const slot = await this.pace.take(destination.webhookUrl, SLACK_PACE, "Slack's pace for this webhook");
    if ('kind' in slot) return slot;
    const body = JSON.stringify({ ...payload, unfurl_links: false, unfurl_media: false });
    const answer = await sendRequest(this.options, target.url.href, { method: 'POST', headers: { 'content-type': 'application/json' }, body }, 'Slack');
    // Slack counts the message when it takes it: the pace runs from its answer.
    slot.at = this.options.clock.now();
    if ('kind' in answer) return answer;
    const said = await answer.text().catch(() => '');
    if (answer.status >= 200 && answer.status < 300) return { kind: 'sent', status: answer.status, providerId: null };
    // Slack's incoming webhooks answer an error as a bare code in plain text (no_service, invalid_token,
    // channel_is_archived, rate_limited): that code, and nothing else of an answer that is not one (a proxy's page).
    const code = /^[a-z][a-z0-9_]{0,63}$/.test(said.trim()) ? said.trim() : undefined;
    return refusalOutcome(answer, answerReason('Slack', answer.status, code), this.options.clock.now());
  }

  /** Posts several payloads in order, each at the webhook's pace, stopping at the first that is not sent. */
  sendRawInOrder(destination: SlackDestination, payloads: readonly SlackRawPayload[]): Promise<SequenceOutcome> {
    return sendInOrder(payloads, (payload) => this.sendRaw(destination, payload));
  }
}
