import { createECDH, createHash, randomUUID } from 'node:crypto';
import type { PushDevice, PushPayload, PushSubscribe, PushTestResult } from '@dash/contracts';
import { refusedBaseUrl, type Clock } from '@dash/connectors';
import type { PushSubscriptionRow, Store } from '@dash/db';
import { z } from 'zod';
import type { CredentialVault } from '../credentials/vault.ts';
import { fail } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { endpointRef, isEndpointRef, pushServiceOf, type PushMessage, type PushOutcome, type WebPushAdapter } from './adapter.ts';
import { NO_CONTACT, PushContacts } from './contact.ts';
import { pushAddressScope, type PushEnvironment, type VapidKeys } from './vapid-keys.ts';

/** The name a device's keys are sealed under (with its id: a sealed value cannot be moved to another row). */
const sealName = (id: string) => `push:${id}`;
/** What is sealed: the endpoint (a capability, see `endpointRef`) and the keys; a device saved before has no endpoint in it. */
const sealedSchema = z.object({ endpoint: z.string().optional(), p256dh: z.string(), auth: z.string() });

/** Whether `p256dh` is a point on P-256 (a 65-byte string of anything else would fail every push, silently). */
export function isP256Point(p256dh: string): boolean {
  try {
    // ECDH with a throwaway key: OpenSSL refuses a point that is not on the curve.
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    ecdh.computeSecret(Buffer.from(p256dh, 'base64url'));
    return true;
  } catch {
    return false;
  }
}

