import type { IntegrationName, Integrations, ServiceName } from '@dash/contracts';

/** One input of an integration's form; lists are typed comma- or newline-separated. */
export interface IntegrationInput {
  name: string;
  label: string;
  kind: 'text' | 'list' | 'select';
  options?: readonly string[];
  optional?: boolean;
  placeholder?: string;
  /** Shown only when the form's `provider` has this value. */
  provider?: string;
  /** A line under the input. */
  hint?: string;
}

export interface IntegrationForm {
  label: string;
  /** The service whose credential it uses by default. */
  service: ServiceName | ((values: Record<string, string>) => ServiceName);
  inputs: readonly IntegrationInput[];
}

const credentialKey = (placeholder: string): IntegrationInput => ({
  name: 'credentialKey',
  label: 'Credential key',
  kind: 'text',
  optional: true,
  placeholder,
});

/** The form of each integration except analytics, whose platforms are rows (see PlatformsEditor). */
export const integrationForms: Record<Exclude<IntegrationName, 'analytics'>, IntegrationForm> = {
  revenue: {
    label: 'Revenue',
    service: (values) => (values.provider === 'stripe' ? 'stripe' : 'revenuecat'),
    inputs: [
      { name: 'provider', label: 'Provider', kind: 'select', options: ['revenuecat', 'stripe'] },
      { name: 'projectId', label: 'RevenueCat project id', kind: 'text', provider: 'revenuecat', placeholder: 'proj1ab2c3d4' },
      { name: 'accountId', label: 'Stripe connected account', kind: 'text', provider: 'stripe', optional: true, placeholder: 'acct_…' },
      credentialKey('revenuecat / stripe'),
    ],
  },
  code_host: {
    label: 'Code (GitHub)',
    service: 'github',
    inputs: [{ name: 'repos', label: 'Repositories', kind: 'list', placeholder: 'owner/app, owner/site' }, credentialKey('github')],
  },
  deploy_host: {
    label: 'Deploys (Vercel)',
    service: 'vercel',
    inputs: [
      { name: 'projectId', label: 'Project id', kind: 'text', placeholder: 'prj_…' },
      { name: 'teamId', label: 'Team id', kind: 'text', optional: true, placeholder: 'team_…' },
      credentialKey('vercel'),
    ],
  },
  issue_tracker: {
    label: 'Issues (Linear)',
    service: 'linear',
    inputs: [
      { name: 'teamIds', label: 'Team ids', kind: 'list' },
      { name: 'ideaLabels', label: 'Labels that mean “idea”', kind: 'list', optional: true, placeholder: 'idea, feature, enhancement' },
      { name: 'bugLabels', label: 'Labels that mean “bug”', kind: 'list', optional: true, placeholder: 'bug, defect, crash' },
      credentialKey('linear'),
    ],
  },
  storefront: {
    label: 'App Store',
    service: 'appstoreconnect',
    inputs: [{ name: 'appId', label: 'App id', kind: 'text', placeholder: '1234567890' }, credentialKey('appstoreconnect')],
  },
  seo: {
    label: 'Search (Search Console)',
    service: 'google',
    inputs: [{ name: 'siteUrl', label: 'Property', kind: 'text', placeholder: 'https://example.com/ or sc-domain:example.com' }, credentialKey('google')],
  },
  error_tracker: {
    label: 'Errors (Sentry)',
    service: 'sentry',
    inputs: [
      { name: 'org', label: 'Organization slug', kind: 'text' },
      { name: 'project', label: 'Project slug', kind: 'text' },
      {
        name: 'host',
        label: 'Self-hosted URL',
        kind: 'text',
        optional: true,
        placeholder: 'https://sentry.example.com',
        hint: 'The token goes only to the host it was saved for: save it with this host’s Base URL (…/api/0) in Connections first',
      },
      credentialKey('sentry'),
    ],
  },
  uptime_monitor: {
    label: 'Uptime (Better Stack)',
    service: 'betterstack',
    inputs: [{ name: 'monitorIds', label: 'Monitor ids', kind: 'list', placeholder: '123456, 123457' }, credentialKey('betterstack')],
  },
  funding: {
    label: 'Funding (Open Collective)',
    service: 'opencollective',
    inputs: [{ name: 'slug', label: 'Collective slug', kind: 'text', placeholder: 'my-project' }, credentialKey('opencollective')],
  },
};

export const analyticsLabel = 'Analytics (Plausible, Umami)';

const splitList = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** Form text -> the integration object the server validates; empty optional inputs are left out. */
export function toIntegration(form: IntegrationForm, values: Record<string, string>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const input of form.inputs) {
    if (input.provider && input.provider !== values.provider) continue;
    const text = (values[input.name] ?? '').trim();
    if (text === '' && input.optional) continue;
    result[input.name] = input.kind === 'list' ? splitList(text) : text;
  }
  return result;
}

/** A stored integration -> the form's text values. */
export function fromIntegration(form: IntegrationForm, integration: object | undefined): Record<string, string> {
  const stored = (integration ?? {}) as Record<string, unknown>;
  const values: Record<string, string> = {};
  for (const input of form.inputs) {
    const value = stored[input.name];
    values[input.name] = Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : (input.options?.[0] ?? '');
  }
  return values;
}

export type PlatformRow = Integrations['analytics']['platforms'][number];

/** A stored integration in a few words for its row: "acme/app, acme/site", "revenuecat · proj1", "web (plausible)". */
export function summarise(integration: object | undefined): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(integration ?? {})) {
    if (name === 'credentialKey') continue;
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) {
      parts.push(
        value
          .map((item: unknown) =>
            item && typeof item === 'object' && 'platform' in item && 'provider' in item ? `${String(item.platform)} (${String(item.provider)})` : String(item),
          )
          .join(', '),
      );
    }
  }
  return parts.join(' · ') || 'Set up';
}
