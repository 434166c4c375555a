import type { TrackedIssue } from '@dash/contracts';
import type { DailyValue } from '../connector.ts';
import type { OutcomeStats, SentryIssue } from './schemas.ts';

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

/**
 * The accepted errors per day of a `groupBy=outcome`, `interval=1d` answer, within `from`..`to`. Sentry fills every
 * interval of the range, zeros included, and lists a group for each outcome that had any events: without an
 * `accepted` group, every day had none (0). A count its series leaves out is left out.
 */
export function acceptedPerDay(stats: OutcomeStats, { from, to }: { from: string; to: string }): DailyValue[] {
  const accepted = stats.groups.find((group) => group.by.outcome === 'accepted');
  const counts = accepted ? (accepted.series['sum(quantity)'] ?? []) : stats.intervals.map(() => 0);
  return stats.intervals.flatMap((interval, i) => {
    const date = interval.slice(0, 10);
    const value = counts[i];
    return value === undefined || date < from || date > to ? [] : [{ metric: 'errors.events' as const, date, value }];
  });
}
