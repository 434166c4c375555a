/**
 * The Notifications settings' drafts, as the page's form controls hold them: quiet hours, preferences, rules and the
 * dry run's sample event, each made from the API's shape (or from a stored value that may not fit), blank, and turned
 * back into the API's shape to save and to preview. Pure: the editor (managers/policy-editor.svelte.ts) keeps them.
 */
import {
  interruptChannels,
  notificationSourceSchema,
  weekdays,
  webhookIntegrationSchema,
  type InterruptChannel,
  type NotificationSource,
  type NotificationPreference,
  type NotificationRule,
  type NotificationSeverity,
  type PayloadCondition,
  type PayloadScalar,
  type QuietHours,
  type RuleActions,
  type RuleMatch,
  type Weekday,
  type WebhookIntegration,
} from '@dash/contracts';
import { browserTimeZone } from '$lib/utils/when';

/** What preferences and rules match: the webhook integrations and the dashboard's own metric alerts (`metrics`). */
export const sources = notificationSourceSchema.options;
/** What the dry run's sample event may come from: a webhook integration only. */
export const integrations = webhookIntegrationSchema.options;
export type ChannelAction = 'keep' | 'add' | 'remove';
export type PreferenceIntegration = NotificationSource | '*';

export interface WindowDraft {
  key: string;
  days: Weekday[];
  start: string;
  end: string;
}

export interface QuietDraft {
  enabled: boolean;
  timezone: string;
  windows: WindowDraft[];
}

export interface PreferenceDraft {
  key: string;
  integration: PreferenceIntegration;
  type: string;
  enabled: boolean;
  minSeverity: NotificationSeverity;
  browser: boolean;
  /** Not offered yet (email is unavailable): kept as saved. */
  email: boolean;
  /** Not offered yet (no device subscribed): kept as saved; a preference saved before push existed shows its email switch. */
  push: boolean;
  /** Not offered yet (no connection ready): kept as saved; a preference saved before chat existed shows its email switch. */
  chat: boolean;
}

export interface ConditionDraft {
  key: string;
  path: string;
  op: PayloadCondition['op'];
  /** As typed: text, a number, true/false/null, or a comma list for `in`. */
  value: string;
}

export interface RuleDraft {
  key: string;
  id: string;
  name: string;
  enabled: boolean;
  stop: boolean;
  integrations: NotificationSource[];
  type: string;
  minSeverity: NotificationSeverity | '';
  /** Comma-separated project slugs. */
  projects: string;
  titleContains: string;
  payload: ConditionDraft[];
  setSeverity: NotificationSeverity | '';
  browser: ChannelAction;
  /** Not offered yet (email is unavailable): kept as saved. */
  email: ChannelAction;
  /** Not offered yet (no device subscribed): kept as saved. */
  push: ChannelAction;
  /** Not offered yet (no chat or webhook connection ready): kept as saved. */
  chat: ChannelAction;
  bypassQuietHours: boolean;
  silence: boolean;
  discard: boolean;
  /** A saved `false` (undoing an earlier rule) stays `false` while its box stays unticked. */
  explicitFalse: { bypassQuietHours: boolean; silence: boolean; discard: boolean };
}

export interface SampleEvent {
  integration: WebhookIntegration;
  type: string;
  severity: NotificationSeverity;
  title: string;
  transition: 'trigger' | 'resolve' | '';
  project: string;
  /** JSON, optional: for rules with payload conditions. */
  payload: string;
}

let counter = 0;
const newKey = () => `k${Date.now().toString(36)}${(counter++).toString(36)}`;

/** A rule id: unique among the rules, short, and stable once saved. */
function newRuleId(taken: readonly string[]): string {
  for (;;) {
    const id = `rule-${Math.random().toString(36).slice(2, 8)}`;
    if (!taken.includes(id)) return id;
  }
}

const byWeekday = (days: readonly Weekday[]) => weekdays.filter((day) => days.includes(day));
const byIntegration = (chosen: readonly NotificationSource[]) => sources.filter((source) => chosen.includes(source));

// `<input type="time">` has no 24:00: an end of 00:00 is midnight, the end of the start day.
const endForInput = (end: string) => (end === '24:00' ? '00:00' : end);
const endForApi = (end: string) => (end === '00:00' ? '24:00' : end);

