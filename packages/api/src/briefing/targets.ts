import type { BriefingMedium, PushPayload } from '@dash/contracts';
import type { Clock } from '@dash/connectors';
import type { ChannelConnectionRow, Store } from '@dash/db';
import type { ChannelOutcome } from '../channels/channel.ts';
import type { ChannelConnections, RawChannelPayload } from '../channels/connections.ts';
import type { PushDevices } from '../push/devices.ts';
import type { BriefingMedia, BriefingTarget, PostOutcome } from './courier.ts';
import { renderBriefing, type BriefingRender } from './media/index.ts';

/**
 * The briefing's destinations as the dashboard has them: each chat or webhook connection (`chat:<id>`) and each push
 * device (`push:<id>`), each briefing rendered for its medium (media/) and posted through the connection's adapter or
 * the push service, with what the service answered written on the connection or device as an alert's is.
 */

/** A briefing waits on a device's push service at most this long (seconds): a day's briefing is stale after. */
const PUSH_TTL_S = 12 * 3_600;

type ChatMessage = RawChannelPayload;
type PushMessage = { kind: 'push'; payload: PushPayload };

export function briefingMedia(options: { store: Store; clock: Clock; channels: ChannelConnections; push: PushDevices }): BriefingMedia {
  const { store, clock, channels, push } = options;
  return {
    async targets() {
      const [connections, devices] = await Promise.all([store.channels.list(), store.push.list()]);
      return [
        ...connections.map((row): BriefingTarget => ({ id: `chat:${row.id}`, medium: row.kind, name: row.name })),
        ...devices.filter((row) => row.removedAt === null).map((row): BriefingTarget => ({ id: `push:${row.id}`, medium: 'push', name: row.name })),
      ];
    },

    render(target, input) {
      return rendered(target.medium, input);
    },

    async post(target, message) {
      const [kind, id = ''] = splitId(target.id);
      if (kind === 'push') {
        const device = await store.push.get(id);
        if (!device || device.removedAt !== null) return { kind: 'refused', reason: 'The device was removed' };
        const { payload } = message as PushMessage;
        const outcome = await push.deliver(device, { payload: JSON.stringify(payload), ttl: PUSH_TTL_S, urgency: 'normal', topic: payload.tag });
        if (outcome.kind === 'sent') await store.push.succeeded(device.id, clock.now());
        return postOutcome(outcome);
      }
      const row: ChannelConnectionRow | undefined = await store.channels.get(id);
      if (!row) return { kind: 'refused', reason: 'The connection was removed' };
      return postOutcome(await channels.sendRaw(row, message as ChatMessage));
    },
  };
}

/** The messages of one briefing for a medium, in the order they are posted. */
function rendered(medium: Exclude<BriefingMedium, 'email'>, input: BriefingRender): (ChatMessage | PushMessage)[] {
  switch (medium) {
    case 'slack':
      return [{ kind: 'slack', payload: renderBriefing('slack', input) }];
    case 'discord':
      return renderBriefing('discord', input).map((payload) => ({ kind: 'discord', payload }));
    case 'telegram':
      return renderBriefing('telegram', input).map((payload) => ({ kind: 'telegram', payload }));
    case 'ntfy':
      return [{ kind: 'ntfy', payload: renderBriefing('ntfy', input) }];
    case 'webhook': {
      // The webhook-id receivers dedupe on: one per briefing (its period and window), the same on every try.
      const id = `briefing_${input.period}_${input.briefing.window.until.replace(/\D/g, '')}`;
      return [{ kind: 'webhook', payload: { id, body: JSON.stringify(renderBriefing('webhook', input)) } }];
    }
    case 'push':
      return [{ kind: 'push', payload: renderBriefing('push', input) }];
  }
}

function splitId(id: string): [string, string | undefined] {
  const at = id.indexOf(':');
  return at < 0 ? [id, undefined] : [id.slice(0, at), id.slice(at + 1)];
}

/** A channel's or push service's answer as the courier records it: a 429, a 5xx or no answer is tried again later. */
function postOutcome(outcome: Pick<ChannelOutcome, 'kind'> & { reason?: string }): PostOutcome {
  if (outcome.kind === 'sent') return { kind: 'sent' };
  return { kind: outcome.kind === 'retry' ? 'retry' : 'refused', reason: outcome.reason ?? 'refused' };
}
