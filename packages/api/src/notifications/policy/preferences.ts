import {
  type DecisionTraceEntry,
  interruptChannels,
  type InterruptChannel,
  type NotificationPreference,
  type NotificationSeverity,
  severityRank,
  notificationSourceNames,
} from '@dash/contracts';

/**
 * Notification preferences: which one applies to an event, and the channels it opens. Pure, like the
 * rest of the policy core; the caller loads the preferences.
 */

/**
 * Whether an event type matches a type glob. Only `*` is special: it takes one or more characters,
 * dots included, so `deploy.*` matches `deploy.error` but not `deploy.`, and `*` matches every type.
 * No regular expression is built: the literal pieces between the stars are found left to right with
 * `indexOf` (the leftmost place for each piece leaves the most room for the rest), so the cost is at
 * most the type's length times the number of pieces, whatever the input.
 */
export function globMatches(glob: string, type: string): boolean {
  if (!glob.includes('*')) return glob === type;
  const pieces = glob.split('*');
  const first = pieces[0] ?? '';
  const last = pieces[pieces.length - 1] ?? '';
  if (!type.startsWith(first)) return false;
  let position = first.length;
  for (const piece of pieces.slice(1, -1)) {
    // The star before the piece takes at least one character.
    const found = type.indexOf(piece, position + 1);
    if (found < position + 1) return false;
    position = found + piece.length;
  }
  return type.length - last.length >= position + 1 && type.endsWith(last);
}

/**
 * `alert`: a state change (a trigger or a resolve) or anything at warning or above; `change`: the rest,
 * a merged PR, a successful deploy, a new issue (PagerDuty's change events, which never page).
 */
export type EventKind = 'alert' | 'change';

export function eventKind(transition: 'trigger' | 'resolve' | null | undefined, severity: NotificationSeverity): EventKind {
  return transition === 'trigger' || transition === 'resolve' || severityRank[severity] >= severityRank.warning ? 'alert' : 'change';
}

/**
 * The preference that applies to an event, the most specific one: for the event's integration, the
 * exact type, then the matching globs longest first (`deploy.prod.*` before `deploy.*`), then `*`; then
 * the same for the integration `*`. Among globs of one length, the one with fewer stars, then the
 * earlier in the list. Null: none matches, the built-in defaults apply (see `preferenceChannels`).
 */
export function preferenceFor(
  preferences: readonly NotificationPreference[],
  integration: string,
  type: string,
): NotificationPreference | null {
  let best: NotificationPreference | null = null;
  let bestScore: readonly number[] = [];
  for (const [index, preference] of preferences.entries()) {
    if (preference.integration !== integration && preference.integration !== '*') continue;
    if (!globMatches(preference.type, type)) continue;
    const stars = preference.type.split('*').length - 1;
    const score = [preference.integration === '*' ? 0 : 1, stars === 0 ? 1 : 0, preference.type.length, -stars, -index];
    if (best === null || outranks(score, bestScore)) {
      best = preference;
      bestScore = score;
    }
  }
  return best;
}

/** Lexicographic comparison of two scores of the same length. */
function outranks(score: readonly number[], other: readonly number[]): boolean {
  for (const [index, value] of score.entries()) {
    const against = other[index] ?? 0;
    if (value !== against) return value > against;
  }
  return false;
}

/** How a preference is named in a decision's trace: `error_tracker/error.*`, or `default`. */
export function preferenceId(preference: NotificationPreference | null): string {
  return preference ? `${preference.integration}/${preference.type}` : 'default';
}

function preferenceName(preference: NotificationPreference | null): string {
  if (!preference) return 'Built-in defaults';
  const source = preference.integration === '*' ? 'All integrations' : notificationSourceNames[preference.integration];
  return `${source} · ${preference.type === '*' ? 'all events' : preference.type}`;
}

export interface PreferenceOutcome {
  /** The interrupting channels it opens, `browser` before `email`; in-app is always on and not listed. */
  channels: InterruptChannel[];
  trace: DecisionTraceEntry;
}

/**
 * The interrupting channels a preference opens for an event of a severity and kind, among those `available`
 * (a channel with nothing to send it, such as email before a sender is configured, is never opened). A preference that
 * is off, or an event below its `minSeverity`, opens none (the event is still in the app); otherwise its
 * switches decide, whatever the kind. Without a preference, the built-in defaults: browser for alerts
 * at warning and above, email, push and chat for errors only, and changes in-app only.
 */
export function preferenceChannels(
  preference: NotificationPreference | null,
  severity: NotificationSeverity,
  kind: EventKind,
  available: readonly InterruptChannel[] = interruptChannels,
): PreferenceOutcome {
  const entry = (verdict: DecisionTraceEntry['verdict'], why: string): DecisionTraceEntry => ({
    stage: 'preference',
    id: preferenceId(preference),
    name: preferenceName(preference),
    verdict,
    why,
  });
  if (!preference) {
    const channels: InterruptChannel[] = [];
    if (kind === 'alert' && severityRank[severity] >= severityRank.warning && available.includes('browser')) channels.push('browser');
    if (kind === 'alert' && severity === 'error' && available.includes('email')) channels.push('email');
    if (kind === 'alert' && severity === 'error' && available.includes('push')) channels.push('push');
    if (kind === 'alert' && severity === 'error' && available.includes('chat')) channels.push('chat');
    const why = kind === 'change' ? 'a change: in-app only' : `an alert at ${severity}: ${describeChannels(channels)}`;
    return { channels, trace: entry('applied', why) };
  }
  if (!preference.enabled) return { channels: [], trace: entry('disabled', 'turned off: in-app only') };
  if (severityRank[severity] < severityRank[preference.minSeverity])
    return { channels: [], trace: entry('below_min_severity', `${severity} is below ${preference.minSeverity}: in-app only`) };
  // A preference saved before push or chat existed has no switch for it: it goes as email does.
  const switches = { ...preference.channels, push: preference.channels.push ?? preference.channels.email, chat: preference.channels.chat ?? preference.channels.email };
  const channels = interruptChannels.filter((channel) => switches[channel] && available.includes(channel));
  return { channels, trace: entry('applied', `${severity}: ${describeChannels(channels)}`) };
}

export function describeChannels(channels: readonly InterruptChannel[]): string {
  return channels.length === 0 ? 'in-app only' : `in-app, ${channels.join(', ')}`;
}
