import type { DeliveryRow } from './outbox.ts';

/** The Web Push devices and their sends: their rows, how a send ends, and the interface. */

/**
 * A device that gets Web Push (`push_subscriptions`): the browser's `PushSubscription` and how its pushes went. Its
 * keys (`p256dh`, `auth`) are the device's secrets: sealed by the caller's vault, never seen by the store in clear.
 * Instants are ms UTC.
 */
export interface PushSubscriptionRow {
  id: string;
  name: string;
  /** The browser, as its user agent names it; null when unknown. */
  browser: string | null;
  /**
   * The endpoint's reference: its push service's origin and a digest of it (`https://fcm.googleapis.com/#<digest>`,
   * the API's `endpointRef`), never the endpoint itself, which is sealed with the keys. A row saved before endpoints
   * were sealed holds the endpoint until the dashboard's next start seals it (`reseal`).
   */
  endpoint: string;
  /** The sealed `{ endpoint, p256dh, auth }`; '' once the push service said the subscription is gone. */
  sealedKeys: string;
  /** The browser's `expirationTime`, when it gave one. */
  expirationTime: number | null;
  createdAt: number;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  /** The last failure, in the push service's words (never the keys). */
  lastFailure: string | null;
  /** When the push service answered 404 or 410: the device is listed as removed and never pushed to again. */
  removedAt: number | null;
}

/**
 * A push interruption to one device (`push_sends`): the released push delivery it sends, and how sending it went.
 * `gone`: the push service said the device's subscription no longer exists (404, 410). ms UTC.
 */
export interface PushSendRow {
  id: string;
  subscriptionId: string;
  state: 'queued' | 'delivered' | 'failed' | 'gone';
  attempts: number;
  /** When a queued one is next tried. */
  dueAt: number;
  /** The push service's last HTTP status, when it answered. */
  status: number | null;
  /** The last refusal or failure, in the push service's words. */
  error: string | null;
  createdAt: number;
  sentAt: number | null;
  delivery: DeliveryRow;
}

/** How a claimed push send ended (or when it is tried again). */
export interface PushSendOutcome {
  state: PushSendRow['state'];
  attempts: number;
  dueAt: number;
  status: number | null;
  error: string | null;
  sentAt: number | null;
}

/** Web Push devices (see PushSubscriptionRow). */
export type PushStore = {
  /** Oldest first. */
  list(): Promise<PushSubscriptionRow[]>;
  get(id: string): Promise<PushSubscriptionRow | undefined>;
  /** Adds a device; one with the same endpoint reference (the same browser subscribing again) is replaced. */
  add(row: PushSubscriptionRow): Promise<void>;
  /** False when there was none. */
  remove(id: string): Promise<boolean>;
  /** Removes the device of an endpoint reference (a browser signing out); answers its name, or undefined when there was none. */
  removeEndpoint(endpoint: string): Promise<string | undefined>;
  /** A device's `endpoint` and `sealedKeys` replaced, only while its endpoint is still `from`; nothing else changes. */
  reseal(id: string, from: string, endpoint: string, sealedKeys: string): Promise<void>;
  /** A push the service accepted. */
  succeeded(id: string, at: number): Promise<void>;
  /** A push the service refused or could not take; `reason` is its words. */
  failed(id: string, at: number, reason: string): Promise<void>;
  /** The push service said the subscription is gone (404, 410): its keys are dropped, the row stays to say so. */
  gone(id: string, at: number, reason: string): Promise<void>;
  /**
   * Push interruptions per device: queued when the outbox releases a push delivery (in that transaction, one per
   * device subscribed then), claimed with a lease by the sender of one process, settled as the email sends are.
   */
  sends: {
    /** Claims up to `limit` queued sends due by `now` for `holder` until `now + leaseMs`, soonest due first. */
    claim(holder: string, now: number, leaseMs: number, limit: number): Promise<PushSendRow[]>;
    /**
     * Renews `holder`'s claim on one send until `now + leaseMs`, just before it is sent: false when the claim is lost
     * (its lease ran out mid-batch and another process claimed it, or it was settled), and then it must not be sent.
     */
    hold(id: string, holder: string, now: number, leaseMs: number): Promise<boolean>;
    /** Writes how a claimed send ended, and gives its lease up; nothing when `holder` no longer holds it. */
    settle(id: string, holder: string, outcome: PushSendOutcome): Promise<void>;
    /** The newest sends first. */
    recent(limit: number): Promise<PushSendRow[]>;
    /** When the next queued send is due, or null. */
    nextDue(): Promise<number | null>;
    /** The devices told of a thread's outage (the ones its recovery goes to): by id. */
    toldOf(notificationId: string): Promise<string[]>;
    /** A released push delivery by its id (what a service worker asks for when the push was too large to carry it). */
    delivery(id: string): Promise<DeliveryRow | undefined>;
  };
};
