import type { Shipped } from '../connector.ts';
import type { VercelDeployment } from './schemas.ts';

const COMMIT_MESSAGE_KEYS = ['githubCommitMessage', 'gitlabCommitMessage', 'bitbucketCommitMessage'] as const;

/** The headline of the commit a deployment was built from; the deployment's name when it came from no Git push. */
export function deploymentTitle(deployment: VercelDeployment): string {
  for (const key of COMMIT_MESSAGE_KEYS) {
    const message = deployment.meta?.[key];
    const headline = typeof message === 'string' ? message.split(/\r?\n/)[0]?.trim() : undefined;
    if (headline) return headline;
  }
  return deployment.name;
}

/** A live production deployment: READY (`state`, or `readyState` on older payloads) and targeted at production. */
export function isShippedToProduction(deployment: VercelDeployment): boolean {
  return (deployment.state ?? deployment.readyState) === 'READY' && deployment.target === 'production';
}

/** Shipped when it became ready to serve; `created` when Vercel did not say. */
export function toShipped(deployment: VercelDeployment): Shipped {
  return {
    title: deploymentTitle(deployment),
    source: 'deploy_host',
    ...(deployment.url ? { url: `https://${deployment.url}` } : {}),
    shippedAt: new Date(deployment.ready ?? deployment.created).toISOString(),
  };
}
