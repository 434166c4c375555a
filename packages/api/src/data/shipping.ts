import { shippingSchema, type NotConfigured, type ShippedItem } from '@dash/contracts';
import { github, linear, vercel, type ShippingConnector } from '@dash/connectors';
import { z } from 'zod';
import type { Connections } from './connections.ts';
import { loadPerProject, type DataSources, type Loaded } from './serve.ts';
import { ttl } from './ttl.ts';

const shippedList = z.array(shippingSchema.shape.items.element.omit({ project: true }));

/** Where shipped work comes from: merged pull requests, completed issues, production deploys. */
export const shippingSources = ['code_host', 'issue_tracker', 'deploy_host'] as const;
export type ShippingSource = (typeof shippingSources)[number];
export const shippingServices = { code_host: 'github', issue_tracker: 'linear', deploy_host: 'vercel' } as const;
const shippingConnectors: { [I in ShippingSource]: ShippingConnector<I> } = { code_host: github, issue_tracker: linear, deploy_host: vercel };

/** What loading shipped work uses: the projects and cache of any data route, and the connections to the three sources. */
export type ShippingSources = DataSources & { data: { connections: Pick<Connections, 'context' | 'clock'> } };

/** One source of shipped work, loaded per project like any other route, cached under its own name (the backup refreshes each alone). */
export function loadShipped<I extends ShippingSource>(
  ctx: ShippingSources,
  integration: I,
  input: { project?: string | undefined; limit: number; refresh: boolean },
  signal?: AbortSignal,
): Promise<Loaded<Omit<ShippedItem, 'project'>[]> | NotConfigured> {
  const { connections } = ctx.data;
  const service = shippingServices[integration];
  const connector = shippingConnectors[integration] as ShippingConnector<I>;
  return loadPerProject(ctx, {
    integration,
    route: `shipping:${integration}`,
    slug: input.project,
    ttlMs: ttl.shipping,
    schema: shippedList,
    refresh: input.refresh,
    params: { limit: input.limit },
    load: async ({ config }) => {
      const upstream = await connections.context(service, config.credentialKey ?? service, { signal });
      return connector.shipped(upstream, { config, limit: input.limit, now: connections.clock.now() });
    },
  });
}

