import {
  type DecisionTraceEntry,
  forbiddenPathSegments,
  interruptChannels,
  type InterruptChannel,
  type NotificationChannel,
  type NotificationPreference,
  type NotificationRule,
  type NotificationSeverity,
  type PayloadCondition,
  type PolicyDecision,
  type RuleActions,
  type RuleMatch,
  severityRank,
} from '@dash/contracts';
import { eventKind, globMatches, preferenceChannels, preferenceFor } from './preferences.ts';

/**
 * The notification policy's decision for one event: preferences, then the ordered rules. Pure and
 * deterministic (no clock, no storage, no randomness, inputs never mutated), so the dry-run route and
 * a real ingest give the same answer for the same event and policy. Quiet hours, mutes and flap holds
 * come after it and only ever hold back the interruptions it opens.
 */

/** What the policy reads of an event: a `RelayEvent` or an inbox row fits. */
export interface PolicyEvent {
  integration: string;
  type: string;
  severity: NotificationSeverity;
  title: string;
  transition?: 'trigger' | 'resolve' | null;
}

/** What the event does not carry itself: its dashboard project, and the provider's payload for `payload` conditions. */
export interface PolicyContext {
  projectSlug?: string | null;
  payload?: unknown;
}

export interface Policy {
  /** In evaluation order (their position). */
  rules: readonly NotificationRule[];
  preferences: readonly NotificationPreference[];
  /** The interrupting channels that can deliver (both when absent); a rule or preference cannot open another. */
  available?: readonly InterruptChannel[];
}

/**
 * Decides severity and channels for an event:
 *
 * 1. The preference is found (`preferenceFor`) and read at the event's severity; the trace starts
 *    with it.
 * 2. Every enabled rule that matches, in list order. A rule's `minSeverity` sees the severity as the
 *    rules before it left it, so a rule that raises a deploy to `error` makes later error-only rules
 *    apply. For each scalar the last rule that sets it wins: `setSeverity`, `bypassQuietHours`,
 *    `silence`, `discard`, and each channel (`addChannels` sets it on, `removeChannels` off). A
 *    matching rule with `stop` ends the list.
 * 3. The preference is read again at the final severity (kind included: an event raised to warning
 *    is an alert), which gives the base channels; the rules' channel settings then apply on top. So a
 *    rule that raises severity brings the channels the user chose for that severity, and an explicit
 *    add or remove always has the last word, wherever it sits relative to `setSeverity`.
 * 4. `discard`: stored as done, no channel at all (even for an error: the user wrote that rule, and
 *    the event is still in the inbox). `silence`: in-app only. Otherwise in-app plus the interrupting
 *    channels.
 * 5. `bypassQuietHours` holds when something interrupts and either the final severity is `error`
 *    (critical always goes through) or a rule said so.
 */
export function evaluate(event: PolicyEvent, context: PolicyContext, policy: Policy): PolicyDecision {
  const preference = preferenceFor(policy.preferences, event.integration, event.type);
  const available = policy.available ?? interruptChannels;
  const first = preferenceChannels(preference, event.severity, eventKind(event.transition, event.severity), available);
  const trace: DecisionTraceEntry[] = [first.trace];

  let severity = event.severity;
  let bypass = false;
  let silenced = false;
  let discarded = false;
  const channelSettings = new Map<InterruptChannel, boolean>();
  for (const rule of policy.rules) {
    if (!rule.enabled || !ruleMatches(rule.match, event, severity, context)) continue;
    const { actions } = rule;
    if (actions.setSeverity) severity = actions.setSeverity;
    for (const channel of actions.addChannels ?? []) channelSettings.set(channel, true);
    for (const channel of actions.removeChannels ?? []) channelSettings.set(channel, false);
    if (actions.bypassQuietHours !== undefined) bypass = actions.bypassQuietHours;
    if (actions.silence !== undefined) silenced = actions.silence;
    if (actions.discard !== undefined) discarded = actions.discard;
    trace.push({ stage: 'rule', id: rule.id, name: rule.name, verdict: 'applied', why: describeRule(rule) });
    if (rule.stop) break;
  }

  const kind = eventKind(event.transition, severity);
  const final = severity === event.severity ? first : preferenceChannels(preference, severity, kind, available);
  if (final !== first) trace.push({ ...final.trace, why: `read again at ${severity}: ${final.trace.why}` });
  const interrupting = interruptChannels.filter((channel) => available.includes(channel) && (channelSettings.get(channel) ?? final.channels.includes(channel)));

  let channels: NotificationChannel[] = ['inApp', ...interrupting];
  if (discarded) channels = [];
  else if (silenced) channels = ['inApp'];
  const interrupts = channels.length > 1;
  return {
    severity,
    kind,
    channels,
    bypassQuietHours: interrupts && (bypass || severity === 'error'),
    silenced: silenced && !discarded,
    discarded,
    trace,
  };
}

