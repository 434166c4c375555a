import type { DeliveryDetail, DeliverySummary, WebhookIntegration, WebhookOutcome } from '@dash/contracts';
import { webhookSourceNames } from '@dash/contracts/names';
import { ago } from './utils/format.ts';

/**
 * Settings → Webhooks' pure parts: an outcome in words, the page's filters to and from its URL query (so a filtered
 * list is a link that survives a reload and the back button) and to the API's query, times in words, and the replay's
 * request id kept for a retry of the same selection. The Deliver*.svelte components show what these return.
 */

/** Names only, from the zod-free module: the page's script does not wait for every schema. */
export const providers = Object.keys(webhookSourceNames) as WebhookIntegration[];
export const providerName = (integration: string): string => webhookSourceNames[integration as WebhookIntegration] ?? integration;

/** What a delivery became, as its badge says it (the badge's colour repeats it, never stands for it). */
export const outcomeNames: Record<WebhookOutcome, string> = {
  notified: 'New notification',
  threaded: 'Added to a thread',
  duplicate: 'Duplicate',
  ignored: 'Ignored',
  invalid: 'Invalid',
};
export const outcomes = Object.keys(outcomeNames) as WebhookOutcome[];

/** The outcome in a sentence, where a row's detail is open. */
export const outcomeWords: Record<WebhookOutcome, string> = {
  notified: 'It became a new notification.',
  threaded: 'It was added to a notification’s open thread.',
  duplicate: 'A copy of an event taken in before: nothing new was made of it.',
  ignored: 'Taken in, but nothing the dashboard makes a notification of.',
  invalid: 'Its signature was good, but its body did not read as the service’s webhook.',
};

/** Where the policy sent an event (a decision's channels), in words. */
const channelWords: Record<string, string> = { inApp: 'the inbox', browser: 'a browser notification', email: 'email', push: 'push', chat: 'chat' };

/** A decision's severity and channels in a line: "Severity warning; to the inbox and a browser notification." */
export function decisionLine(decision: { severity: string; channels: readonly string[] }): string {
  const to = decision.channels.map((channel) => channelWords[channel] ?? channel);
  const list = to.length === 0 ? 'to no channel' : `to ${to.length === 1 ? to[0] : `${to.slice(0, -1).join(', ')} and ${to.at(-1)}`}`;
  return `Severity ${decision.severity}; ${list}.`;
}

/** A row's name: its event's title, else the kind of webhook it was ("A ping webhook"). */
export const rowName = (row: Pick<DeliverySummary, 'title' | 'eventType'>): string => row.title ?? (row.eventType ? `A ${row.eventType} webhook` : 'A webhook with no event');

/** Why a row's detail shows no body. */
export const bodyNotes: Record<NonNullable<DeliveryDetail['bodyNote']>, string> = {
  expired: 'The body is kept for 24 hours after it came in; this one’s has expired.',
  owner_only: 'Only the signed-in owner sees bodies: this page is read with an API token.',
  not_kept: 'The relay did not forward its body (a relay older than the deliveries log).',
};

