import { z } from 'zod';
import { ownerPasswordSchema } from './auth.ts';

export interface CredentialField {
  name: string;
  label: string;
  /** Shown as a password field; every value is stored encrypted either way. */
  secret: boolean;
  optional?: boolean;
  multiline?: boolean;
  placeholder?: string;
}

const baseUrl: CredentialField = {
  name: 'baseUrl',
  label: 'Base URL (self-hosted or test server)',
  secret: false,
  optional: true,
  placeholder: 'https://…',
};

/** The services a credential can be stored for, and the values each one needs. */
export const services = {
  revenuecat: { label: 'RevenueCat', fields: [{ name: 'apiKey', label: 'Secret API key (v2)', secret: true, placeholder: 'sk_…' }, baseUrl] },
  stripe: { label: 'Stripe', fields: [{ name: 'secretKey', label: 'Restricted or secret key', secret: true, placeholder: 'rk_live_…' }, baseUrl] },
  linear: { label: 'Linear', fields: [{ name: 'apiKey', label: 'Personal API key', secret: true, placeholder: 'lin_api_…' }, baseUrl] },
  github: {
    label: 'GitHub',
    fields: [
      { name: 'token', label: 'Fine-grained personal access token, or an OAuth app below', secret: true, optional: true, placeholder: 'github_pat_…' },
      { name: 'clientId', label: 'OAuth app client ID', secret: false, optional: true, placeholder: 'Ov23li…' },
      { name: 'clientSecret', label: 'OAuth app client secret', secret: true, optional: true },
      baseUrl,
    ],
  },
  vercel: { label: 'Vercel', fields: [{ name: 'token', label: 'Access token', secret: true }, baseUrl] },
  appstoreconnect: {
    label: 'App Store Connect',
    fields: [
      { name: 'issuerId', label: 'Issuer ID', secret: false, placeholder: '57246542-96fe-1a63-e053-0824d011072a' },
      { name: 'keyId', label: 'Key ID', secret: false, placeholder: '2X9R4HXF34' },
      { name: 'privateKey', label: 'Private key (.p8 contents)', secret: true, multiline: true, placeholder: '-----BEGIN PRIVATE KEY-----' },
      baseUrl,
    ],
  },
  plausible: { label: 'Plausible', fields: [{ name: 'apiKey', label: 'Stats API key', secret: true }, baseUrl] },
  umami: { label: 'Umami', fields: [{ name: 'apiKey', label: 'API key', secret: true }, baseUrl] },
  google: {
    label: 'Google Search Console',
    fields: [
      { name: 'clientId', label: 'OAuth client ID', secret: false },
      { name: 'clientSecret', label: 'OAuth client secret', secret: true },
      { name: 'refreshToken', label: 'Refresh token ("Connect with Google" gets one)', secret: true, optional: true },
      baseUrl,
    ],
  },
  sentry: {
    label: 'Sentry',
    fields: [
      { name: 'authToken', label: 'Auth token', secret: true, placeholder: 'sntrys_…' },
      { name: 'orgSlug', label: 'Organization slug', secret: false },
      baseUrl,
    ],
  },
  betterstack: { label: 'Better Stack Uptime', fields: [{ name: 'apiToken', label: 'Uptime API token', secret: true }, baseUrl] },
  opencollective: { label: 'Open Collective', fields: [{ name: 'personalToken', label: 'Personal token', secret: true }, baseUrl] },
  sendgrid: {
    label: 'SendGrid (email alerts)',
    outgoing: true,
    fields: [
      { name: 'apiKey', label: 'API key with Mail Send', secret: true, placeholder: 'SG.…' },
      { name: 'from', label: 'From: a verified sender', secret: false, placeholder: 'alerts@yourdomain.com' },
      { name: 'to', label: 'To (comma-separated)', secret: false, placeholder: 'you@yourdomain.com' },
      baseUrl,
    ],
  },
} as const satisfies Record<string, { label: string; outgoing?: true; fields: readonly CredentialField[] }>;

/**
 * Whether a service's credentials say where our data is sent (SendGrid: its key and the recipients of every email we
 * send, the briefing's and the alerts'; the chat channels to come): saving them is the owner's, from a signed-in
 * browser with the password again, never an API token's.
 */