export function quietDraftOf(quiet: QuietHours): QuietDraft {
  // Never set up (the default: off, in UTC): the browser's own zone is the likely one.
  const timezone = quiet.timezone === 'UTC' && !quiet.enabled ? browserTimeZone() : quiet.timezone;
  return {
    enabled: quiet.enabled,
    timezone,
    windows: quiet.windows.map((window) => ({ key: newKey(), days: byWeekday(window.days), start: window.start, end: endForInput(window.end) })),
  };
}

export function quietHoursOf(draft: QuietDraft, pauseUntil: string | null): QuietHours {
  return {
    enabled: draft.enabled,
    timezone: draft.timezone.trim(),
    windows: draft.windows.map((window) => ({ days: byWeekday(window.days), start: window.start, end: endForApi(window.end) })),
    pauseUntil,
  };
}

export const blankWindow = (): WindowDraft => ({ key: newKey(), days: [...weekdays], start: '22:00', end: '07:00' });

export const preferenceDraftOf = (preference: NotificationPreference): PreferenceDraft => ({
  key: newKey(),
  integration: preference.integration,
  type: preference.type,
  enabled: preference.enabled,
  minSeverity: preference.minSeverity,
  browser: preference.channels.browser,
  email: preference.channels.email,
  push: preference.channels.push ?? preference.channels.email,
  chat: preference.channels.chat ?? preference.channels.email,
});

export const preferenceOf = (draft: PreferenceDraft): NotificationPreference => ({
  integration: draft.integration,
  type: draft.type.trim(),
  enabled: draft.enabled,
  minSeverity: draft.minSeverity,
  channels: { browser: draft.browser, email: draft.email, push: draft.push, chat: draft.chat },
});

export const blankPreference = (): PreferenceDraft => ({
  key: newKey(),
  integration: '*',
  type: '*',
  enabled: true,
  minSeverity: 'warning',
  browser: true,
  email: false,
  push: false,
  chat: false,
});

// Payload condition values: typed as text, sent as the scalar they spell.

/** Text that JSON would read as another scalar (`42`, `true`, `null`, `"x"`) is quoted to stay text. */
function scalarText(value: PayloadScalar): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  return parseScalar(value) === value ? value : JSON.stringify(value);
}

/** `42` → 42, `true`/`false`/`null`, `"quoted"` → the text inside, anything else → the text itself. */
export function parseScalar(text: string): PayloadScalar {
  const trimmed = text.trim();
  if (/^(?:true|false|null|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|"(?:[^"\\]|\\.)*")$/i.test(trimmed)) {
    try {
      return JSON.parse(trimmed.replace(/^(true|false|null)$/i, (word) => word.toLowerCase())) as PayloadScalar;
    } catch {
      return text;
    }
  }
  return text;
}

function conditionDraftOf(condition: PayloadCondition): ConditionDraft {
  let value = '';
  if (condition.op === 'in') value = condition.value.map(scalarText).join(', ');
  else if (condition.op === 'exists') value = condition.value === false ? 'false' : '';
  else value = scalarText(condition.value);
  return { key: newKey(), path: condition.path, op: condition.op, value };
}

function conditionOf(draft: ConditionDraft): PayloadCondition {
  const path = draft.path.trim();
  switch (draft.op) {
    case 'in':
      return { path, op: 'in', value: draft.value.split(',').filter((item) => item.trim() !== '').map((item) => parseScalar(item)) };
    case 'exists':
      return draft.value.trim() === 'false' ? { path, op: 'exists', value: false } : { path, op: 'exists' };
    case 'gt':
    case 'lt': {
      const number = Number(draft.value.trim());
      // Not a number: sent as typed, for the server to say so next to the field.
      return { path, op: draft.op, value: (draft.value.trim() !== '' && Number.isFinite(number) ? number : draft.value) as number };
    }
    default:
      return { path, op: draft.op, value: parseScalar(draft.value) };
  }
}

export const blankCondition = (): ConditionDraft => ({ key: newKey(), path: '', op: 'eq', value: '' });

const channelAction = (actions: RuleActions, channel: InterruptChannel): ChannelAction =>
  actions.addChannels?.includes(channel) ? 'add' : actions.removeChannels?.includes(channel) ? 'remove' : 'keep';

