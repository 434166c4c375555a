import { severityRank, notificationSourceNames, type NotificationSeverity } from '@dash/contracts';
import { localTime } from './quiet-hours.ts';

/**
 * The digest sent when quiet hours (or a pause) end: one per channel, for the interruptions that were
 * held meanwhile. Pure: the caller loads the held items and the threads' current state. Plain text; the
 * email and browser layers escape it.
 */

/** A held interruption, with its thread as it is when the digest is composed. Times in ms UTC. */
export interface HeldItem {
  threadId: string;
  integration: string;
  /** The thread's opening event type: `monitor.down`, `deploy.error`, `pr.merged`, … */
  type: string;
  severity: NotificationSeverity;
  title: string;
  /** `open`: its subject is still in trouble; `resolved`: it recovered; `info`: an event without state. */
  status: 'open' | 'resolved' | 'info';
  firstAt: number;
  resolvedAt?: number | null;
  /** When it was read in the app; a read item is left out of the digest. */
  readAt?: number | null;
}

/** A stretch of time that held items back, ms UTC: the weekly quiet hours, or "pause notifications until …". */
export interface HeldPeriod {
  kind: 'quiet_hours' | 'pause';
  start: number;
  end: number;
}

export interface DigestOptions {
  /** What held the items, each with its own times (shown as local wall times in the header), in the order to name them. */
  periods: readonly [HeldPeriod, ...HeldPeriod[]];
  /** IANA zone of the quiet hours. */
  timezone: string;
}

export interface Digest {
  /** Header and summary in one line, the email subject: "While quiet hours were on (22:00–07:00): …". */
  title: string;
  /** Subjects still open first ("… still down since 02:14"), then counts by kind, most severe first. */
  lines: string[];
  /** How many threads it covers. */
  itemCount: number;
}

/** How a kind of event is counted: "2 deploys failed", "1 outage resolved after 20 min". */
interface Wording {
  one: string;
  many: string;
  /** What happened, after the noun: "failed", "merged"; empty for a bare count. */
  verb: string;
  /** For a subject with state that recovered during the quiet period: "resolved", "failed, fixed". */
  resolved?: string;
  /** For one still open at the end: "still down". */
  open?: string;
}

const outage: Wording = { one: 'outage', many: 'outages', verb: 'started', resolved: 'resolved', open: 'still down' };
const failedDeploy: Wording = { one: 'deploy', many: 'deploys', verb: 'failed', resolved: 'failed, fixed', open: 'still failing' };
const sentryIssue: Wording = { one: 'Sentry issue', many: 'Sentry issues', verb: 'opened', resolved: 'resolved', open: 'still unresolved' };

/** Event types as people say them; the keys are the types the webhook parsers emit. */
const wordings: Record<string, Wording> = {
  'monitor.down': outage,
  'monitor.up': { one: 'monitor', many: 'monitors', verb: 'back up' },
  'monitor.acknowledged': { one: 'incident', many: 'incidents', verb: 'acknowledged' },
  'deploy.error': failedDeploy,
  'deploy.failure': failedDeploy,
  'deploy.succeeded': { one: 'deploy', many: 'deploys', verb: 'succeeded' },
  'deploy.success': { one: 'deploy', many: 'deploys', verb: 'succeeded' },
  'deploy.created': { one: 'deploy', many: 'deploys', verb: 'started' },
  'error.issue_created': sentryIssue,
  'error.issue_resolved': { one: 'Sentry issue', many: 'Sentry issues', verb: 'resolved' },
  'error.created': { one: 'Sentry error', many: 'Sentry errors', verb: 'reported' },
  'pr.merged': { one: 'PR', many: 'PRs', verb: 'merged' },
  'pr.opened': { one: 'PR', many: 'PRs', verb: 'opened' },
  'pr.closed': { one: 'PR', many: 'PRs', verb: 'closed' },
  'issue.created': { one: 'issue', many: 'issues', verb: 'opened' },
  'issue.opened': { one: 'issue', many: 'issues', verb: 'opened' },
  'issue.updated': { one: 'issue', many: 'issues', verb: 'updated' },
  'release.published': { one: 'release', many: 'releases', verb: 'published' },
  'star.created': { one: 'new star', many: 'new stars', verb: '' },
  'comment.created': { one: 'comment', many: 'comments', verb: 'added' },
};