export const isOutgoing = (service: ServiceName): boolean => (services[service] as { outgoing?: true }).outgoing === true;

export type ServiceName = keyof typeof services;
export const serviceNames = Object.keys(services) as ServiceName[];

/**
 * A credential key is a service name, optionally with a label after a colon for a second account of
 * the same service (`github:work`). The service part decides which values are required.
 */
export const credentialKeySchema = z
  .string()
  .regex(
    /^[a-z]+(?::[a-z0-9][a-z0-9_-]{0,39})?$/,
    'A credential key is a service name, optionally followed by ":label" (e.g. "github" or "github:work")',
  )
  .refine((key) => serviceOf(key) !== undefined, {
    message: `Unknown service; use one of: ${serviceNames.join(', ')}`,
  });

export function serviceOf(key: string): ServiceName | undefined {
  const service = key.split(':')[0] ?? '';
  return Object.hasOwn(services, service) ? (service as ServiceName) : undefined;
}

const valuesSchema = z.record(z.string(), z.string().max(16_384, 'A value has at most 16 KB'));

/** Checks the values against the fields the key's service needs: all required ones, no unknown ones. */
function checkValues(input: { key: string; values?: Record<string, string> | undefined }, ctx: z.RefinementCtx) {
  const service = serviceOf(input.key);
  if (!service || !input.values) return;
  const fields: readonly CredentialField[] = services[service].fields;
  for (const field of fields) {
    const value = input.values[field.name]?.trim() ?? '';
    if (!field.optional && value === '') {
      ctx.addIssue({ code: 'custom', path: ['values', field.name], message: `${field.label} is required` });
    }
    if (field.name === 'baseUrl' && value !== '' && !/^https?:\/\/[^\s/]+/.test(value)) {
      ctx.addIssue({ code: 'custom', path: ['values', field.name], message: 'The base URL starts with http:// or https://' });
    }
  }
  // A GitHub credential signs in with a token, or with an OAuth app (its id and secret, then "Connect with GitHub").
  if (service === 'github') {
    const filled = (name: string) => (input.values?.[name]?.trim() ?? '') !== '';
    if (!filled('token') && !(filled('clientId') && filled('clientSecret'))) {
      ctx.addIssue({ code: 'custom', path: ['values', 'token'], message: 'A personal access token, or an OAuth app’s client ID and secret (then "Connect with GitHub"), is required' });
    }
    for (const [name, other] of [['clientId', 'clientSecret'], ['clientSecret', 'clientId']] as const) {
      if (filled(other) && !filled(name)) ctx.addIssue({ code: 'custom', path: ['values', name], message: `The OAuth ${name === 'clientId' ? 'client ID' : 'client secret'} goes with the ${other === 'clientId' ? 'client ID' : 'client secret'}` });
    }
  }
  for (const name of Object.keys(input.values)) {
    if (!fields.some((field) => field.name === name)) {
      ctx.addIssue({ code: 'custom', path: ['values', name], message: `${services[service].label} has no field "${name}"` });
    }
  }
}

/** `POST /api/credentials`; `password` confirms an outgoing service's (see `isOutgoing`) once a password is set. */
export const credentialSaveSchema = z
  .strictObject({ key: credentialKeySchema, values: valuesSchema, password: ownerPasswordSchema })
  .superRefine(checkValues);
export type CredentialSave = z.infer<typeof credentialSaveSchema>;

/** `POST /api/credentials/test`: the values to try, or, when absent, the stored ones. */
export const credentialTestSchema = z
  .strictObject({ key: credentialKeySchema, values: valuesSchema.optional() })
  .superRefine(checkValues);

export const credentialKeyInput = z.strictObject({ key: credentialKeySchema });

export const connectedKeysSchema = z.object({ connectedKeys: z.array(z.string()) });
export const credentialSavedSchema = z.object({ ok: z.literal(true), key: z.string() });
export const credentialRemovedSchema = z.object({ ok: z.literal(true), removed: z.boolean() });
export const credentialTestResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true) }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
export type CredentialTestResult = z.infer<typeof credentialTestResultSchema>;
