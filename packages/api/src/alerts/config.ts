import type { EmailStatus } from '@dash/contracts';
import { commaList } from '@dash/webhooks';
import type { Store } from '@dash/db';
import type { CredentialVault } from '../credentials/vault.ts';

/** SendGrid's own API root; SENDGRID_API_URL (or a credential's base URL) points elsewhere: a proxy, the sandbox. */
export const SENDGRID_API_URL = 'https://api.sendgrid.com';

/** The variables that configure email alerts. */
export interface EmailEnvironment {
  SENDGRID_API_KEY?: string | undefined;
  ALERT_EMAIL_FROM?: string | undefined;
  ALERT_EMAIL_TO?: string | undefined;
  SENDGRID_API_URL?: string | undefined;
}

/** Everything a send needs. */
export interface EmailConfig {
  apiKey: string;
  from: string;
  to: string[];
  baseUrl: string;
}

export type ResolvedEmail = { config: EmailConfig | undefined; status: EmailStatus };

/** Any of the variables set: they decide, as DATABASE_URL does. */
const fromEnv = (env: EmailEnvironment) => Boolean(env.SENDGRID_API_KEY || env.ALERT_EMAIL_FROM || env.ALERT_EMAIL_TO);

/** The variables still needed, by name. */
const envMissing = (env: EmailEnvironment) => [
  ...(env.SENDGRID_API_KEY ? [] : ['SENDGRID_API_KEY']),
  ...(env.ALERT_EMAIL_FROM ? [] : ['ALERT_EMAIL_FROM']),
  ...(commaList(env.ALERT_EMAIL_TO).length > 0 ? [] : ['ALERT_EMAIL_TO']),
];

/** The SendGrid credential email uses: `sendgrid`, else the first labelled one (the demo's `sendgrid:demo`). */
const sendgridKeyOf = (keys: readonly string[]): string | undefined =>
  keys.includes('sendgrid') ? 'sendgrid' : keys.find((key) => key.startsWith('sendgrid:'));

/**
 * Whether email can go out, without opening any secret: complete variables, or a SendGrid credential saved (saving
 * requires its key, sender and addresses). Every ingest and tick asks, so it is one key listing at most.
 */
export async function emailReady(env: EmailEnvironment, store: Store): Promise<boolean> {
  if (fromEnv(env)) return envMissing(env).length === 0;
  return sendgridKeyOf(await store.credentials.keys()) !== undefined;
}

/**
 * Where email alerts come from: the variables when any is set (they win, as DATABASE_URL does), else a SendGrid
 * credential saved in settings (`sendgrid`, else the first labelled one: the demo's `sendgrid:demo`).
 */
export async function resolveEmail(env: EmailEnvironment, store: Store, vault: CredentialVault): Promise<ResolvedEmail> {
  if (fromEnv(env)) {
    const to = commaList(env.ALERT_EMAIL_TO);
    const missing = envMissing(env);
    const status: EmailStatus = { configured: missing.length === 0, source: 'env', credentialKey: null, from: env.ALERT_EMAIL_FROM ?? null, to, missing };
    const config =
      missing.length === 0 ? { apiKey: env.SENDGRID_API_KEY ?? '', from: env.ALERT_EMAIL_FROM ?? '', to, baseUrl: env.SENDGRID_API_URL ?? SENDGRID_API_URL } : undefined;
    return { config, status };
  }
  const key = sendgridKeyOf(await store.credentials.keys());
  const sealed = key === undefined ? undefined : await store.credentials.getSealed(key);
  if (key === undefined || sealed === undefined) {
    return {
      config: undefined,
      status: { configured: false, source: null, credentialKey: null, from: null, to: [], missing: ['SENDGRID_API_KEY', 'ALERT_EMAIL_FROM', 'ALERT_EMAIL_TO'] },
    };
  }
  const values = vault.open(key, sealed);
  const to = commaList(values.to);
  const missing = [...(values.apiKey ? [] : ['apiKey']), ...(values.from ? [] : ['from']), ...(to.length > 0 ? [] : ['to'])];
  const status: EmailStatus = { configured: missing.length === 0, source: 'credential', credentialKey: key, from: values.from ?? null, to, missing };
  const config = missing.length === 0 ? { apiKey: values.apiKey ?? '', from: values.from ?? '', to, baseUrl: values.baseUrl || env.SENDGRID_API_URL || SENDGRID_API_URL } : undefined;
  return { config, status };
}
