import { Ajv, type ValidateFunction } from 'ajv';
import type { SandboxServiceName } from '../services.ts';
import { repairsOf } from './exceptions.ts';
import { GraphQLDescription } from './graphql.ts';
import { addFormats, OpenApiDescription } from './openapi.ts';
import { descriptionFileExists, loadDescription, readText } from './specs.ts';

/** A JSON Schema for one request body (Plausible publishes only its query's schema). */
export interface BodySchema {
  /** `POST /api/v2/query` */
  operation: string;
  validate: ValidateFunction;
}

export type Description =
  | { kind: 'openapi'; description: OpenApiDescription }
  | { kind: 'graphql'; description: GraphQLDescription; paths: string[] }
  | { kind: 'body-schema'; description: BodySchema };

function bodySchema(operation: string, file: string): BodySchema {
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  return { operation, validate: ajv.compile(loadDescription(file) as object) };
}

type Json = Record<string, unknown>;

/**
 * Each fake's provider and where its own description is (SOURCES.md in the descriptions folder says
 * where each came from). Better Stack and Umami publish none: their fakes are held to the examples their
 * documentation prints (`<service>/documented.ts`), as SendGrid's key check is.
 */
const openapi = (service: SandboxServiceName, name: string, file: string) => ({
  file,
  build: (): Description => ({ kind: 'openapi', description: new OpenApiDescription(name, loadDescription(file) as Json, repairsOf(service)) }),
});
const graphql = (name: string, file: string, paths: string[]) => ({
  file,
  build: (): Description => ({ kind: 'graphql', paths, description: new GraphQLDescription(name, readText(file)) }),
});

const sources: Partial<Record<SandboxServiceName, { file: string; build(): Description }>> = {
  revenuecat: openapi('revenuecat', 'RevenueCat', 'revenuecat.api-v2.yaml'),
  stripe: openapi('stripe', 'Stripe', 'stripe.spec3.json'),
  sentry: openapi('sentry', 'Sentry', 'sentry.openapi-derefed.json'),
  vercel: openapi('vercel', 'Vercel', 'vercel.openapi.json'),
  appstoreconnect: openapi('appstoreconnect', 'App Store Connect', 'appstoreconnect.app_store_connect_api.json'),
  google: openapi('google', 'Search Console', 'google.webmasters-v3.json'),
  // GitHub's (13 MB) comes from its npm package rather than the shared folder.
  github: openapi('github', 'GitHub', '@octokit/openapi/generated/api.github.com.json'),
  // Mail Send only: the key check (GET /v3/scopes) is in another of SendGrid's files (see exceptions.ts).
  sendgrid: openapi('sendgrid', 'SendGrid', 'sendgrid.tsg_mail_v3.json'),
  discord: openapi('discord', 'Discord', 'discord.openapi.json'),
  linear: graphql('Linear', 'linear.schema.graphql', ['/graphql']),
  opencollective: graphql('Open Collective', 'opencollective.schemaV2.graphql', ['/graphql/v2', '/graphql']),
  plausible: {
    file: 'plausible.query-api-schema.json',
    build: () => ({ kind: 'body-schema', description: bodySchema('POST /api/v2/query', 'plausible.query-api-schema.json') }),
  },
};

/** The services whose provider publishes a machine-readable description. */
export const describedServices = Object.keys(sources) as SandboxServiceName[];

const built = new Map<SandboxServiceName, Description>();

/** A service's description, loaded and prepared once per process; undefined for a provider that publishes none or when its file is not here. */
export function descriptionOf(service: SandboxServiceName): Description | undefined {
  let description = built.get(service);
  if (!description) {
    const source = sources[service];
    if (!source || !descriptionFileExists(source.file)) return undefined;
    description = source.build();
    built.set(service, description);
  }
  return description;
}