/** Whether every field of a rule's match holds for the event at its current severity. */
export function ruleMatches(match: RuleMatch, event: PolicyEvent, severity: NotificationSeverity, context: PolicyContext): boolean {
  if (match.integrations && !match.integrations.some((integration) => integration === event.integration)) return false;
  if (match.type !== undefined && !globMatches(match.type, event.type)) return false;
  if (match.minSeverity && severityRank[severity] < severityRank[match.minSeverity]) return false;
  if (match.projects && (context.projectSlug == null || !match.projects.includes(context.projectSlug))) return false;
  if (match.titleContains !== undefined && !event.title.toLowerCase().includes(match.titleContains.toLowerCase())) return false;
  return (match.payload ?? []).every((condition) => conditionHolds(condition, context.payload));
}

/**
 * The value at a dot path in a payload, or undefined. Only the payload's own properties are followed
 * (array items by index), never a prototype: `__proto__`, `constructor` and `prototype` are refused
 * even if a stored rule somehow carries one.
 */
export function payloadValue(payload: unknown, path: string): unknown {
  let current = payload;
  for (const segment of path.split('.')) {
    if (forbiddenPathSegments.has(segment)) return undefined;
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** One payload condition; the operators are described with `payloadConditionSchema`. */
export function conditionHolds(condition: PayloadCondition, payload: unknown): boolean {
  const actual = payloadValue(payload, condition.path);
  switch (condition.op) {
    case 'eq':
      return actual === condition.value;
    case 'neq':
      return actual !== condition.value;
    case 'in':
      return condition.value.some((value) => value === actual);
    case 'contains':
      if (typeof actual === 'string') return typeof condition.value === 'string' && actual.includes(condition.value);
      return Array.isArray(actual) && actual.some((item) => item === condition.value);
    case 'gt':
      return typeof actual === 'number' && actual > condition.value;
    case 'lt':
      return typeof actual === 'number' && actual < condition.value;
    case 'exists':
      return (actual !== undefined) === (condition.value ?? true);
  }
}

/** A rule's line in the trace: what it matched on and what it did. */
function describeRule(rule: NotificationRule): string {
  const { match } = rule;
  const matched = [
    match.integrations?.join('|'),
    match.type,
    match.minSeverity && `${match.minSeverity}+`,
    match.projects && `project ${match.projects.join('|')}`,
    match.titleContains !== undefined && `title has "${match.titleContains}"`,
    ...(match.payload ?? []).map((condition) => `${condition.path} ${condition.op}${condition.value === undefined ? '' : ` ${JSON.stringify(condition.value)}`}`),
  ].filter((part): part is string => typeof part === 'string' && part !== '');
  const did = describeActions(rule.actions);
  return `matched ${matched.length > 0 ? matched.join(', ') : 'everything'}: ${did.length > 0 ? did.join(', ') : 'no action'}${rule.stop ? '; stop' : ''}`;
}

function describeActions(actions: RuleActions): string[] {
  const did: string[] = [];
  if (actions.discard) did.push('discard');
  if (actions.silence) did.push('silence');
  if (actions.setSeverity) did.push(`severity ${actions.setSeverity}`);
  if (actions.addChannels?.length) did.push(`add ${actions.addChannels.join(', ')}`);
  if (actions.removeChannels?.length) did.push(`remove ${actions.removeChannels.join(', ')}`);
  if (actions.bypassQuietHours) did.push('bypass quiet hours');
  if (actions.discard === false) did.push('not discarded');
  if (actions.silence === false) did.push('not silenced');
  if (actions.bypassQuietHours === false) did.push('respect quiet hours');
  return did;
}
