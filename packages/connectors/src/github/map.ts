import type { Shipped } from '../connector.ts';
import type { GitHubPull } from './schemas.ts';

export type MergedPull = GitHubPull & { merged_at: string };

export const isMerged = (pull: GitHubPull): pull is MergedPull => pull.merged_at !== null;

export function toShipped(pull: MergedPull): Shipped {
  return { title: pull.title, source: 'code_host', url: pull.html_url, shippedAt: new Date(pull.merged_at).toISOString() };
}

/**
 * With pulls listed by `updated_at`, newest first, a later page can only hold pulls merged before the
 * last one seen was updated. Once `limit` merged pulls are at least that new, later pages cannot
 * change the newest `limit`.
 */
export function hasNewestMerged(merged: readonly MergedPull[], lastUpdatedAt: string | undefined, limit: number): boolean {
  if (merged.length < limit) return false;
  if (lastUpdatedAt === undefined) return true;
  const newest = merged.map((pull) => Date.parse(pull.merged_at)).sort((a, b) => b - a);
  const threshold = newest[limit - 1] ?? Number.POSITIVE_INFINITY;
  return Date.parse(lastUpdatedAt) <= threshold;
}
