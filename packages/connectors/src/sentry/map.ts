import type { TrackedIssue } from '@dash/contracts';
import type { SentryIssue } from './schemas.ts';

/** Sentry's `count` is a string of digits; the dashboard counts in integers, and a count it cannot read is unknown. */
export function countOf(count: string | number): number | null {
  if (typeof count === 'number') return count;
  return /^\d+$/.test(count.trim()) ? Number.parseInt(count, 10) : null;
}

const iso = (value: string): string => new Date(value).toISOString();

/**
 * An issue as the widget shows it. When Sentry knows only one of first/last seen (an environment
 * without events), the known one stands for both; an issue with neither is left out by the caller.
 */
export function toTrackedIssue(issue: SentryIssue): TrackedIssue | undefined {
  const lastSeen = issue.lastSeen ?? issue.firstSeen;
  const firstSeen = issue.firstSeen ?? issue.lastSeen;
  if (!lastSeen || !firstSeen) return undefined;
  return {
    id: issue.id,
    title: issue.title,
    culprit: issue.culprit ?? '',
    count: countOf(issue.count),
    userCount: issue.userCount,
    level: issue.level,
    firstSeen: iso(firstSeen),
    lastSeen: iso(lastSeen),
    ...(issue.permalink ? { url: issue.permalink } : {}),
  };
}

/** `X-Hits`, Sentry's count of everything the search matched across all pages; undefined when absent. */
export function hitsOf(headers: Headers): number | undefined {
  const value = headers.get('x-hits');
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number.parseInt(value, 10);
}