/** An unknown type is counted per service: "3 Sentry events". */
function wordingOf(item: HeldItem): { key: string; wording: Wording } {
  const known = Object.hasOwn(wordings, item.type) ? wordings[item.type] : undefined;
  if (known) return { key: `${known.one}|${known.verb}`, wording: known };
  const service = (notificationSourceNames as Record<string, string>)[item.integration] ?? item.integration;
  return { key: `other|${item.integration}`, wording: { one: `${service} event`, many: `${service} events`, verb: '' } };
}

const rankOf = (severity: NotificationSeverity) => severityRank[severity];

/** "48 s", "20 min", "1 h 5 min", "2 d 3 h". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

const DAY_MS = 86_400_000;

/** A local wall time: "02:14", "Fri 23:50" with the weekday, or "2026-03-20 23:50" beyond a week. */
function wallTime(instant: number, zone: string, show: 'time' | 'weekday' | 'date'): string {
  const at = localTime(instant, zone);
  if (show === 'time') return at.hhmm;
  if (show === 'date') return `${at.date.toString()} ${at.hhmm}`;
  return `${at.weekday.charAt(0).toUpperCase()}${at.weekday.slice(1)} ${at.hhmm}`;
}

/** When an open subject started, seen from the end of the quiet period: the day only beyond a day ago. */
function since(instant: number, end: number, zone: string): string {
  return wallTime(instant, zone, end - instant < DAY_MS ? 'time' : end - instant < 6 * DAY_MS ? 'weekday' : 'date');
}

interface Group {
  wording: Wording;
  resolved: boolean;
  count: number;
  rank: number;
  /** The longest time to recovery among resolved items that know it. */
  longest: number | null;
  order: number;
}

/**
 * The digest for the items held during a quiet period, or null when nothing is left to say (nothing was
 * held, or everything was read in the app meanwhile). An item repeated for one thread counts once, with
 * its last state.
 */
export function composeDigest(items: readonly HeldItem[], options: DigestOptions): Digest | null {
  const byThread = new Map<string, HeldItem>();
  for (const item of items) byThread.set(item.threadId, item);
  const unread = [...byThread.values()].filter((item) => item.readAt === null || item.readAt === undefined);
  if (unread.length === 0) return null;

  const { periods, timezone } = options;
  const windowEnd = Math.max(...periods.map((period) => period.end));
  const stillOpen = unread.filter((item) => item.status === 'open').sort((a, b) => rankOf(b.severity) - rankOf(a.severity) || a.firstAt - b.firstAt);
  const openLines = stillOpen.map((item) => {
    const { wording } = wordingOf(item);
    return `${item.title} — ${wording.open ?? 'still open'} since ${since(item.firstAt, windowEnd, timezone)}`;
  });

  const groups = new Map<string, Group>();
  for (const item of unread) {
    if (item.status === 'open') continue;
    const { key, wording } = wordingOf(item);
    const resolved = item.status === 'resolved' && wording.resolved !== undefined;
    const group = groups.get(`${key}|${resolved}`) ?? { wording, resolved, count: 0, rank: 0, longest: null, order: groups.size };
    group.count += 1;
    group.rank = Math.max(group.rank, rankOf(item.severity));
    if (resolved && typeof item.resolvedAt === 'number' && item.resolvedAt >= item.firstAt) {
      group.longest = Math.max(group.longest ?? 0, item.resolvedAt - item.firstAt);
    }
    groups.set(`${key}|${resolved}`, group);
  }
  const countLines = [...groups.values()]
    .sort((a, b) => b.rank - a.rank || b.count - a.count || a.order - b.order)
    .map(({ wording, resolved, count, longest }) => {
      const noun = count === 1 ? wording.one : wording.many;
      const verb = resolved ? wording.resolved : wording.verb;
      const after = resolved && longest !== null ? ` ${count === 1 ? 'after' : 'within'} ${formatDuration(longest)}` : '';
      return `${count} ${noun}${verb ? ` ${verb}` : ''}${after}`;
    });

  const show = windowEnd - Math.min(...periods.map((period) => period.start)) < DAY_MS ? 'time' : 'weekday';
  const named = periods.map(({ kind, start, end }) => {
    const range = `${wallTime(start, timezone, show)}–${wallTime(end, timezone, show)}`;
    return kind === 'pause' ? `notifications were paused (${range})` : `quiet hours were on (${range})`;
  });
  const header = `While ${named.join(' and ')}`;
  const summary = [...(stillOpen.length > 0 ? [`${stillOpen.length} still open`] : []), ...countLines].join(', ');
  return { title: `${header}: ${summary}`, lines: [...openLines, ...countLines], itemCount: unread.length };
}
