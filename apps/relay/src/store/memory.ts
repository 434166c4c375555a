import type { RelayEvent } from '@dash/webhooks';
import type { RelayStore } from './types.ts';

interface Positioned {
  position: number;
  event: RelayEvent;
}

/** The store for local use: one process, nothing kept across restarts. Same rules as the Redis scripts. */
export function memoryStore(now: () => number = Date.now): RelayStore {
  const windows = new Map<string, number[]>();
  const deliveries = new Map<string, number>();
  const streams = new Map<string, Positioned[]>();
  const lastPosition = new Map<string, number>();

  const delivered = (key: string) => (deliveries.get(key) ?? 0) > now();

  return {
    kind: 'memory',

    admit({ rateKey, limit, windowMs, deliveryKey }) {
      const at = now();
      const hits = (windows.get(rateKey) ?? []).filter((t) => t > at - windowMs);
      if (hits.length >= limit) {
        windows.set(rateKey, hits);
        return Promise.resolve({ allowed: false, retryAfterMs: (hits[0] ?? at) + windowMs - at, duplicate: false });
      }
      hits.push(at);
      windows.set(rateKey, hits);
      return Promise.resolve({ allowed: true, retryAfterMs: 0, duplicate: deliveryKey !== undefined && delivered(deliveryKey) });
    },

    commit({ deliveryKey, dedupeMs, eventsKey, events }) {
      if (delivered(deliveryKey)) return Promise.resolve(false);
      deliveries.set(deliveryKey, now() + dedupeMs);
      const stream = streams.get(eventsKey) ?? [];
      let position = Math.max(now(), (lastPosition.get(eventsKey) ?? 0) + 1);
      for (const event of events) stream.push({ position: position++, event });
      if (events.length > 0) lastPosition.set(eventsKey, position - 1);
      streams.set(eventsKey, stream);
      return Promise.resolve(true);
    },

    poll({ eventsKey, since, limit, retentionMs }) {
      const kept = (streams.get(eventsKey) ?? []).filter((p) => p.position >= now() - retentionMs);
      streams.set(eventsKey, kept);
      for (const [key, expiresAt] of deliveries) if (expiresAt <= now()) deliveries.delete(key);
      const page = kept.filter((p) => p.position > since).slice(0, limit);
      return Promise.resolve({ events: page.map((p) => p.event), cursor: page.at(-1)?.position ?? since });
    },

    close: () => Promise.resolve(),
  };
}
