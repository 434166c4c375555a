import { z } from 'zod';
import { credentialKeySchema } from './credentials.ts';

export const slugSchema = z
  .string()
  .min(1, 'A slug is required')
  .max(48, 'A slug has at most 48 characters')
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Use lowercase letters, digits and single dashes, e.g. "my-app"');

const id = (what: string) => z.string().trim().min(1, `${what} is required`).max(200);

/** Which stored credential an integration uses; it defaults to the service's own name. */
const usesCredential = { credentialKey: credentialKeySchema.optional() };

/** An Open Collective slug as Open Collective makes them: lowercase letters, digits and dashes. */
export const collectiveSlugSchema = z.string().regex(/^[a-z0-9-]+$/, 'An Open Collective slug is lowercase letters, digits and dashes, e.g. "my-project"');

const labelWords = z.array(z.string().trim().min(1).max(40)).max(20);

/**
 * What each integration of a project needs to find the project's data upstream. An integration that is
 * absent is not set up for the project, and its data routes answer `{ configured: false }`.
 */
export const integrationsSchema = z.strictObject({
  revenue: z.discriminatedUnion('provider', [
    z.strictObject({ provider: z.literal('revenuecat'), projectId: id('RevenueCat project id'), ...usesCredential }),
    z.strictObject({
      provider: z.literal('stripe'),
      /** A connected account (`acct_...`); empty for the key's own account. */
      accountId: z.string().regex(/^acct_\w+$/, 'A Stripe account id looks like acct_…').optional(),
      ...usesCredential,
    }),
  ]),
  code_host: z.strictObject({
    repos: z
      .array(z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'A repository is written owner/name'))
      .min(1, 'List at least one repository'),
    ...usesCredential,
  }),
  deploy_host: z.strictObject({
    projectId: id('Vercel project id'),
    teamId: z.string().trim().min(1).optional(),
    ...usesCredential,
  }),
  issue_tracker: z.strictObject({
    teamIds: z.array(id('Linear team id')).min(1, 'List at least one team'),
    /** Label words that make an issue an idea or a bug; the defaults apply when absent. */
    ideaLabels: labelWords.optional(),
    bugLabels: labelWords.optional(),
    ...usesCredential,
  }),
  storefront: z.strictObject({
    appId: z.string().regex(/^\d+$/, 'An App Store Connect app id is a number'),
    ...usesCredential,
  }),
  analytics: z.strictObject({
    platforms: z
      .array(
        z.strictObject({
          platform: z.string().regex(/^[a-z0-9-]{1,24}$/, 'A platform is a short lowercase name: web, ios, android…'),
          provider: z.enum(['plausible', 'umami']),
          siteId: id('Site id'),
          ...usesCredential,
        }),
      )
      .min(1, 'Add at least one platform')
      .refine((ps) => new Set(ps.map((p) => p.platform)).size === ps.length, 'Each platform appears once'),
  }),
  seo: z.strictObject({
    siteUrl: z
      .string()
      .regex(/^(https?:\/\/\S+|sc-domain:\S+)$/, 'A Search Console property is a URL or sc-domain:example.com'),
    ...usesCredential,
  }),
  error_tracker: z.strictObject({
    org: id('Sentry organization slug'),
    project: id('Sentry project slug'),
    /** Self-hosted Sentry; sentry.io when absent. */
    host: z.url({ protocol: /^https?$/ }).optional(),
    ...usesCredential,
  }),
  uptime_monitor: z.strictObject({
    monitorIds: z.array(z.string().regex(/^\d+$/, 'A Better Stack monitor id is a number')).min(1, 'List at least one monitor'),
    ...usesCredential,
  }),
  funding: z.strictObject({
    slug: collectiveSlugSchema,
    ...usesCredential,
  }),
});
export type Integrations = z.infer<typeof integrationsSchema>;
export type IntegrationName = keyof Integrations;

const colorSchema = z.string().regex(/^#[0-9a-f]{6}$/i, 'A colour is written #rrggbb');
const nameSchema = z.string().trim().min(1, 'A name is required').max(80, 'A name has at most 80 characters');

export const projectSchema = z.object({
  slug: z.string(),
  name: z.string(),
  color: z.string().nullable(),
  integrations: integrationsSchema.partial(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type Project = z.infer<typeof projectSchema>;

export const projectCreateSchema = z.strictObject({
  slug: slugSchema,
  name: nameSchema,
  color: colorSchema.nullable().optional(),
  integrations: integrationsSchema.partial().optional(),
});
export type ProjectCreate = z.infer<typeof projectCreateSchema>;

/** A PATCH replaces each integration it names; `null` removes one. The slug never changes. */
export const projectPatchSchema = z.strictObject({
  name: nameSchema.optional(),
  color: colorSchema.nullable().optional(),
  integrations: z
    .strictObject(
      Object.fromEntries(
        Object.entries(integrationsSchema.shape).map(([name, schema]) => [name, schema.nullable().optional()]),
      ) as { [K in IntegrationName]: z.ZodOptional<z.ZodNullable<(typeof integrationsSchema.shape)[K]>> },
    )
    .optional(),
});
export type ProjectPatch = z.infer<typeof projectPatchSchema>;

export const projectSlugInput = z.object({ slug: z.string() });
export const projectListSchema = z.object({ projects: z.array(projectSchema) });