export function ruleDraftOf(rule: NotificationRule): RuleDraft {
  const { match, actions } = rule;
  return {
    key: newKey(),
    id: rule.id,
    name: rule.name,
    enabled: rule.enabled,
    stop: rule.stop,
    integrations: byIntegration(match.integrations ?? []),
    type: match.type ?? '',
    minSeverity: match.minSeverity ?? '',
    projects: (match.projects ?? []).join(', '),
    titleContains: match.titleContains ?? '',
    payload: (match.payload ?? []).map(conditionDraftOf),
    setSeverity: actions.setSeverity ?? '',
    browser: channelAction(actions, 'browser'),
    email: channelAction(actions, 'email'),
    push: channelAction(actions, 'push'),
    chat: channelAction(actions, 'chat'),
    bypassQuietHours: actions.bypassQuietHours === true,
    silence: actions.silence === true,
    discard: actions.discard === true,
    explicitFalse: { bypassQuietHours: actions.bypassQuietHours === false, silence: actions.silence === false, discard: actions.discard === false },
  };
}

export function ruleOf(draft: RuleDraft): NotificationRule {
  const match: RuleMatch = {};
  if (draft.integrations.length > 0) match.integrations = byIntegration(draft.integrations);
  if (draft.type.trim() !== '') match.type = draft.type.trim();
  if (draft.minSeverity !== '') match.minSeverity = draft.minSeverity;
  const projects = draft.projects
    .split(',')
    .map((slug) => slug.trim())
    .filter((slug) => slug !== '');
  if (projects.length > 0) match.projects = projects;
  if (draft.titleContains !== '') match.titleContains = draft.titleContains;
  if (draft.payload.length > 0) match.payload = draft.payload.map(conditionOf);

  const actions: RuleActions = {};
  if (draft.setSeverity !== '') actions.setSeverity = draft.setSeverity;
  const add = interruptChannels.filter((channel) => draft[channel] === 'add');
  const remove = interruptChannels.filter((channel) => draft[channel] === 'remove');
  if (add.length > 0) actions.addChannels = add;
  if (remove.length > 0) actions.removeChannels = remove;
  for (const flag of ['bypassQuietHours', 'silence', 'discard'] as const) {
    if (draft[flag]) actions[flag] = true;
    else if (draft.explicitFalse[flag]) actions[flag] = false;
  }
  return { id: draft.id, name: draft.name, enabled: draft.enabled, match, actions, stop: draft.stop };
}

export const blankRule = (taken: readonly string[]): RuleDraft =>
  ruleDraftOf({ id: newRuleId(taken), name: 'New rule', enabled: true, match: {}, actions: {}, stop: false });

// A saved part that no longer fits, loaded into the form as far as it can show it, so its owner can fix it.

const looseRecord = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const looseText = (value: unknown) => (typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value));

/** A stored rule that may not fit: its text kept as it is (for the server to name what is wrong), the rest as the form shows it. */
export function looseRuleDraft(value: unknown, index: number): RuleDraft {
  const rule = looseRecord(value);
  const match = looseRecord(rule.match);
  const text = { id: looseText(rule.id) || `rule-${index + 1}`, name: looseText(rule.name), enabled: rule.enabled !== false, stop: rule.stop === true };
  try {
    const draft = ruleDraftOf({ ...text, match, actions: looseRecord(rule.actions) });
    const projects = Array.isArray(match.projects) ? match.projects.map(looseText).join(', ') : looseText(match.projects);
    return { ...draft, ...text, type: looseText(match.type), projects, titleContains: looseText(match.titleContains) };
  } catch {
    return { ...blankRule([]), ...text };
  }
}

/** A stored preference that may not fit, as the form shows it. */
export function loosePreferenceDraft(value: unknown): PreferenceDraft {
  const preference = looseRecord(value);
  const channels = looseRecord(preference.channels);
  return {
    ...blankPreference(),
    integration: looseText(preference.integration) as PreferenceIntegration,
    type: looseText(preference.type),
    enabled: preference.enabled !== false,
    minSeverity: looseText(preference.minSeverity) as NotificationSeverity,
    browser: channels.browser === true,
    email: channels.email === true,
    push: (channels.push ?? channels.email) === true,
    chat: (channels.chat ?? channels.email) === true,
  };
}


export const defaultSample = (): SampleEvent => ({
  integration: 'deploy_host',
  type: 'deploy.error',
  severity: 'error',
  title: 'Deploy failed: my-app (production)',
  transition: 'trigger',
  project: '',
  payload: '',
});
