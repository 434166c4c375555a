import { createECDH, randomUUID } from 'node:crypto';
import type { PushContactSource } from '@dash/contracts';
import type { AddressScope, Clock } from '@dash/connectors';
import type { Store } from '@dash/db';
import { z } from 'zod';
import type { CredentialVault } from '../credentials/vault.ts';

/** VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, VAPID_SUBJECT: keys from the environment win over the stored ones. */
export interface PushEnvironment {
  VAPID_PUBLIC_KEY?: string | undefined;
  VAPID_PRIVATE_KEY?: string | undefined;
  VAPID_SUBJECT?: string | undefined;
  /**
   * PUSH_ALLOW_PRIVATE_ENDPOINTS=true: a push endpoint may be on loopback or a private, link-local or shared address
   * (tests, a private push service). Unset, only a public address: a push endpoint is a browser's push service.
   */
  PUSH_ALLOW_PRIVATE_ENDPOINTS?: boolean | undefined;
}

/** Which addresses a push endpoint may have, by PUSH_ALLOW_PRIVATE_ENDPOINTS (cloud metadata never). */
export const pushAddressScope = (env: PushEnvironment): AddressScope => (env.PUSH_ALLOW_PRIVATE_ENDPOINTS === true ? 'upstream' : 'public');

/** The application server's VAPID key pair (RFC 8292), base64url: the raw private scalar and the uncompressed point. */
export interface VapidKeyPair {
  publicKey: string;
  privateKey: string;
}

/** Meta row: the pair, sealed with the credentials key as every secret. */
const META_KEY = 'vapidKeys';
const LEASE = 'vapid-keys';
const storedSchema = z.object({ publicKey: z.string(), privateKey: z.string() });

/** A new P-256 pair, as `applicationServerKey` and web-push's `vapidDetails` take it. */
export function newVapidKeys(): VapidKeyPair {
  const ecdh = createECDH('prime256v1');
  const publicKey = ecdh.generateKeys();
  // The scalar may have leading zero bytes dropped; web-push wants 32 bytes.
  const privateKey = Buffer.alloc(32);
  const scalar = ecdh.getPrivateKey();
  scalar.copy(privateKey, 32 - scalar.length);
  return { publicKey: publicKey.toString('base64url'), privateKey: privateKey.toString('base64url') };
}

/** Why a pair is not one (not base64url P-256, or a public key that is not the private key's), or undefined. */
export function vapidPairProblem({ publicKey, privateKey }: VapidKeyPair): string | undefined {
  const scalar = Buffer.from(privateKey, 'base64url');
  if (scalar.length !== 32) return 'VAPID_PRIVATE_KEY is a P-256 private key: 32 bytes, base64url';
  const point = Buffer.from(publicKey, 'base64url');
  if (point.length !== 65 || point[0] !== 4) return 'VAPID_PUBLIC_KEY is an uncompressed P-256 point: 65 bytes, base64url';
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(scalar);
    if (!ecdh.getPublicKey().equals(point)) return 'VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY';
  } catch (error) {
    return `VAPID_PRIVATE_KEY is not a P-256 private key: ${(error as Error).message}`;
  }
  return undefined;
}

/**
 * The dashboard's VAPID keys: VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY when set, else a pair made on first use and kept in
 * the store, sealed. Several processes on one database make one pair between them (under a lease): every device is
 * subscribed to this key, so it must not change under them.
 */
export class VapidKeys {
  private pair: Promise<VapidKeyPair> | undefined;

  constructor(
    private readonly options: { store: Store; vault: CredentialVault; env: PushEnvironment; clock: Clock },
  ) {}

  /** The pair in effect, made and stored once when there is none. */
  get(): Promise<VapidKeyPair> {
    this.pair ??= this.load().catch((error: unknown) => {
      this.pair = undefined;
      throw error;
    });
    return this.pair;
  }

  /** Whether the environment sets the keys (then the stored pair, if any, is not used). */
  get fromEnv(): boolean {
    return Boolean(this.options.env.VAPID_PUBLIC_KEY || this.options.env.VAPID_PRIVATE_KEY);
  }

  private async load(): Promise<VapidKeyPair> {
    const { env, store, clock } = this.options;
    if (this.fromEnv) {
      const pair = { publicKey: env.VAPID_PUBLIC_KEY ?? '', privateKey: env.VAPID_PRIVATE_KEY ?? '' };
      const problem = vapidPairProblem(pair);
      if (problem) throw new Error(problem);
      return pair;
    }
    const holder = randomUUID();
    for (let attempt = 0; attempt < 50; attempt++) {
      const stored = await this.stored();
      if (stored) return stored;
      if (await store.leases.acquire(LEASE, holder, 10_000, new Date(clock.now()).toISOString())) {
        try {
          const again = await this.stored();
          if (again) return again;
          const pair = newVapidKeys();
          await store.meta.put(META_KEY, this.options.vault.seal(META_KEY, { ...pair }));
          return pair;
        } finally {
          await store.leases.release(LEASE, holder);
        }
      }
      // Another process is making them: read what it stored in a moment.
      await clock.sleep(100);
    }
    throw new Error('VAPID keys: another process held the lease to make them for too long');
  }

  private async stored(): Promise<VapidKeyPair | undefined> {
    const sealed = await this.options.store.meta.get(META_KEY);
    if (typeof sealed !== 'string') return undefined;
    return storedSchema.parse(this.options.vault.open(META_KEY, sealed));
  }
}

/** Where a contact may come from besides VAPID_SUBJECT, each only when there is one. */
export interface ContactCandidates {
  /** The address saved in Settings → Notifications → Devices. */
  saved?: string | undefined;
  /** The first alert address. */
  alertAddress?: string | undefined;
  /** The dashboard's public origin. */
  origin?: string | undefined;
}

/**
 * The contact a push service may write to about our pushes (RFC 8292's `sub`) and where it came from: VAPID_SUBJECT,
 * else a `mailto:` of the address saved in Settings, else of the first alert address, else the dashboard's origin when
 * it is https (push services take only `mailto:` and `https:`); undefined when there is none.
 */
export function vapidSubject(env: PushEnvironment, { saved, alertAddress, origin }: ContactCandidates): { subject: string; source: PushContactSource } | undefined {
  if (env.VAPID_SUBJECT) return { subject: env.VAPID_SUBJECT, source: 'env' };
  if (saved) return { subject: `mailto:${saved}`, source: 'saved' };
  if (alertAddress) return { subject: `mailto:${alertAddress}`, source: 'alert_email' };
  if (origin?.startsWith('https://')) return { subject: origin, source: 'origin' };
  return undefined;
}