/** "Firefox on Android", "Safari on iPhone", from a user agent; null when it says nothing we know. */
export function browserOf(userAgent: string | undefined): string | null {
  if (!userAgent) return null;
  const browser = /Edg(e|A|iOS)?\//.test(userAgent)
    ? 'Edge'
    : /Firefox\/|FxiOS\//.test(userAgent)
      ? 'Firefox'
      : /OPR\//.test(userAgent)
        ? 'Opera'
        : /Chrome\/|CriOS\//.test(userAgent)
          ? 'Chrome'
          : /Safari\//.test(userAgent)
            ? 'Safari'
            : undefined;
  const platform = /Android/.test(userAgent)
    ? 'Android'
    : /iPhone/.test(userAgent)
      ? 'iPhone'
      : /iPad/.test(userAgent)
        ? 'iPad'
        : /Mac OS X|Macintosh/.test(userAgent)
          ? 'macOS'
          : /Windows/.test(userAgent)
            ? 'Windows'
            : /Linux|CrOS/.test(userAgent)
              ? 'Linux'
              : undefined;
  if (!browser) return platform ?? null;
  return platform ? `${browser} on ${platform}` : browser;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A device as Settings sees it: never its keys, and of its endpoint only the push service's host. */
export function deviceOf(row: PushSubscriptionRow): PushDevice {
  return {
    id: row.id,
    name: row.name,
    browser: row.browser,
    pushService: pushServiceOf(row.endpoint),
    createdAt: new Date(row.createdAt).toISOString(),
    expiresAt: iso(row.expirationTime),
    lastSuccessAt: iso(row.lastSuccessAt),
    lastFailureAt: iso(row.lastFailureAt),
    lastFailure: row.lastFailure,
    removedAt: iso(row.removedAt),
  };
}

/** A test: asked for with the device in hand, so it goes now (`high`) and is worthless after a couple of minutes. */
export const TEST_PUSH: Omit<PushMessage, 'payload'> = { ttl: 120, urgency: 'high', topic: 'dashboard-push-test' };

/**
 * The Web Push devices: subscribing one (its keys sealed), listing them, removing one, and the test push. Sending
 * goes through the adapter; what the push service answers is written on the device (404/410 remove it).
 */
export class PushDevices {
  /** The contact push services may write to: VAPID_SUBJECT, the address saved in Settings, an alert address, an https origin. */
  readonly contact: PushContacts;

  constructor(
    private readonly options: {
      store: Store;
      vault: CredentialVault;
      keys: VapidKeys;
      adapter: WebPushAdapter;
      env: PushEnvironment;
      clock: Clock;
      log: Logger;
      /** The first alert address, for the VAPID subject's default. */
      alertAddress: () => Promise<string | undefined>;
      /** The dashboard's public origin, when known. */
      origin: string | undefined;
    },
  ) {
    const { store, vault, env, log, alertAddress, origin } = options;
    this.contact = new PushContacts({ store, vault, env, log, alertAddress, origin });
  }

  /** The VAPID public key, as `applicationServerKey` takes it. */
  async publicKey(): Promise<string> {
    return (await this.options.keys.get()).publicKey;
  }

  /**
   * Stores a browser's subscription (replacing one of the same endpoint). The endpoint's scheme was checked by the
   * input schema; here the address guard and the key's curve, before anything is stored. A push endpoint is a browser's
   * push service, on the internet: a literal loopback, private, link-local or shared (CGNAT) IP is refused unless
   * PUSH_ALLOW_PRIVATE_ENDPOINTS; a name resolving to one is refused at connect time (the adapter's fetch).
   */
  async subscribe(input: PushSubscribe, userAgent: string | undefined): Promise<PushDevice> {
    const refused = refusedBaseUrl(input.endpoint, pushAddressScope(this.options.env));
    if (refused) throw fail('BAD_REQUEST', `endpoint: ${refused}`);
    if (!isP256Point(input.keys.p256dh)) throw fail('BAD_REQUEST', 'keys.p256dh is not a point on the P-256 curve');
    const { store, vault, clock, log } = this.options;
    const id = randomUUID();
    const row: PushSubscriptionRow = {
      id,
      name: input.name,
      browser: browserOf(userAgent)?.slice(0, 80) ?? null,
      endpoint: endpointRef(input.endpoint),
      sealedKeys: vault.seal(sealName(id), { endpoint: input.endpoint, p256dh: input.keys.p256dh, auth: input.keys.auth }),
      expirationTime: input.expirationTime ?? null,
      createdAt: clock.now(),
      lastSuccessAt: null,
      lastFailureAt: null,
      lastFailure: null,
      removedAt: null,
    };
    await store.push.add(row);
    log.info(`push: device "${row.name}" subscribed through ${pushServiceOf(row.endpoint)}`);
    return deviceOf(row);
  }

  /**
   * Seals the endpoint of each device saved before endpoints were sealed (with its keys), keeping only its reference
   * in clear: run at each start, so neither the store nor an export holds one. A device whose keys are gone (or do
   * not open) keeps only the reference: it cannot be pushed to anyway.
   */
  async sealEndpoints(): Promise<number> {
    const { store, vault, log } = this.options;
    let sealed = 0;
    for (const row of await store.push.list()) {
      if (isEndpointRef(row.endpoint)) continue;
      let keys: string = row.sealedKeys;
      if (keys !== '') {
        try {
          keys = vault.seal(sealName(row.id), { ...sealedSchema.parse(vault.open(sealName(row.id), row.sealedKeys)), endpoint: row.endpoint });
        } catch {
          // Keys this key cannot open: they stay as they are, and the endpoint goes.
        }
      }
      await store.push.reseal(row.id, row.endpoint, endpointRef(row.endpoint), keys);
      sealed += 1;
    }
    if (sealed > 0) log.info(`push: the endpoints of ${sealed} device${sealed === 1 ? '' : 's'} sealed with their keys`);
    return sealed;
  }

  async list(): Promise<PushDevice[]> {
    return (await this.options.store.push.list()).map(deviceOf);
  }

  async remove(id: string): Promise<boolean> {
    return this.options.store.push.remove(id);
  }

  /** The devices a test goes to: one (404 when unknown), or every one not removed. */
  async testTargets(id: string | undefined): Promise<PushSubscriptionRow[]> {
    if (id === undefined) return (await this.options.store.push.list()).filter((row) => row.removedAt === null);
    const row = await this.options.store.push.get(id);
    if (!row) throw fail('NOT_FOUND', `No device ${id}`);
    return [row];
  }

  /** A test push to each device, one after another; each device's answer is written on it. */
  async test(rows: readonly PushSubscriptionRow[]): Promise<PushTestResult[]> {
    const test: PushPayload = {
      kind: 'test',
      notificationId: null,
      title: 'Test from your founder dashboard',
      body: 'Push works on this device: outages and failed deploys can reach it.',
      severity: 'info',
      tag: 'dashboard-push-test',
      url: '/',
      renotify: true,
      requireInteraction: false,
    };
    const payload = JSON.stringify(test);
    const results: PushTestResult[] = [];
    for (const row of rows) results.push(await this.sendTo(row, { ...TEST_PUSH, payload }));
    return results;
  }

  private async sendTo(row: PushSubscriptionRow, message: PushMessage): Promise<PushTestResult> {
    const { store, clock, log } = this.options;
    const base = { id: row.id, name: row.name };
    if (row.removedAt !== null) {
      return { ...base, outcome: 'gone', status: null, retryAt: null, message: 'The push service said this subscription is gone: subscribe the device again' };
    }
    const waiting = await this.waitingFor(row.endpoint);
    if (waiting !== undefined) {
      return { ...base, outcome: 'retry', status: null, retryAt: iso(waiting), message: `${pushServiceOf(row.endpoint)} asked to wait until ${iso(waiting)}` };
    }
    const outcome = await this.deliver(row, message);
    const now = clock.now();
    log.info(`push: test to "${row.name}" (${pushServiceOf(row.endpoint)}): ${outcome.kind}${outcome.status === null ? '' : ` ${outcome.status}`}`);
    switch (outcome.kind) {
      case 'sent':
        await store.push.succeeded(row.id, now);
        return { ...base, outcome: 'sent', status: outcome.status, retryAt: null, message: `${pushServiceOf(row.endpoint)} accepted it` };
      case 'gone':
        await store.push.gone(row.id, now, outcome.reason);
        return { ...base, outcome: 'gone', status: outcome.status, retryAt: null, message: `${outcome.reason}: the device was removed` };
      case 'retry': {
        const retryAt = now + outcome.afterMs;
        await this.holdBack(row.endpoint, retryAt);
        await store.push.failed(row.id, now, outcome.reason);
        return { ...base, outcome: 'retry', status: outcome.status, retryAt: iso(retryAt), message: outcome.reason };
      }
      case 'refused':
        await store.push.failed(row.id, now, outcome.reason);
        return { ...base, outcome: 'refused', status: outcome.status, retryAt: null, message: outcome.reason };
    }
  }

  /**
   * Until when the push service of `endpoint` asked us to wait (its last 429 or 5xx), or undefined. Kept in the store,
   * per service (origin), so every process of the dashboard honours it, not only the one that was told.
   */
  async waitingFor(endpoint: string): Promise<number | undefined> {
    const until = await this.options.store.meta.get(waitKey(endpoint));
    return typeof until === 'number' && until > this.options.clock.now() ? until : undefined;
  }

  /** No push to the push service of `endpoint` before `until` (its Retry-After), from any process. */
  async holdBack(endpoint: string, until: number): Promise<void> {
    const already = await this.waitingFor(endpoint);
    if (already === undefined || until > already) await this.options.store.meta.put(waitKey(endpoint), until);
  }

  /** Encrypts and signs `message` for a device and hands it to its push service; answers what the service said. */
  async deliver(row: PushSubscriptionRow, message: PushMessage): Promise<PushOutcome> {
    const { vault, keys, adapter } = this.options;
    const { subject } = (await this.contact.resolve()) ?? {};
    if (!subject) return { kind: 'refused', status: null, reason: NO_CONTACT };
    const { endpoint = isEndpointRef(row.endpoint) ? undefined : row.endpoint, p256dh, auth } = sealedSchema.parse(vault.open(sealName(row.id), row.sealedKeys));
    if (endpoint === undefined) return { kind: 'refused', status: null, reason: 'The device’s endpoint was not kept: subscribe the device again' };
    return adapter.send({ endpoint, keys: { p256dh, auth } }, message, { ...(await keys.get()), subject });
  }
}

/**
 * The store's key for a push service's pause: one per service (a handful: FCM, Mozilla's, Apple's…), by a hash of its
 * origin (an origin may be longer than a settings key can be).
 */
const waitKey = (endpoint: string) => `push.waitUntil.${createHash('sha256').update(originOf(endpoint)).digest('base64url').slice(0, 22)}`;

function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return endpoint;
  }
}
