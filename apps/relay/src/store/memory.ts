import type { RelayEvent } from '@dash/webhooks';
import { noticeBoard } from './notices.ts';
import type { RateCheck, RelayStore, TenantRecord } from './types.ts';

interface Positioned {
  position: number;
  event: RelayEvent;
}

/**
 * The store for local use: one process, nothing kept across restarts. Same rules as the Redis scripts;
 * long polls are woken within the process.
 */
export function memoryStore(now: () => number = Date.now): RelayStore {
  const windows = new Map<string, number[]>();
  const deliveries = new Map<string, number>();
  const streams = new Map<string, Positioned[]>();
  const lastPosition = new Map<string, number>();
  const tenants = new Map<string, TenantRecord>();
  const countHashes = new Map<string, { fields: Map<string, number>; expiresAt: number }>();
  const board = noticeBoard();

  const delivered = (key: string) => (deliveries.get(key) ?? 0) > now();

  function countHit({ rateKey, limit, windowMs }: { rateKey: string; limit: number; windowMs: number }): RateCheck {
    const at = now();
    const hits = (windows.get(rateKey) ?? []).filter((t) => t > at - windowMs);
    windows.set(rateKey, hits);
    if (hits.length >= limit) return { allowed: false, retryAfterMs: (hits[0] ?? at) + windowMs - at };
    hits.push(at);
    return { allowed: true, retryAfterMs: 0, ticket: String(at) };
  }

  return {
    kind: 'memory',

    limit: (options) => Promise.resolve(countHit(options)),

    refund({ rateKey, ticket }) {
      const hits = windows.get(rateKey) ?? [];
      const index = hits.lastIndexOf(Number(ticket));
      if (index >= 0) hits.splice(index, 1);
      return Promise.resolve();
    },

    ingest({ deliveryKey, dedupeMs, eventsKey, events, ...rate }) {
      const check = countHit(rate);
      if (!check.allowed) return Promise.resolve({ outcome: 'rate_limited', retryAfterMs: check.retryAfterMs });
      if (delivered(deliveryKey)) return Promise.resolve({ outcome: 'duplicate' });
      if (!events) return Promise.resolve({ outcome: 'admitted' });
      deliveries.set(deliveryKey, now() + dedupeMs);
      const stream = streams.get(eventsKey) ?? [];
      let position = Math.max(now(), (lastPosition.get(eventsKey) ?? 0) + 1);
      for (const event of events) stream.push({ position: position++, event });
      streams.set(eventsKey, stream);
      if (events.length > 0) {
        lastPosition.set(eventsKey, position - 1);
        board.notify(eventsKey);
      }
      return Promise.resolve({ outcome: 'stored' });
    },

    tenants: {
      create(record) {
        if (tenants.has(record.id)) return Promise.resolve(false);
        tenants.set(record.id, structuredClone(record));
        return Promise.resolve(true);
      },
      get: (id) => Promise.resolve(structuredClone(tenants.get(id))),
      list: () => Promise.resolve([...tenants.values()].map((t) => structuredClone(t))),
      replace(record) {
        if (!tenants.has(record.id)) return Promise.resolve(false);
        tenants.set(record.id, structuredClone(record));
        return Promise.resolve(true);
      },
      remove(id, { eventsKey, countKeys }) {
        streams.delete(eventsKey);
        lastPosition.delete(eventsKey);
        for (const key of countKeys) countHashes.delete(key);
        return Promise.resolve(tenants.delete(id));
      },
    },

    addCounts(increments, ttlMs) {
      for (const [key, hash] of countHashes) if (hash.expiresAt <= now()) countHashes.delete(key);
      for (const { key, field, by } of increments) {
        const hash = countHashes.get(key) ?? { fields: new Map<string, number>(), expiresAt: 0 };
        hash.fields.set(field, (hash.fields.get(field) ?? 0) + by);
        hash.expiresAt = now() + ttlMs;
        countHashes.set(key, hash);
      }
      return Promise.resolve();
    },

    counts(keys) {
      return Promise.resolve(
        keys.map((key) => {
          const hash = countHashes.get(key);
          return hash && hash.expiresAt > now() ? Object.fromEntries(hash.fields) : {};
        }),
      );
    },

    poll({ eventsKey, since, limit, retentionMs }) {
      const kept = (streams.get(eventsKey) ?? []).filter((p) => p.position >= now() - retentionMs);
      streams.set(eventsKey, kept);
      for (const [key, expiresAt] of deliveries) if (expiresAt <= now()) deliveries.delete(key);
      const page = kept.filter((p) => p.position > since).slice(0, limit);
      return Promise.resolve({ events: page.map((p) => p.event), cursor: page.at(-1)?.position ?? since });
    },

    notices: board.notices,

    close: () => {
      board.notices.end();
      return Promise.resolve();
    },
  };
}