/** The time filter: how far back the list reaches. */
export const timeRanges = [
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { id: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
  { id: 'all', label: 'All', ms: undefined },
] as const;
export type TimeRange = (typeof timeRanges)[number]['id'];

/** The page's filters, as its URL query holds them (`?integration=code_host&outcome=duplicate&time=24h&q=readme`). */
export interface DeliveryFilter {
  integration: WebhookIntegration | undefined;
  outcome: WebhookOutcome | undefined;
  time: TimeRange;
  /** Text in the title, event type or delivery id. */
  q: string;
  /** Only the rows of one notification (the "Why?" panel's link). */
  notification: string | undefined;
}

export const noFilter: DeliveryFilter = { integration: undefined, outcome: undefined, time: 'all', q: '', notification: undefined };

/** The API's own limits on the text search and a notification id; longer is cut, not refused. */
const MAX_Q = 200;
const MAX_ID = 100;

const oneOf = <T extends string>(options: readonly T[], value: string | null): T | undefined => options.find((option) => option === value);

/** The filters a URL query asks for; a value the page does not know (an old link, a typo) is left out. */
export function filterFromQuery(query: URLSearchParams): DeliveryFilter {
  const notification = query.get('notification')?.trim().slice(0, MAX_ID);
  return {
    integration: oneOf(providers, query.get('integration')),
    outcome: oneOf(outcomes, query.get('outcome')),
    time: oneOf(timeRanges.map((range) => range.id), query.get('time')) ?? 'all',
    q: (query.get('q') ?? '').trim().slice(0, MAX_Q),
    notification: notification || undefined,
  };
}

/** The URL query for the filters, in one order, without the defaults: `''` for none, else `?outcome=duplicate&q=x`. */
export function filterToQuery(filter: DeliveryFilter): string {
  const query = new URLSearchParams();
  if (filter.integration) query.set('integration', filter.integration);
  if (filter.outcome) query.set('outcome', filter.outcome);
  if (filter.time !== 'all') query.set('time', filter.time);
  const q = filter.q.trim();
  if (q) query.set('q', q);
  if (filter.notification) query.set('notification', filter.notification);
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** Whether anything narrows the list: an empty list then says "nothing matches", not "no webhooks yet". */
export const isFiltered = (filter: DeliveryFilter): boolean => filterToQuery(filter) !== '';

/** The API's query for the filters (`GET /api/deliveries`), its time range ending now. */
export function listQuery(filter: DeliveryFilter, now: number, cursor?: string) {
  const ms = timeRanges.find((range) => range.id === filter.time)?.ms;
  const q = filter.q.trim();
  return {
    ...(filter.integration ? { integration: filter.integration } : {}),
    ...(filter.outcome ? { outcome: filter.outcome } : {}),
    ...(ms === undefined ? {} : { since: new Date(now - ms).toISOString() }),
    ...(q ? { q } : {}),
    ...(filter.notification ? { notification: filter.notification } : {}),
    ...(cursor ? { cursor } : {}),
    limit: PAGE_SIZE,
  };
}
export const PAGE_SIZE = 50;
export type DeliveryListQuery = ReturnType<typeof listQuery>;

const clock = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
const dayAndClock = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

/**
 * When a delivery came, on this browser's clock, to the second (webhooks come in bursts): "14:05:09" today, else
 * "3 Dec, 14:05:09"; and how long ago ("5 minutes ago").
 */
export function receivedText(iso: string, now = Date.now()): { local: string; relative: string } {
  const at = new Date(iso);
  if (!Number.isFinite(at.getTime())) return { local: iso, relative: '' };
  const today = new Date(now);
  const sameDay = at.getFullYear() === today.getFullYear() && at.getMonth() === today.getMonth() && at.getDate() === today.getDate();
  return { local: sameDay ? clock.format(at) : dayAndClock.format(at), relative: ago(iso, now) };
}

/** A long id (a UUID, a body's SHA-256) cut to its first 8 characters and an ellipsis; the whole stays in a title. */
export const shortId = (id: string): string => (id.length > 12 ? `${id.slice(0, 8)}…` : id);

const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id) => b.includes(id));

/** A replay on its way or failed: what it asked to replay, under which request id. */
export interface PendingReplay {
  ids: string[];
  requestId: string;
}

/**
 * The request for replaying `ids`: a retry of the same selection after a failure (the network dropped, the answer
 * never came) keeps the first attempt's request id, so the server replays it once whatever reached it; a new
 * selection is a new request.
 */
export function replayRequest(failed: PendingReplay | undefined, ids: readonly string[], newId: () => string): PendingReplay {
  if (failed && sameIds(failed.ids, ids)) return { ids: [...failed.ids], requestId: failed.requestId };
  return { ids: [...ids], requestId: newId() };
}

/** The list with a replay's new rows on top (a row already listed is not listed twice). */
export function withReplayed(list: readonly DeliverySummary[], replayed: readonly DeliverySummary[]): DeliverySummary[] {
  const fresh = new Set(replayed.map((row) => row.id));
  return [...replayed, ...list.filter((row) => !fresh.has(row.id))];
}

/** "Replayed 2. Not replayed: 1 (ab12cd34…: Nothing to replay: it was ignored, so no event came of it)." */
export function replaySummary(
  result: { repeated: boolean; replayed: readonly unknown[]; skipped: readonly { id: string; why: string }[] },
  nameOf: (id: string) => string = shortId,
): string {
  const done = result.repeated
    ? `This replay was made before: its ${result.replayed.length} ${result.replayed.length === 1 ? 'row is' : 'rows are'} shown, nothing was sent again.`
    : `Replayed ${result.replayed.length}: ${result.replayed.length === 1 ? 'the new row is' : 'the new rows are'} at the top.`;
  if (result.skipped.length === 0) return result.replayed.length === 0 ? 'Nothing was replayed.' : done;
  const skipped = `Not replayed: ${result.skipped.map((row) => `${nameOf(row.id)} (${row.why})`).join('; ')}.`;
  return result.replayed.length === 0 ? skipped : `${done} ${skipped}`;
}
