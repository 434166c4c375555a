import { relayIntegrations } from '@dash/webhooks';

/** `GET /api/health`: no auth, the relay's clock in milliseconds. */
export function healthBody(now: number = Date.now()) {
  return { status: 'ok' as const, timestamp: now };
}

export { relayIntegrations };
