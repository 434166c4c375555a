import type { ConnectorContext } from '../context.ts';
import type { ShippingConnector } from '../connector.ts';
import { collectPages, defineClient, type Client } from '../http.ts';
import { isShippedToProduction, toShipped } from './map.ts';
import { deploymentList, errorBody, userResponse, type VercelDeployment } from './schemas.ts';

/** Vercel lists at most 100 deployments a page. */
const MAX_PAGE = 100;

/**
 * Vercel's client for one call: its 429 says when to come back in `Retry-After` (read by the shared
 * client) and in `X-RateLimit-Reset`, epoch seconds, measured here against the caller's clock.
 */
function clientFor(ctx: ConnectorContext): Client {
  return defineClient({
    service: 'Vercel',
    headers: (credentials) => ({ authorization: `Bearer ${credentials.token ?? ''}` }),
    errorMessage(body) {
      const parsed = errorBody.safeParse(body);
      return parsed.success ? parsed.data.error.message : undefined;
    },
    retryAfterMs(headers) {
      if (headers.get('retry-after')) return undefined;
      const reset = Number(headers.get('x-ratelimit-reset'));
      return Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - ctx.clock.now()) : undefined;
    },
  });
}

/** Vercel: the project's production deployments that went live, newest first. */
export const vercel: ShippingConnector<'deploy_host'> = {
  service: 'vercel',
  defaultBaseUrl: 'https://api.vercel.com',

  async test(ctx) {
    await clientFor(ctx).get(ctx, '/v2/user', {}, userResponse);
  },

  async shipped(ctx, { config, limit }) {
    const client = clientFor(ctx);
    const wanted = Math.max(1, limit);
    // Older pages are asked for with `until` = the previous page's `pagination.next`.
    const deployments = await collectPages<VercelDeployment, number>(
      undefined,
      async (until) => {
        const page = await client.get(
          ctx,
          '/v6/deployments',
          { projectId: config.projectId, target: 'production', state: 'READY', limit: Math.min(wanted, MAX_PAGE), until, teamId: config.teamId },
          deploymentList,
        );
        // The filters are asked for; checked again so a preview or a failed build never shows as shipped.
        return { items: page.deployments.filter(isShippedToProduction), next: page.pagination.next ?? undefined };
      },
      { maxItems: wanted, key: (deployment) => deployment.uid },
    );
    return deployments.map(toShipped).sort((a, b) => b.shippedAt.localeCompare(a.shippedAt));
  },
};
