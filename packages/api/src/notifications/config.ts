import { commaList, relayIntegrations, type ReceiveSettings, type RelayIntegration } from '@dash/webhooks';
import type { Store } from '@dash/db';
import type { CredentialVault } from '../credentials/vault.ts';
import type { RelayTarget } from './relay-client.ts';

/** What the environment says about the relay and the local webhook route (WEBHOOK_RELAY_URL, RELAY_POLL_SECRET, WEBHOOK_SECRET_*). */
export interface RelayEnvironment {
  url?: string | undefined;
  secret?: string | undefined;
  receive: ReceiveSettings;
  /** How long the deliveries log keeps a webhook's body (WEBHOOK_BODY_RETENTION_HOURS; 24 hours). */
  bodyRetentionMs?: number | undefined;
}

const POLL_SECRET = 'relayPollSecret';
const WEBHOOK_SECRETS = 'webhookSecrets';
/** Meta: `{ url }`, the settings relay URL RELAY_POLL_SECRET was bound to when hosts were first recorded (null: only WEBHOOK_RELAY_URL's). */
const ENV_SECRET_URL = 'relayEnvSecretUrl';

/** The origin (scheme, host, port) of a URL, or undefined when it is not one. */
export function originOf(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** Whether two URLs are on one host (scheme, host and port): where a secret bound to `a` may go. */
export const sameHost = (a: string | null | undefined, b: string | null | undefined): boolean => {
  const origin = originOf(a);
  return origin !== undefined && origin === originOf(b);
};

/**
 * The saved poll secret and the relay URL it was saved for. `url` is undefined for one saved before secrets
 * were bound to a host (bound on the next read to the URL in effect then), '' for one saved with no URL in
 * effect: it is sent nowhere until it is entered again with a URL.
 */
export interface SavedPollSecret {
  secret: string;
  url: string | undefined;
}

/**
 * The relay poll secret and the local route's signing secrets saved in the dashboard: sealed with the
 * credentials key like every credential, never shown back, never sent to the browser. The poll secret is
 * sealed with the relay URL it was saved for, and is only ever sent to that host.
 */
export class RelaySecrets {
  constructor(
    private readonly store: Store,
    private readonly vault: CredentialVault,
  ) {}

  async savedPollSecret(): Promise<SavedPollSecret | undefined> {
    const sealed = await this.store.meta.get(POLL_SECRET);
    if (typeof sealed !== 'string') return undefined;
    const { secret, url } = this.vault.open(POLL_SECRET, sealed);
    return secret ? { secret, url } : undefined;
  }

  /** The saved poll secret, whatever host it is for (a test's check that it is sealed). */
  async pollSecret(): Promise<string | undefined> {
    return (await this.savedPollSecret())?.secret;
  }

  /** Saves the secret for the relay URL `url` ('' for none), or forgets it with null. */
  async setPollSecret(secret: string | null, url = ''): Promise<void> {
    await this.store.meta.put(POLL_SECRET, secret === null ? null : this.vault.seal(POLL_SECRET, { secret, url }));
  }

  /** The host RELAY_POLL_SECRET was bound to when secrets were first bound (see `bindLegacySecrets`), when WEBHOOK_RELAY_URL was not its. */
  async envSecretUrl(): Promise<{ url: string | null } | undefined> {
    const value = await this.store.meta.get(ENV_SECRET_URL);
    return typeof value === 'object' && value !== null && 'url' in value ? { url: typeof value.url === 'string' ? value.url : null } : undefined;
  }

  async setEnvSecretUrl(url: string | null): Promise<void> {
    await this.store.meta.put(ENV_SECRET_URL, { url });
  }

  /** Each integration's saved signing secrets (comma-separated for rotation, as in the environment). */
  async webhookSecrets(): Promise<Partial<Record<RelayIntegration, string>>> {
    const sealed = await this.store.meta.get(WEBHOOK_SECRETS);
    return typeof sealed === 'string' ? this.vault.open(WEBHOOK_SECRETS, sealed) : {};
  }

  async setWebhookSecret(integration: RelayIntegration, secret: string | null): Promise<void> {
    const secrets = await this.webhookSecrets();
    if (secret === null) delete secrets[integration];
    else secrets[integration] = secret;
    await this.store.meta.put(WEBHOOK_SECRETS, this.vault.seal(WEBHOOK_SECRETS, secrets));
  }
}

/**
 * Binds the secrets stored before secrets were bound to a host, once, to the relay URL in effect now (the one
 * they have been sent to): a saved poll secret without a URL, and RELAY_POLL_SECRET when the relay URL in
 * effect is one from settings that is not on WEBHOOK_RELAY_URL's host. From then on neither goes anywhere else.
 */
async function bindLegacySecrets(secrets: RelaySecrets, env: RelayEnvironment, relayUrl: string | null, saved: SavedPollSecret | undefined): Promise<SavedPollSecret | undefined> {
  const inEffect = relayUrl ?? env.url ?? '';
  if (saved && saved.url === undefined) {
    await secrets.setPollSecret(saved.secret, inEffect);
    saved = { ...saved, url: inEffect };
  }
  if ((await secrets.envSecretUrl()) === undefined) {
    await secrets.setEnvSecretUrl(env.secret && relayUrl && !sameHost(relayUrl, env.url) ? relayUrl : null);
  }
  return saved;
}

/** A poll secret that is stored (saved in settings, or RELAY_POLL_SECRET) and the relay URLs whose host it may go to. */
export interface StoredPollSecret {
  secret: string;
  source: 'settings' | 'env';
  hosts: string[];
}

/** The relay URL and poll secret as configured now, each with where it came from. */
export interface RelaySettings {
  url: string | undefined;
  urlSource: 'settings' | 'env' | null;
  /** The stored secret that may go to `url`'s host; undefined when none may. */
  secret: string | undefined;
  /** Where `secret` comes from; without a URL, where a stored one is. */
  secretSource: 'settings' | 'env' | null;
  /** Every stored poll secret, the saved one first. */
  stored: StoredPollSecret[];
}

/** The stored secret that may be sent to `url`: one saved for (or, RELAY_POLL_SECRET, configured with) a URL on its host. */
export const storedSecretFor = (stored: readonly StoredPollSecret[], url: string): StoredPollSecret | undefined =>
  stored.find((candidate) => candidate.hosts.some((host) => sameHost(host, url)));

const describeHosts = (stored: StoredPollSecret) =>
  `${stored.source === 'env' ? 'RELAY_POLL_SECRET' : 'the saved poll secret'} is only sent to ${stored.hosts.map(originOf).filter(Boolean).join(' and ') || 'the relay URL it is saved with'}`;

/**
 * Why `url` may not become the relay URL: a poll secret is stored and none of them was saved for its host.
 * Entering the secret again with the URL (relay.saveSecret {secret, url}) is the way to move it.
 */
export function relayUrlRefusal(settings: RelaySettings, url: string): string | undefined {
  const first = settings.stored[0];
  if (!first || storedSecretFor(settings.stored, url)) return undefined;
  return `Enter the poll secret again for the new host ${originOf(url) ?? url}: ${describeHosts(first)}. Save the URL and its secret together in Settings → Relay.`;
}

/** For the status: a stored secret that does not go to the relay URL in effect, and what to do. */
export function secretNote(settings: RelaySettings): string | null {
  const first = settings.stored[0];
  if (!settings.url || settings.secret || !first) return null;
  const hosts = describeHosts(first);
  return `${hosts.charAt(0).toUpperCase()}${hosts.slice(1)}: enter the poll secret again for ${originOf(settings.url) ?? settings.url}.`;
}

/**
 * What `relay.test` may use: the URL to test and the secret for it. A URL other than the saved one gets only
 * the secret given with it, or a stored one saved for its host; with a secret stored for another host and
 * none given, the test is refused rather than made with it.
 */
export function testTarget(settings: RelaySettings, input: { url?: string | undefined; secret?: string | undefined }): { url: string | undefined; secret: string | undefined } | { refused: string } {
  if (input.url === undefined) return { url: settings.url, secret: input.secret ?? settings.secret };
  if (input.secret !== undefined) return { url: input.url, secret: input.secret };
  const stored = storedSecretFor(settings.stored, input.url);
  if (stored) return { url: input.url, secret: stored.secret };
  const first = settings.stored[0];
  if (first) return { refused: `Enter the poll secret to test ${originOf(input.url) ?? input.url}: ${describeHosts(first)}.` };
  return { url: input.url, secret: undefined };
}

/**
 * `relayUrl` from settings over WEBHOOK_RELAY_URL; the saved secret over RELAY_POLL_SECRET, each only for the host
 * it was saved (or configured) with: the saved one for the relay URL in effect when it was saved, the
 * environment's for WEBHOOK_RELAY_URL.
 */
export async function relaySettings(store: Store, secrets: RelaySecrets, env: RelayEnvironment): Promise<RelaySettings> {
  const [{ relayUrl }, found] = await Promise.all([store.settings.get(), secrets.savedPollSecret()]);
  const saved = await bindLegacySecrets(secrets, env, relayUrl, found);
  const envBound = env.secret ? (await secrets.envSecretUrl())?.url : undefined;
  const stored: StoredPollSecret[] = [
    ...(saved ? [{ secret: saved.secret, source: 'settings' as const, hosts: saved.url ? [saved.url] : [] }] : []),
    ...(env.secret ? [{ secret: env.secret, source: 'env' as const, hosts: [env.url, envBound].filter((url): url is string => Boolean(url)) }] : []),
  ];
  const url = relayUrl ?? env.url;
  const applies = url ? storedSecretFor(stored, url) : undefined;
  return {
    url,
    urlSource: relayUrl ? 'settings' : env.url ? 'env' : null,
    secret: applies?.secret,
    secretSource: applies?.source ?? (url ? null : (stored[0]?.source ?? null)),
    stored,
  };
}

/**
 * Saves the poll secret for `url` (also made the relay URL in settings) or, without one, for the relay URL in
 * effect now: the host it will ever be sent to.
 */
export async function saveRelaySecret(store: Store, secrets: RelaySecrets, env: RelayEnvironment, secret: string, url?: string): Promise<void> {
  const inEffect = url ?? (await store.settings.get()).relayUrl ?? env.url ?? '';
  // The secret is bound first: a URL that then failed to save would only leave it unused.
  await secrets.setPollSecret(secret, inEffect);
  if (url !== undefined) await store.settings.update({ relayUrl: url });
}

/** What to poll: both the URL and the secret, or undefined (not configured). */
export const targetOf = ({ url, secret }: RelaySettings): RelayTarget | undefined => (url && secret ? { url, secret } : undefined);

/** The relay as configured now, or undefined. */
export async function relayTarget(store: Store, secrets: RelaySecrets, env: RelayEnvironment): Promise<RelayTarget | undefined> {
  return targetOf(await relaySettings(store, secrets, env));
}

/** The local route's switches from the environment, with the signing secrets saved in settings tried first. */
export async function receiveSettings(secrets: RelaySecrets, env: RelayEnvironment): Promise<ReceiveSettings> {
  const saved = await secrets.webhookSecrets();
  return {
    ...env.receive,
    secrets: Object.fromEntries(relayIntegrations.map((i) => [i, [...commaList(saved[i]), ...env.receive.secrets[i]]])) as Record<RelayIntegration, string[]>,
  };
}
