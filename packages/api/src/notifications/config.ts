import { commaList, relayIntegrations, type ReceiveSettings, type RelayIntegration } from '@dash/webhooks';
import type { Store } from '@dash/db';
import type { CredentialVault } from '../credentials/vault.ts';
import type { RelayTarget } from './relay-client.ts';

/** What the environment says about the relay and the local webhook route (WEBHOOK_RELAY_URL, RELAY_POLL_SECRET, WEBHOOK_SECRET_*). */
export interface RelayEnvironment {
  url?: string | undefined;
  secret?: string | undefined;
  receive: ReceiveSettings;
}

const POLL_SECRET = 'relayPollSecret';
const WEBHOOK_SECRETS = 'webhookSecrets';

/**
 * The relay poll secret and the local route's signing secrets saved in the dashboard: sealed with the
 * credentials key like every credential, never shown back, never sent to the browser.
 */
export class RelaySecrets {
  constructor(
    private readonly store: Store,
    private readonly vault: CredentialVault,
  ) {}

  async pollSecret(): Promise<string | undefined> {
    const sealed = await this.store.meta.get(POLL_SECRET);
    return typeof sealed === 'string' ? this.vault.open(POLL_SECRET, sealed).secret : undefined;
  }

  async setPollSecret(secret: string | null): Promise<void> {
    await this.store.meta.put(POLL_SECRET, secret === null ? null : this.vault.seal(POLL_SECRET, { secret }));
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

/** The relay URL and poll secret as configured now, each with where it came from. */
export interface RelaySettings {
  url: string | undefined;
  urlSource: 'settings' | 'env' | null;
  secret: string | undefined;
  secretSource: 'settings' | 'env' | null;
}

/** `relayUrl` from settings over WEBHOOK_RELAY_URL, the saved secret over RELAY_POLL_SECRET. */
export async function relaySettings(store: Store, secrets: RelaySecrets, env: RelayEnvironment): Promise<RelaySettings> {
  const [{ relayUrl }, saved] = await Promise.all([store.settings.get(), secrets.pollSecret()]);
  return {
    url: relayUrl ?? env.url,
    urlSource: relayUrl ? 'settings' : env.url ? 'env' : null,
    secret: saved ?? env.secret,
    secretSource: saved ? 'settings' : env.secret ? 'env' : null,
  };
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
