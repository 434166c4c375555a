import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { RefusalReason } from '@dash/contracts';
import {
  answerDelivery,
  isJsonType,
  judgeDelivery,
  refusalOf,
  RECEIVE_LIMITS,
  resolveIntegration,
  type Answer,
  type HeaderBag,
  type ReceiveSettings,
  type RelayIntegration,
  type StoreVerdict,
} from '@dash/webhooks';
import type { DeliveryLog } from '../deliveries/log.ts';
import type { Inbox } from './inbox.ts';

export interface LocalDelivery {
  /** The path's `:integration`: a neutral name (`code_host`) or the provider's (`github`). */
  integration: string;
  body: Uint8Array;
  headers: HeaderBag;
  /** The sender's address, for the rate limit. */
  ip: string | undefined;
}

export type LocalAnswer = Omit<Answer, 'status'> & { status: Answer['status'] | 404 | 413 | 415 | 503 };

/**
 * The dashboard's own webhook route, for a dashboard the providers can reach without a relay: the
 * relay's steps and statuses (kill switches, JSON only, the rate limit, replay, freshness, signature,
 * payload) with the same verify and parse, then straight into the inbox, where an event that also
 * comes through the relay is the same notification.
 */
export class LocalWebhooks {
  private readonly rate = new RateLimiterMemory({ points: RECEIVE_LIMITS.webhooksPerMinute, duration: RECEIVE_LIMITS.windowMs / 1000 });
  /** Delivery ids seen lately, with when they may be seen again. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly inbox: Inbox,
    /** The switches and secrets (environment, then those saved in settings), read per delivery so a change applies at once. */
    private readonly settings: () => Promise<ReceiveSettings>,
    private readonly now: () => number = Date.now,
    /** Where what came in is logged (issue 53): deliveries that carried no event, and refusals counted per hour. */
    private readonly deliveries?: DeliveryLog,
  ) {}

  async receive(delivery: LocalDelivery): Promise<LocalAnswer> {
    const integration = resolveIntegration(delivery.integration);
    if (!integration) return refusal(404, 'NOT_FOUND', `Unknown integration "${delivery.integration}"`);
    const refused = async (reason: RefusalReason, answer: LocalAnswer) => {
      await this.deliveries?.countLocal(integration, reason);
      return answer;
    };
    const settings = await this.settings();
    if (!settings.enabled || settings.disabled.has(integration)) return refused('disabled', refusal(503, 'SERVICE_UNAVAILABLE', `Ingestion is disabled for ${integration}`));
    if (delivery.body.byteLength > RECEIVE_LIMITS.bodyBytes) {
      return refused('too_large', refusal(413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${RECEIVE_LIMITS.bodyBytes / 1024} KB`));
    }
    if (!isJsonType(delivery.headers.get('content-type'))) return refused('not_json', refusal(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send application/json'));

    const now = this.now();
    const judgement = judgeDelivery(integration, delivery.body, delivery.headers, settings.secrets[integration], now, { forwardBody: true });
    const verdict = await this.admit(integration, judgement.deliveryId, delivery.ip, judgement.events !== undefined, now);
    const answer = answerDelivery(judgement, verdict);
    // Past the signature, a body that does not parse and one no event comes of are rows of the log (below), not counts.
    const reason = refusalOf(judgement, verdict);
    if (reason !== undefined && reason !== 'invalid_payload' && reason !== 'not_handled') return refused(reason, answer);
    const identity = { integration, deliveryId: judgement.deliveryId, kind: judgement.kind, body: delivery.body };
    // Past the signature, a body that does not parse is logged with it: the owner sees what came and why it was refused.
    if (judgement.parsed && !judgement.parsed.ok) await this.deliveries?.recordEventless(identity, { kind: 'invalid', error: judgement.parsed.error });
    if (answer.status !== 200 || !judgement.events) return answer;
    if (judgement.events.length > 0) await this.inbox.ingest(judgement.events, undefined, { source: 'local' });
    else await this.deliveries?.recordEventless(identity, { kind: 'ignored' });
    // Remembered only once stored: a delivery whose store failed is taken again when the provider retries.
    this.seen.set(`${integration}:${judgement.deliveryId}`, now + RECEIVE_LIMITS.deliveryMemoryMs);
    return answer;
  }

  /** The rate window, then the replay memory. */
  private async admit(integration: RelayIntegration, deliveryId: string, ip: string | undefined, passed: boolean, now: number): Promise<StoreVerdict> {
    try {
      await this.rate.consume(`${integration}:${ip ?? 'unknown'}`);
    } catch (refused) {
      return { outcome: 'rate_limited', retryAfterMs: (refused as { msBeforeNext?: number }).msBeforeNext ?? RECEIVE_LIMITS.windowMs };
    }
    for (const [id, until] of this.seen) if (until <= now) this.seen.delete(id);
    const key = `${integration}:${deliveryId}`;
    if (this.seen.has(key)) return { outcome: 'duplicate' };
    return { outcome: passed ? 'stored' : 'admitted' };
  }
}

const refusal = (status: 404 | 413 | 415 | 503, code: string, message: string): LocalAnswer => ({ status, body: { error: { code, message } } });
