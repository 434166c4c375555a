import {
  interruptChannels,
  notificationSourceSchema,
  weekdays,
  webhookIntegrationSchema,
  type ChannelConnection,
  type DryRunResult,
  type InterruptChannel,
  type NotificationSource,
  type NotificationPolicy,
  type NotificationPolicyView,
  type NotificationPreference,
  type NotificationRule,
  type NotificationSeverity,
  type PayloadCondition,
  type PolicyAttention,
  type PayloadScalar,
  type QuietHours,
  type RuleActions,
  type RuleMatch,
  type Weekday,
  type WebhookIntegration,
} from '@dash/contracts';
import { FormState } from '$lib/managers/form.svelte';
import { api } from '$lib/services/trpc';
import { describeError } from '$lib/utils/errors';
import { browserTimeZone } from '$lib/utils/when';

/**
 * The Notifications settings as the page edits them: drafts of the quiet hours, the preferences and the
 * rules (shaped for form controls, turned back into the API's shapes to save and to preview), the saved
 * view they started from, and the live preview, which asks the server's dry run about a sample event
 * under the unsaved drafts.
 */

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

// ------------------------------------------------------------------------------------------------
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

// ------------------------------------------------------------------------------------------------
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

// ------------------------------------------------------------------------------------------------

export const defaultSample = (): SampleEvent => ({
  integration: 'deploy_host',
  type: 'deploy.error',
  severity: 'error',
  title: 'Deploy failed: my-app (production)',
  transition: 'trigger',
  project: '',
  payload: '',
});

export class PolicyEditor {
  /** The policy as last saved (or loaded), with the mutes and whether it is quiet now. */
  view = $state() as NotificationPolicyView;
  quiet = $state() as QuietDraft;
  preferences = $state<PreferenceDraft[]>([]);
  rules = $state<RuleDraft[]>([]);
  sample = $state<SampleEvent>(defaultSample());
  /** The flap hold being edited, in seconds. */
  flapHold = $state(120);

  readonly quietForm = new FormState();
  readonly flapForm = new FormState();
  readonly preferencesForm = new FormState();
  readonly rulesForm = new FormState();
  readonly pauseForm = new FormState();
  readonly mutesForm = new FormState();

  preview = $state<DryRunResult | undefined>();
  previewError = $state<string | undefined>();
  previewBusy = $state(false);
  private previewSeq = 0;
  /** The ready connections as last told (connectionsChanged), to read the policy again only when they change. */
  private connectionsSeen: string | undefined;

  constructor(view: NotificationPolicyView) {
    this.view = view;
    this.quiet = quietDraftOf(view.quietHours);
    this.flapHold = view.flapHoldSeconds;
    this.preferences = view.preferences.map(preferenceDraftOf);
    this.rules = view.rules.map(ruleDraftOf);
  }

  /** The server's view again (another save, a reload): what is not a draft follows it. */
  refresh(view: NotificationPolicyView): void {
    this.view = { ...this.view, mutes: view.mutes, quietNow: view.quietNow, email: view.email, push: view.push, chat: view.chat, flapHoldSeconds: view.flapHoldSeconds, quietHours: { ...this.view.quietHours, pauseUntil: view.quietHours.pauseUntil } };
    this.view.needsAttention = view.needsAttention;
  }

  /** The drafts as a policy, for saving and for the dry run. */
  policy(): NotificationPolicy {
    return {
      preferences: this.preferences.map(preferenceOf),
      rules: this.rules.map(ruleOf),
      quietHours: quietHoursOf(this.quiet, this.view.quietHours.pauseUntil),
    };
  }

  async saveQuietHours(): Promise<void> {
    await this.quietForm.submit(async () => {
      // The windows only: the pause is saved on its own, so this save never undoes one set elsewhere.
      const { pauseUntil: _pause, ...windows } = quietHoursOf(this.quiet, null);
      this.view = await api.notifications.saveQuietHours.mutate(windows);
      return this.view.quietHours.enabled ? 'Quiet hours saved: they are on.' : 'Quiet hours saved: they are off.';
    });
  }

  async saveFlapHold(): Promise<void> {
    await this.flapForm.submit(async () => {
      this.view = await api.notifications.saveFlapHold.mutate({ seconds: this.flapHold });
      return this.view.flapHoldSeconds === 0 ? 'Flap hold saved: outages interrupt at once.' : `Flap hold saved: ${this.view.flapHoldSeconds} s.`;
    });
  }

  async savePreferences(): Promise<void> {
    await this.preferencesForm.submit(async () => {
      this.view = await api.notifications.savePreferences.mutate({ preferences: this.preferences.map(preferenceOf) });
      return this.view.preferences.length === 1 ? 'Saved 1 preference.' : `Saved ${this.view.preferences.length} preferences.`;
    });
  }

  /** A device was subscribed or removed: when that opens or closes the push channel, the policy is read again. */
  async devicesChanged(live: number): Promise<void> {
    if (live !== this.view.push.devices) await this.reread();
  }

  /**
   * The chat and webhook connections were read (`ready`: those that can send now, not waiting for a fix): when one was
   * added, removed, renamed, given another floor, fixed or marked "needs attention", the policy is read again, which
   * opens or closes the chat channel and runs the preview again (it names the connections).
   */
  async connectionsChanged(ready: readonly Pick<ChannelConnection, 'id' | 'name' | 'minSeverity'>[]): Promise<void> {
    const seen = JSON.stringify(ready.map(({ id, name, minSeverity }) => [id, name, minSeverity]));
    const before = this.connectionsSeen;
    this.connectionsSeen = seen;
    // The first read: the view loaded with the page already counts them, unless one changed since.
    if (before === undefined ? ready.length !== this.view.chat.connections : seen !== before) await this.reread();
  }

