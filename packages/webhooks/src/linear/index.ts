import type { z } from 'zod';
import { isoDate, none, one, withPayload } from '../events.ts';
import { sha256Hex, verifyHmacHex } from '../hmac.ts';
import { check, ignore, peekJson, readJson } from '../json.ts';
import type { ParseResult, Severity, WebhookProvider } from '../types.ts';
import { type AnyEntityEvent, commentEvent, envelope, issueEvent, projectEvent, signedTimestamp } from './schemas.ts';

type Action = 'created' | 'updated' | 'removed';

const pastTense = new Map<string, Action>([
  ['create', 'created'],
  ['update', 'updated'],
  ['remove', 'removed'],
]);

type Delivery = { rawBody: Uint8Array; deliveryId: string | null; receivedAt: string };
/** `payload`: the kind's own part of the event's payload (its `data`, in Linear's names), beside `action`, `type` and `actor`. */
type Described = { title: string; project?: string | undefined; severity: Severity; refs?: string[]; payload: Record<string, unknown> };

/** The team's id and key as refs: a dashboard project lists Linear team ids, and a key is what people type. */
const teamRefs = (...values: (string | null | undefined)[]) => [...new Set(values.filter((v): v is string => !!v))].map((v) => `issue_tracker:${v}`);

/** First line of a text, cut to `max` characters. */
function excerpt(text: string, max = 80): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The update's previous values that rules may ask about (`updatedFrom.stateId exists`: the state changed). */
const changedKeys = ['stateId', 'priority', 'assigneeId'] as const;

function changed(updatedFrom: Record<string, unknown> | null | undefined): Record<string, unknown> | undefined {
  if (!updatedFrom) return undefined;
  return Object.fromEntries(changedKeys.filter((key) => Object.hasOwn(updatedFrom, key)).map((key) => [key, updatedFrom[key]]));
}

const labelNames = (labels: readonly { name: string }[] | null | undefined) => labels?.map((label) => label.name);

/** `ENG-123` -> `ENG`, the team key, which is what a dashboard project maps to. */
const teamOf = (identifier: string | null | undefined) => identifier?.split('-', 1)[0] || undefined;

function describeIssue(event: z.infer<typeof issueEvent>, action: Action): Described {
  const { data, updatedFrom } = event;
  const movedTo = action === 'updated' && updatedFrom && 'stateId' in updatedFrom ? data.state : undefined;
  return {
    title: `${data.identifier ?? 'Issue'} ${movedTo ? `moved to ${movedTo.name}` : action}: ${data.title}`,
    project: data.team?.key ?? teamOf(data.identifier),
    severity: movedTo?.type === 'completed' ? 'success' : 'info',
    refs: teamRefs(data.teamId, data.team?.id, data.team?.key ?? teamOf(data.identifier)),
    payload: {
      data: {
        identifier: data.identifier,
        priority: data.priority,
        priorityLabel: data.priorityLabel,
        estimate: data.estimate,
        team: data.team?.key ? { key: data.team.key } : undefined,
        state: data.state,
        labels: labelNames(data.labels),
        assignee: data.assignee,
      },
      updatedFrom: changed(updatedFrom),
    },
  };
}

function describeComment(event: z.infer<typeof commentEvent>, action: Action): Described {
  const { data } = event;
  const on = data.issue?.identifier ?? data.issue?.title;
  return {
    title: `Comment ${action}${on ? ` on ${on}` : ''}${data.body ? `: ${excerpt(data.body)}` : ''}`,
    project: teamOf(data.issue?.identifier),
    severity: 'info',
    refs: teamRefs(teamOf(data.issue?.identifier)),
    payload: { data: { issue: data.issue ? { identifier: data.issue.identifier } : undefined, user: data.user } },
  };
}

const describeProject = (event: z.infer<typeof projectEvent>, action: Action): Described => ({
  title: `Project ${action}: ${event.data.name}`,
  project: event.data.name,
  severity: 'info',
  payload: { data: { name: event.data.name, status: event.data.status } },
});

function entityEvent<T extends AnyEntityEvent>(
  schema: z.ZodType<T>,
  describe: (event: T, action: Action) => Described,
): (json: unknown, delivery: Delivery) => ParseResult {
  return (json, { rawBody, deliveryId, receivedAt }) => {
    const parsed = check(schema, json);
    if (!parsed.ok) return parsed;
    const event = parsed.value;
    const action = pastTense.get(event.action);
    if (!action) return none();
    const { type, data, url, webhookTimestamp } = event;
    const { title, project, severity, refs, payload } = describe(event, action);
    const sentAt = isoDate(webhookTimestamp) ?? isoDate(event.createdAt);
    const when = action === 'created' ? isoDate(data.createdAt) : action === 'updated' ? isoDate(data.updatedAt) : sentAt;
    // Two updates of one issue are two events: its update time (or the delivery) tells them apart.
    const version = isoDate(data.updatedAt) ?? deliveryId ?? sha256Hex(rawBody).slice(0, 16);
    const link = url || data.url;
    return one({
      integration: 'issue_tracker',
      type: `${type.toLowerCase()}.${action}`,
      sourceEventId: `linear:${type.toLowerCase()}:${data.id}:${action}:${version}`,
      title,
      ...(link ? { url: link } : {}),
      ...(project ? { project } : {}),
      ...(refs?.length ? { refs } : {}),
      severity,
      occurredAt: when ?? sentAt ?? receivedAt,
      // Linear's own names: `action` is `create`, `update` or `remove`; `type` is `Issue`, `Comment`, `Project`.
      ...withPayload({ action: event.action, type, actor: event.actor, ...payload }),
    });
  };
}

const mappers = new Map([
  ['Issue', entityEvent(issueEvent, describeIssue)],
  ['Comment', entityEvent(commentEvent, describeComment)],
  ['Project', entityEvent(projectEvent, describeProject)],
]);

function headerTimestamp(value: string | null): number | undefined {
  return value && /^\d{1,15}$/.test(value.trim()) ? Number(value) : undefined;
}

/**
 * Linear: `linear-signature` is the HMAC-SHA256 hex (no prefix) of the raw body; `Linear-Delivery`
 * identifies the delivery. The send time is the body's signed `webhookTimestamp` (ms), or the newer
 * `linear-timestamp` header when the body has none.
 */
export const linear: WebhookProvider = {
  integration: 'issue_tracker',

  verify: (rawBody, headers, secrets) =>
    verifyHmacHex({ algorithm: 'sha256', secrets, payload: rawBody, signature: headers.get('linear-signature') }),

  identify(rawBody, headers) {
    const timestamp = peekJson(rawBody, signedTimestamp)?.webhookTimestamp ?? headerTimestamp(headers.get('linear-timestamp'));
    return {
      deliveryId: headers.get('linear-delivery')?.trim() || sha256Hex(rawBody),
      ...(timestamp === undefined ? {} : { timestamp }),
    };
  },

  parse(rawBody, headers, receivedAt) {
    const json = readJson(rawBody);
    if (!json.ok) return json;
    const kind = check(envelope, json.value);
    const mapper = kind.ok ? mappers.get(kind.value.type) : undefined;
    if (!mapper) return ignore(json.value);
    return mapper(json.value, { rawBody, deliveryId: headers.get('linear-delivery'), receivedAt: receivedAt.toISOString() });
  },
};
