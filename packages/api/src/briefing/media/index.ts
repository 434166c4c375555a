import type { BriefingMedium, PushPayload } from '@dash/contracts';
import type { DiscordRawPayload } from '../../channels/discord/index.ts';
import type { NtfyRawPayload } from '../../channels/ntfy/index.ts';
import type { SlackRawPayload } from '../../channels/slack/index.ts';
import type { TelegramRawPayload } from '../../channels/telegram/index.ts';
import { discordBriefing } from './discord.ts';
import { ntfyBriefing } from './ntfy.ts';
import type { BriefingRender } from './outline.ts';
import { pushBriefing } from './push.ts';
import { slackBriefing } from './slack.ts';
import { telegramBriefing } from './telegram.ts';
import { webhookBriefing, type BriefingReady } from './webhook.ts';

/**
 * The briefing for each medium but email (briefing/email.ts renders that one), from the one model: what each channel
 * adapter's `sendRaw` (or `sendRawInOrder`, for the media that take several messages) posts, and the push payload.
 */
export type ChatBriefingMedium = Exclude<BriefingMedium, 'email'>;

export interface RenderedBriefing {
  /** One incoming-webhook payload. */
  slack: SlackRawPayload;
  /** Messages of embeds, in order. */
  discord: DiscordRawPayload[];
  /** sendMessage payloads (HTML), in order. */
  telegram: TelegramRawPayload[];
  /** One notification. */
  ntfy: NtfyRawPayload;
  /** The signed webhook's body (`JSON.stringify` it for `sendRaw`'s `body`). */
  webhook: BriefingReady;
  /** What a push carries to the service worker. */
  push: PushPayload;
}

const renderers: { [Medium in ChatBriefingMedium]: (input: BriefingRender) => RenderedBriefing[Medium] } = {
  slack: slackBriefing,
  discord: discordBriefing,
  telegram: telegramBriefing,
  ntfy: ntfyBriefing,
  webhook: webhookBriefing,
  push: pushBriefing,
};

/** The briefing as `medium` sends it: pure, for the destination's parts, period and the dashboard's address. */
export function renderBriefing<Medium extends ChatBriefingMedium>(medium: Medium, input: BriefingRender): RenderedBriefing[Medium] {
  return renderers[medium](input);
}

export type { BriefingRender } from './outline.ts';
export type { BriefingReady, BriefingReadyProject } from './webhook.ts';