  private async reread(): Promise<void> {
    try {
      this.refresh(await api.notifications.policy.query());
    } catch {
      // The controls keep what they showed; the next load tells.
    }
  }

  async saveRules(): Promise<void> {
    await this.rulesForm.submit(async () => {
      this.view = await api.notifications.saveRules.mutate({ rules: this.rules.map(ruleOf) });
      return this.view.rules.length === 1 ? 'Saved 1 rule.' : `Saved ${this.view.rules.length} rules.`;
    });
  }

  /** Pauses interruptions until `until` (ISO 8601), or resumes them (null). */
  async pause(until: string | null): Promise<void> {
    await this.pauseForm.submit(async () => {
      const view = await api.notifications.pause.mutate({ until });
      this.refresh(view);
      return until === null ? 'Resumed: notifications interrupt again.' : 'Paused.';
    });
  }

  async unmute(subjectKey: string): Promise<void> {
    await this.mutesForm.submit(async () => {
      const { mutes } = await api.notifications.mute.mutate({ subjectKey, until: null });
      this.view = { ...this.view, mutes };
      return 'Unmuted.';
    });
  }

  /** A saved part that no longer fits (kept as saved; meanwhile the last valid one applies), if any. */
  attention(part: PolicyAttention['part']): PolicyAttention | undefined {
    return this.view.needsAttention.find((problem) => problem.part === part);
  }

  /** Loads the saved rules or preferences that no longer fit into the form, as far as it can show them, to fix and save. */
  editStored(part: 'rules' | 'preferences'): void {
    const stored = this.attention(part)?.stored;
    const items: unknown[] = Array.isArray(stored) ? stored : [];
    if (part === 'rules') {
      this.rules = items.map(looseRuleDraft);
      this.rulesForm.fields = {};
    } else {
      this.preferences = items.map(loosePreferenceDraft);
      this.preferencesForm.fields = {};
    }
  }

  /** Discards a saved part that no longer fits: what applies now (the last valid one, or the default) is saved in its place. */
  async discardStored(part: PolicyAttention['part']): Promise<void> {
    switch (part) {
      case 'rules':
        this.rules = this.view.rules.map(ruleDraftOf);
        return this.saveRules();
      case 'preferences':
        this.preferences = this.view.preferences.map(preferenceDraftOf);
        return this.savePreferences();
      case 'quietHours':
        this.quiet = quietDraftOf(this.view.quietHours);
        return this.saveQuietHours();
      case 'pauseUntil': {
        // The pause that applies, unless it is over (the server refuses a pause in the past; over is the same as none).
        const applied = this.view.quietHours.pauseUntil;
        return this.pause(applied !== null && Date.parse(applied) > Date.now() ? applied : null);
      }
      case 'flapHoldSeconds':
        this.flapHold = this.view.flapHoldSeconds;
        return this.saveFlapHold();
      default:
        // Every part has a case: a part added to the contracts without one fails the typecheck here.
        return part satisfies never;
    }
  }

  addRule(): void {
    this.rules.push(blankRule(this.rules.map((rule) => rule.id)));
  }

  moveRule(index: number, by: -1 | 1): void {
    const target = index + by;
    if (target < 0 || target >= this.rules.length) return;
    const rules = [...this.rules];
    [rules[index], rules[target]] = [rules[target] as RuleDraft, rules[index] as RuleDraft];
    this.rules = rules;
  }

  /** The dry run's input for the sample event under the drafts; an error message when the sample itself cannot be sent. */
  previewInput(): { input: Parameters<typeof api.notifications.dryRun.mutate>[0] } | { error: string } {
    const sample = this.sample;
    let payload: Record<string, unknown> | undefined;
    if (sample.payload.trim() !== '') {
      try {
        const parsed: unknown = JSON.parse(sample.payload);
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { error: 'The sample payload is a JSON object, e.g. {"deployment": {"target": "production"}}.' };
        payload = parsed as Record<string, unknown>;
      } catch {
        return { error: 'The sample payload is not valid JSON.' };
      }
    }
    const transition = sample.transition === '' ? null : sample.transition;
    return {
      input: {
        event: {
          integration: sample.integration,
          type: sample.type,
          severity: sample.severity,
          title: sample.title,
          transition,
          // A subject of its own: the preview is about a new thread, not one that is open now.
          subjectKey: transition === null ? null : `preview:${sample.integration}:${sample.project.trim() || '-'}`,
          project: sample.project.trim() === '' ? null : sample.project.trim(),
          ...(payload ? { payload } : {}),
        },
        policy: this.policy(),
      },
    };
  }

  /** Asks the dry run; only the latest answer is kept. */
  async runPreview(request: ReturnType<PolicyEditor['previewInput']>): Promise<void> {
    const seq = ++this.previewSeq;
    if ('error' in request) {
      this.previewError = request.error;
      this.preview = undefined;
      return;
    }
    this.previewBusy = true;
    try {
      const result = await api.notifications.dryRun.mutate(request.input);
      if (seq !== this.previewSeq) return;
      this.preview = result;
      this.previewError = undefined;
    } catch (error) {
      if (seq !== this.previewSeq) return;
      this.preview = undefined;
      this.previewError = describeError(error).message;
    } finally {
      if (seq === this.previewSeq) this.previewBusy = false;
    }
  }
}
